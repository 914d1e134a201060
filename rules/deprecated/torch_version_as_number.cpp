// PTL114 torch-version-as-number: `torch.__version__` cut into characters or turned into a number.
#include <cctype>

#include "analysis/code_text.h"
#include "analysis/name_shapes.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::startOf;

constexpr RuleMeta kTorchVersionAsNumber{
    .code = "PTL114",
    .name = "torch-version-as-number",
    .summary = "`torch.__version__` sliced, indexed or turned into a float",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.10",
    .docs = R"md(
## What it does
Reports tests of the PyTorch version that read `torch.__version__` (also
`torch.version.__version__` and `from torch import __version__`) as characters or as a number:
- a slice or an index of the string other than its first character (`torch.__version__[:3]`,
  `torch.__version__[2]`);
- `float(...)` of anything made from it (`float(torch.__version__[:3])`,
  `float(".".join(torch.__version__.split(".")[:2]))`);
- `torch.__version__.startswith("2.1")`, a prefix that ends in a one-digit minor version;
- `str(torch.__version__)` compared with a string (`str(torch.__version__) >= "2.1"`).

## Why is this bad?
Since PyTorch 2.10 the minor version has two digits. `"2.10.0"[:3]` is `"2.1"`,
`float("2.10")` is `2.1`, `"2.10.0".startswith("2.1")` is true, and as plain strings
`"2.10" < "2.9"`: each of these tests takes 2.10 to 2.19 for 2.1, and code written
"for 2.1 and later" or "for releases before 2.9" takes the wrong branch on current PyTorch.

`torch.__version__` is not a plain string: since PyTorch 1.10 it is a `TorchVersion`
(`torch/torch_version.py`), a `str` whose comparisons parse both sides as versions, so
`torch.__version__ >= "2.1"` and `torch.__version__ >= (2, 1)` are right and are not reported.
`str(torch.__version__)` gives up those comparisons. Splitting on `.` and comparing integers
(`int(torch.__version__.split(".")[1])`), `packaging.version.parse(torch.__version__)` and
the first character (`torch.__version__[0]`, right until a release 10) are not reported.

## Example
```python
if float(torch.__version__[:3]) >= 1.8:
    ...
if torch.__version__[:3] == "2.1":
    ...
```

## Use instead
```python
if torch.__version__ >= "1.8":
    ...
if "2.1" <= torch.__version__ < "2.2":
    ...
```

## Fix safety
For `float(<slice>) >= N`, `float(<slice>) < N`, `<slice> >= "N"` and `<slice> < "N"`, the fix
compares `torch.__version__` itself with the string `"N"`, and is unsafe: a pre-release or
development build (`2.1.0a0+git…`) is older than `2.1` as a version but has the same first
characters. Other forms (`==`, `>`, `<=`, which would need the next release spelled out) have
no fix.

## PyTorch versions
The two-digit minor version exists from 2.10; `TorchVersion` from 1.10. The rule does not depend
on `torch-version`: a test that misreads 2.10 is wrong wherever the code may meet it.

## Releases
`torch/torch_version.py`: `TorchVersion` compares as a version in 1.13, 2.6 and 2.14 (since 1.10);
the premise holds 1.13–2.14.

## References
- [torch/torch_version.py](https://github.com/pytorch/pytorch/blob/main/torch/torch_version.py): `TorchVersion` compares as `packaging.version.Version`
- [torch.__version__ (PyTorch docs)](https://pytorch.org/docs/stable/torch.html)
)md"};

bool isVersionRef(const analysis::SemanticModel& model, TSNode node) {
  if (!isKind(node, kind::attribute) && !isKind(node, kind::identifier)) return false;
  std::string_view text = model.text(node);
  if (!text.ends_with("__version__") && isKind(node, kind::attribute)) return false;
  auto q = model.qualifiedName(node);
  return q && (*q == "torch.__version__" || *q == "torch.version.__version__");
}

// The subscript of `node` when it is a slice or an index other than 0; null otherwise.
TSNode misreadIndex(TSNode subscript, std::string_view source) {
  TSNode index = fieldOf(subscript, "subscript");
  if (ts_node_is_null(index) || ts_node_named_child_count(subscript) != 2) return {};
  if (isKind(index, kind::slice)) return index;
  if (auto value = integerLiteral(index, source); value && *value != 0) return index;
  return {};
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "2.1", "1.8": a major.minor literal (the text of a float, or a string's content).
bool isMajorMinor(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == s.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != dot && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

class TorchVersionAsNumber final : public Rule {
 public:
  const RuleMeta& meta() const override { return kTorchVersionAsNumber; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::subscript, kind::call, kind::comparison_operator}; }
  // Before parsing, on the code: some `__version__` that can be torch's (read from `torch`,
  // `version`, a longer chain, or a name that may be rebound; bare only where the file binds or
  // imports it) in a shape a finding has: indexed or sliced, `.startswith`, inside `float(` or
  // `str(`, the plain string `version.__version__` or a bare import of it, or bound to an alias
  // (`v = torch.__version__`, whose uses the file then spells otherwise).
  Prefilter prefilter() const override { return {.words = {"__version__"}, .whole_words = true}; }
  bool mayReport(const PrefilterInput& input, const Settings&) const override {
    if (input.parsed != nullptr) return true;
    const analysis::PrefilterText& source = input.source;
    const std::string* code = source.code();
    if (code == nullptr) return source.codeNamesAny({"__version__"});
    std::string_view text = *code;
    constexpr std::string_view kWord = "__version__";
    std::vector<size_t> in_calls;  // candidates decided by their enclosing call
    bool bare_bound = false, bare_known = false;
    bool shaped = analysis::forEachWholeWord(text, kWord, [&](size_t at) {
      analysis::Receiver receiver = analysis::receiverOf(text, at);
      if (receiver.kind == analysis::Receiver::Kind::None) {
        if (!bare_known) {
          bare_bound = analysis::mayBeRebound(text, kWord) || importsName(text, kWord);
          bare_known = true;
        }
        return bare_bound;  // `from torch.version import __version__`: compared as a plain string
      }
      if (receiver.kind == analysis::Receiver::Kind::Unresolved) return false;
      if (receiver.kind == analysis::Receiver::Kind::Name) {
        if (receiver.name == "version") return true;  // `torch.version.__version__` as a plain string
        if (receiver.name != "torch" && !analysis::mayBeRebound(text, receiver.name)) return false;
      }
      size_t after = analysis::skipSpaceForward(text, at + kWord.size());
      if (after < text.size() && text[after] == '[') return true;
      if (after < text.size() && text[after] == '.' &&
          text.substr(analysis::skipSpaceForward(text, after + 1)).starts_with("startswith"))
        return true;
      if (receiver.kind == analysis::Receiver::Kind::Other) {
        // `torch.version.__version__`, or a chain we cannot follow: through.
        size_t dot = analysis::skipSpaceBack(text, at);
        size_t end = analysis::skipSpaceBack(text, dot - 1);
        if (end >= 7 && text.substr(end - 7, 7) == "version") return true;
      }
      // An alias: the chain (from its first name, past opening parentheses) follows `=` or `:=`.
      size_t start = at;
      while (start > 0) {
        size_t before = analysis::skipSpaceBack(text, start);
        if (before > 0 && text[before - 1] == '.') {
          size_t name = analysis::skipSpaceBack(text, before - 1);
          while (name > 0 && analysis::isIdentifierByte(text[name - 1])) --name;
          start = name;
          continue;
        }
        break;
      }
      size_t before = analysis::skipSpaceBack(text, start);
      while (before > 0 && text[before - 1] == '(') before = analysis::skipSpaceBack(text, before - 1);
      if (before > 0 && text[before - 1] == '=' &&
          (before < 2 || (text[before - 2] != '=' && text[before - 2] != '<' && text[before - 2] != '>' &&
                          text[before - 2] != '!')))
        return true;
      in_calls.push_back(at);
      return false;
    });
    if (shaped) return true;
    if (in_calls.empty()) return false;
    bool inside = false;
    bool balanced = analysis::withEnclosingBrackets(text, in_calls, [&](size_t, const std::vector<size_t>& open) {
      for (size_t bracket : open) {
        if (text[bracket] != '(') continue;
        size_t end = analysis::skipSpaceBack(text, bracket), name = end;
        while (name > 0 && analysis::isIdentifierByte(text[name - 1])) --name;
        std::string_view callee = text.substr(name, end - name);
        if (callee == "float" || callee == "str") inside = true;
      }
    });
    return inside || !balanced;
  }

  // Is `name` in an import statement's list (`from torch import __version__`, over lines too)?
  // Conservative: any occurrence after `import` on its line, or after `,` or `(`.
  static bool importsName(std::string_view code, std::string_view name) {
    return analysis::forEachWholeWord(code, name, [&](size_t at) {
      size_t before = analysis::skipSpaceBack(code, at);
      if (before > 0 && (code[before - 1] == ',' || code[before - 1] == '(')) return true;
      return before >= 6 && code.substr(before - 6, 6) == "import";
    });
  }

  void check(TSNode node, Context& ctx) const override {
    if (isKind(node, kind::subscript)) return checkSubscript(node, ctx);
    if (isKind(node, kind::comparison_operator)) return checkPlainComparison(node, ctx);
    checkCall(node, ctx);
  }

 private:
  // `torch.version.__version__` is the plain string `torch.__version__` is made from.
  static bool isPlainString(const Context& ctx, TSNode node) {
    auto q = ctx.model().qualifiedName(node);
    return q && *q == "torch.version.__version__";
  }

  void checkPlainComparison(TSNode comparison, Context& ctx) const {
    if (ts_node_named_child_count(comparison) != 2) return;
    std::string_view op = trimmed(operatorOf(comparison, ctx.source()));
    if (op != "<" && op != "<=" && op != ">" && op != ">=") return;
    TSNode left = ts_node_named_child(comparison, 0), right = ts_node_named_child(comparison, 1);
    TSNode version = isVersionRef(ctx.model(), left) ? left : right;
    TSNode other = analysis::sameNode(version, left) ? right : left;
    if (!isVersionRef(ctx.model(), version) || !isPlainString(ctx, version) || !isKind(other, kind::string)) return;
    Diagnostic& d = ctx.report(comparison, "`torch.version.__version__` compares as text; compare `torch.__version__`");
    d.help = "It is a plain string (`\"2.10\" < \"2.9\"`); `torch.__version__` compares as a version.";
  }

  void checkSubscript(TSNode subscript, Context& ctx) const {
    TSNode value = fieldOf(subscript, "value");
    if (!isVersionRef(ctx.model(), value)) return;
    TSNode index = misreadIndex(subscript, ctx.source());
    if (ts_node_is_null(index)) return;
    // Inside float(...): the call is the finding.
    TSNode parent = ts_node_parent(subscript);
    if (isKind(parent, kind::argument_list) && isFloatCall(ts_node_parent(parent), ctx)) return;
    std::string text(ctx.text(subscript));
    Diagnostic& d = ctx.report(subscript, "`" + text + "` cuts the version by characters; compare `torch.__version__` itself");
    d.help = "From PyTorch 2.10 the minor version has two digits: `\"2.10.0\"[:3]` is `\"2.1\"`.";
    offerFix(d, subscript, value, /*numeric=*/false, ctx);
  }

  bool isFloatCall(TSNode call, const Context& ctx) const {
    return isKind(call, kind::call) && ctx.text(fieldOf(call, "function")) == "float" &&
           isBuiltinCall(ctx.model(), call, "float");
  }

  // Does `root` hold a use of the version string?
  bool holdsVersion(TSNode root, const Context& ctx) const {
    bool found = false;
    analysis::walkTree(
        root,
        [&](TSNode n) {
          if (found) return false;
          if (isVersionRef(ctx.model(), n)) {
            found = true;
            return false;
          }
          return !isKind(n, kind::attribute) || !ts_node_is_null(fieldOf(n, "object"));
        },
        [](TSNode) {});
    return found;
  }

  void checkCall(TSNode call, Context& ctx) const {
    TSNode callee = fieldOf(call, "function");
    TSNode args = argumentList(call);
    if (ts_node_is_null(args)) return;
    if (isFloatCall(call, ctx)) {
      if (ts_node_named_child_count(args) != 1 || !holdsVersion(args, ctx)) return;
      TSNode arg = ts_node_named_child(args, 0);
      Diagnostic& d = ctx.report(call, "`" + std::string(ctx.text(call).size() <= 40 ? ctx.text(call) : "float(...)") +
                                           "` reads 2.10 as 2.1; compare `torch.__version__` itself");
      d.help = "`torch.__version__` compares as a version: `torch.__version__ >= \"2.1\"`.";
      if (isKind(arg, kind::subscript) && isVersionRef(ctx.model(), fieldOf(arg, "value")))
        offerFix(d, call, fieldOf(arg, "value"), /*numeric=*/true, ctx);
      return;
    }
    if (isKind(callee, kind::attribute) && ctx.text(fieldOf(callee, "attribute")) == "startswith" &&
        isVersionRef(ctx.model(), fieldOf(callee, "object"))) {
      if (ts_node_named_child_count(args) != 1) return;
      auto prefix = stringLiteral(ts_node_named_child(args, 0), ctx.source());
      if (!prefix || !isMajorMinor(*prefix)) return;
      Diagnostic& d = ctx.report(call, "`startswith(\"" + *prefix + "\")` also matches PyTorch " + *prefix + "0 to " + *prefix +
                                           "9; test `\"" + *prefix + ".\"` or compare `torch.__version__`");
      d.help = "From PyTorch 2.10 the minor version has two digits; `torch.__version__` compares as a version.";
      return;
    }
    if (isKind(callee, kind::identifier) && ctx.text(callee) == "str" && isBuiltinCall(ctx.model(), call, "str") &&
        ts_node_named_child_count(args) == 1 && isVersionRef(ctx.model(), ts_node_named_child(args, 0))) {
      TSNode comparison = ts_node_parent(call);
      if (!isKind(comparison, kind::comparison_operator)) return;
      std::string_view op = trimmed(operatorOf(comparison, ctx.source()));
      if (op != "<" && op != "<=" && op != ">" && op != ">=") return;
      TSNode other = otherSide(comparison, call);
      if (ts_node_is_null(other) || !isKind(other, kind::string)) return;
      Diagnostic& d = ctx.report(comparison, "`str(torch.__version__)` compares as text; compare `torch.__version__` itself");
      d.help = "As text, `\"2.10\" < \"2.9\"`; `torch.__version__` compares as a version.";
    }
  }

  static std::string_view operatorOf(TSNode comparison, std::string_view source) {
    if (ts_node_named_child_count(comparison) != 2) return {};
    TSNode left = ts_node_named_child(comparison, 0), right = ts_node_named_child(comparison, 1);
    return source.substr(endOf(left), startOf(right) - endOf(left));
  }
  static TSNode otherSide(TSNode comparison, TSNode side) {
    if (ts_node_named_child_count(comparison) != 2) return {};
    TSNode left = ts_node_named_child(comparison, 0), right = ts_node_named_child(comparison, 1);
    if (analysis::sameNode(left, side)) return right;
    if (analysis::sameNode(right, side)) return left;
    return {};
  }

  // `<expr> >= 1.8` or `<expr> < "1.8"` (expr on the left): `torch.__version__ >= "1.8"`.
  void offerFix(Diagnostic& d, TSNode expr, TSNode version, bool numeric, const Context& ctx) const {
    if (isPlainString(ctx, version)) return;  // its comparisons are textual: no rewrite keeps it
    TSNode comparison = ts_node_parent(expr);
    if (!isKind(comparison, kind::comparison_operator) || ts_node_named_child_count(comparison) != 2 ||
        !analysis::sameNode(ts_node_named_child(comparison, 0), expr))
      return;
    std::string_view op = trimmed(operatorOf(comparison, ctx.source()));
    if (op != ">=" && op != "<") return;
    TSNode other = ts_node_named_child(comparison, 1);
    std::string literal;
    if (numeric) {
      // `1.10` is the number 1.1: only one digit after the point reads as the version it spells.
      if (!isKind(other, kind::float_)) return;
      literal = std::string(ctx.text(other));
      if (literal.find('.') + 2 != literal.size()) return;
    } else {
      auto s = stringLiteral(other, ctx.source());
      if (!s) return;
      literal = *s;
    }
    if (!isMajorMinor(literal)) return;
    // A slice that keeps more than "X.Y" (`[:4]` of "2.10") compares differently: only `[:3]`.
    TSNode subscript = numeric ? ts_node_named_child(argumentList(expr), 0) : expr;
    TSNode index = fieldOf(subscript, "subscript");
    if (!isKind(index, kind::slice) || trimmed(ctx.text(index)) != ":3") return;
    std::string replacement = std::string(ctx.text(version)) + " " + std::string(op) + " \"" + literal + "\"";
    d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, "Replace with `" + replacement + "`",
                          {{startOf(comparison), endOf(comparison), replacement}}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL114, TorchVersionAsNumber)

}  // namespace ptlint::rules
