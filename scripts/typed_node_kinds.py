#!/usr/bin/env python3
"""Rewrites tree-sitter node kinds spelt as strings into the typed constants of
analysis/node_kinds.h (generated at build time from the grammar's node-types.json):

    isKind(node, "call")                 -> isKind(node, kind::call)
    std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
                                         -> std::vector<analysis::NodeKind> nodeKinds() ... { return {kind::call}; }
    std::string_view kind = kindOf(n);   -> analysis::NodeKind kind = kindOf(n);
    kind == "attribute"                  -> kind == kind::attribute   (for a variable holding a kind)
    out << kindOf(n)                     -> out << kindName(n)
    NodeKind kKinds[] = {"call", ...}    -> NodeKind kKinds[] = {kind::call, ...}

plus a short list of declarations, below, that become NodeKind (tables of kinds and helpers
that take one). Re-runnable: a second run changes nothing. A string in a kind's place that
names no kind of the grammar is reported and the run fails (exit 1), changing nothing.

Usage: scripts/typed_node_kinds.py [--header build/generated/analysis/node_kinds.h] [--check]
  --check: change nothing; exit 1 when some file would change.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Functions whose argument at this index is a node kind, everywhere and in one file.
KIND_ARGS = {"isKind": 1, "hasChildKind": 1}
FILE_KIND_ARGS = {"tests/unit/syntax_helpers_test.cpp": {"enclosing": 1}}

# Declarations that hold kinds, per file: (pattern, replacement), applied before the generic
# rewrites. A pattern that no longer matches once rewritten is fine (the rewrite is idempotent).
DECLARATIONS = {
    "rules/rule.h": [
        (r"virtual std::vector<std::string_view> nodeKinds\(\) const = 0;",
         "virtual std::vector<analysis::NodeKind> nodeKinds() const = 0;"),
    ],
    "rules/linter.cpp": [
        (r"for \(std::string_view kind : rule->nodeKinds\(\)\) \{\n(\s*)TSSymbol symbol = "
         r"ts_language_symbol_for_name\(language, kind\.data\(\), static_cast<uint32_t>\(kind\.size\(\)\), true\);",
         "for (analysis::NodeKind kind : rule->nodeKinds()) {\n\\1TSSymbol symbol = ts_language_symbol_for_name("
         "language, kind.name().data(), static_cast<uint32_t>(kind.name().size()), true);"),
        (r"\[\]\(std::string_view kind\) \{ return kind == \"module\"; \}",
         "[](analysis::NodeKind kind) { return kind == kind::module; }"),
    ],
    "tests/unit/syntax_helpers_test.cpp": [
        (r"TSNode enclosing\(std::string_view needle, std::string_view kind\) const",
         "TSNode enclosing(std::string_view needle, NodeKind kind) const"),
    ],
    "rules/helpers.cpp": [
        (r"static bool hasChildKind\(TSNode call, std::string_view kind\)",
         "static bool hasChildKind(TSNode call, analysis::NodeKind kind)"),
    ],
    "analysis/semantic_model_builder.cpp": [
        (r"static constexpr std::pair<std::string_view, Role> kRoles\[\]",
         "static constexpr std::pair<NodeKind, Role> kRoles[]"),
        (r"for \(const auto& \[kind, role\] : kRoles\)\n(\s*)if \(kind == name\)",
         "for (const auto& [kind, role] : kRoles)\n\\1if (kind.name() == name)"),
        (r"static constexpr std::string_view kExpressions\[\]", "static constexpr NodeKind kExpressions[]"),
        (r"for \(std::string_view kind : kExpressions\)\n(\s*)if \(kind == name\)",
         "for (NodeKind kind : kExpressions)\n\\1if (kind.name() == name)"),
    ],
    "analysis/grammar_gaps.cpp": [
        (r"\bstd::string_view kind\b", "NodeKind kind"),
        (r"\bstd::string_view before = ", "NodeKind before = "),
        (r"std::array<std::string_view, (\d+)> (kinds|anywhere|assignments)\{", r"std::array<NodeKind, \1> \2{"),
    ],
}

STRING = r'"((?:[^"\\\n]|\\.)*)"'


def load_kinds(header):
    kinds = {}
    pattern = re.compile(r'inline constexpr analysis::NodeKind (\w+) = analysis::detail::NodeKindTable::make\(' + STRING + r', \d+\);')
    with open(header, encoding="utf-8") as f:
        for m in pattern.finditer(f.read()):
            kinds[m.group(2).encode().decode("unicode_escape")] = m.group(1)
    if not kinds:
        sys.exit(f"{header}: no node kinds (build the ptlint_node_kinds target first)")
    return kinds


def matching(text, open_at):
    """Index just past the bracket that closes the one at open_at (strings and chars skipped)."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = []
    i = open_at
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")}]":
            if not stack or stack.pop() != c:
                return -1
            if not stack:
                return i + 1
        i += 1
    return -1


def split_args(text, open_at, close_at):
    """(start, end) of each top-level argument between the parentheses."""
    args, depth, start, i = [], 0, open_at + 1, open_at + 1
    while i < close_at - 1:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < close_at and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif c == "," and depth == 0:
            args.append((start, i))
            start = i + 1
        i += 1
    args.append((start, close_at - 1))
    return args


class Rewriter:
    def __init__(self, path, text, kinds):
        self.path, self.text, self.kinds = path, text, kinds
        self.errors = []
        in_ptlint = re.search(r"^\s*(namespace ptlint\b|using namespace ptlint;)", text, re.M)
        self.prefix = "kind::" if in_ptlint else "ptlint::kind::"
        self.node_kind = "analysis::NodeKind" if in_ptlint else "ptlint::analysis::NodeKind"

    def line_of(self, at):
        return self.text.count("\n", 0, at) + 1

    def constant(self, literal, at):
        name = literal.encode().decode("unicode_escape")
        if name not in self.kinds:
            self.errors.append(f"{self.path}:{self.line_of(at)}: \"{literal}\" is no node kind of the grammar")
            return None
        return self.prefix + self.kinds[name]

    def replace_spans(self, spans):
        """spans: (start, end, replacement), non-overlapping."""
        out, last = [], 0
        for start, end, repl in sorted(spans):
            out.append(self.text[last:start])
            out.append(repl)
            last = end
        out.append(self.text[last:])
        self.text = "".join(out)

    def literals_in(self, start, end):
        spans = []
        for m in re.finditer(STRING, self.text[start:end]):
            at = start + m.start()
            repl = self.constant(m.group(1), at)
            if repl:
                spans.append((at, start + m.end(), repl))
        return spans

    def declarations(self):
        for pattern, repl in DECLARATIONS.get(self.path, []):
            self.text = re.sub(pattern, repl, self.text)

    def kind_arguments(self):
        spans = []
        functions = {**KIND_ARGS, **FILE_KIND_ARGS.get(self.path, {})}
        for m in re.finditer(r"\b(" + "|".join(functions) + r")\s*\(", self.text):
            open_at = m.end() - 1
            close_at = matching(self.text, open_at)
            if close_at < 0:
                continue
            args = split_args(self.text, open_at, close_at)
            index = functions[m.group(1)]
            if index >= len(args):
                continue
            start, end = args[index]
            arg = self.text[start:end].strip()
            if re.fullmatch(STRING, arg):
                at = self.text.index(arg, start)
                repl = self.constant(arg[1:-1], at)
                if repl:
                    spans.append((at, at + len(arg), repl))
        self.replace_spans(spans)

    def node_kinds_lists(self):
        self.text = re.sub(r"std::vector<std::string_view>(\s+nodeKinds\(\)\s*const)",
                           "std::vector<" + self.node_kind + r">\1", self.text)
        spans = []
        for m in re.finditer(r"nodeKinds\(\)\s*const\s*(override\s*|final\s*)*\{", self.text):
            close_at = matching(self.text, m.end() - 1)
            if close_at > 0:
                spans += self.literals_in(m.end(), close_at)
        self.replace_spans(spans)

    def kind_tables(self):
        # A braced initializer of a declaration whose type holds NodeKind: every string in it.
        spans = []
        decl = (r"(?:[\w:]+<[^;{}()=]*\bNodeKind\b[^;{}()=]*>|\b(?:[\w:]*::)?NodeKind)"
                r"\s+\w+\s*(?:\[[^\]]*\])?\s*=?\s*\{")
        for m in re.finditer(decl, self.text):
            close_at = matching(self.text, m.end() - 1)
            if close_at > 0:
                spans += self.literals_in(m.end(), close_at)
        self.replace_spans(spans)

    def kind_names(self):
        # A kind printed is its name: `<< kindOf(n)` -> `<< kindName(n)`.
        self.text = re.sub(r"(<<\s*(?:analysis::)?)kindOf\(", r"\1kindName(", self.text)

    def kind_variables(self):
        # A variable initialised from kindOf holds a kind.
        self.text = re.sub(r"\bstd::string_view(\s+\w+\s*=\s*(?:analysis::)?kindOf\()",
                           self.node_kind + r"\1", self.text)
        names = set(re.findall(r"\bNodeKind&?\s+(\w+)\b(?!\s*\()", self.text))
        names |= set(re.findall(r"\bfor\s*\(\s*(?:const\s+)?(?:auto|[\w:]*NodeKind)&?\s+(\w+)\s*:\s*[\w:>-]*nodeKinds\(\)",
                                self.text))
        names -= {"kind_"}  # never a variable here
        if not names:
            return
        # `name == "x"`, `a.name != "x"`, `leaves[i].name == "x"`, and the string first.
        operand = r"(?<![\w.>:])(?:\w+(?:\[[^\]\n]*\])?\.)?(?:" + "|".join(sorted(names)) + r")\b"
        spans = []
        for m in re.finditer("(" + operand + r")(\s*[!=]=\s*)" + STRING, self.text):
            at = m.start(3) - 1
            repl = self.constant(m.group(3), at)
            if repl:
                spans.append((at, m.end(), repl))
        for m in re.finditer(STRING + r"(\s*[!=]=\s*)(" + operand + ")", self.text):
            repl = self.constant(m.group(1), m.start())
            if repl:
                spans.append((m.start(), m.start() + len(m.group(1)) + 2, repl))
        self.replace_spans(spans)

    def run(self):
        self.declarations()
        self.kind_arguments()
        self.node_kinds_lists()
        self.kind_tables()
        self.kind_names()
        self.kind_variables()
        return self.text


def candidate_files():
    out = subprocess.run(["git", "ls-files", "*.cpp", "*.h", "scripts/new_rule.sh"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.split()
    mention = re.compile(r"\b(isKind|kindOf|nodeKinds|NodeKind|hasChildKind)\b")
    for path in out:
        if path.startswith(("build", "third_party")):
            continue
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
        # Kinds spelt wrong on purpose (the test that they do not compile).
        if "typed_node_kinds.py: leave this file" in text:
            continue
        # workspace's compile-log reader has a kindOf of its own (of a log line).
        if re.search(r"^\w+ kindOf\(std::string_view", text, re.M):
            continue
        if mention.search(text) or path in DECLARATIONS:
            yield path, text


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--header", default=os.path.join(ROOT, "build/generated/analysis/node_kinds.h"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    kinds = load_kinds(args.header)
    changed, errors = {}, []
    for path, text in candidate_files():
        rewriter = Rewriter(path, text, kinds)
        new = rewriter.run()
        errors += rewriter.errors
        if new != text:
            changed[path] = new
    if errors:
        print("\n".join(errors), file=sys.stderr)
        print(f"typed_node_kinds: {len(errors)} string(s) in a kind's place name no kind; nothing changed",
              file=sys.stderr)
        return 1
    for path in sorted(changed):
        print(("would rewrite " if args.check else "rewrote ") + path)
        if not args.check:
            with open(os.path.join(ROOT, path), "w", encoding="utf-8") as f:
                f.write(changed[path])
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
