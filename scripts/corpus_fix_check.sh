#!/usr/bin/env bash
# Whole-corpus fix check: `ptlint check --fix --unsafe-fixes --select=ALL` over copies of Debian's
# torch, torchvision, torchaudio and skorch sources, of the fixture projects (tests/projects/*, with
# their pyproject.toml) and of the single-file rule fixtures (tests/fixtures/<area>/*.py, grouped under a
# pyproject.toml that sets the `torch-version` / `compile-decorators` of their `# ptlint-test:`
# header), and their CRLF and BOM variants. Files that do not parse before the fix (PTL000
# fixtures) are checked for crashes and convergence only. Fails on:
#  - a syntax error a fix introduced (tree-sitter: `--select=PTL000`; CPython: `ast.parse`),
#  - a file left at the fix pass cap or a reverted fix (ptlint prints a warning naming it),
#  - a second `--fix` run that still changes something,
#  - an undefined name a fix introduced (pyflakes, when a Python with it is found: `PYFLAKES_PYTHON`,
#    default /usr/bin/python3),
#  - a changed line that no reported fix edit (or finding without a fix yet: a later pass may
#    fix it) covers (pure insertions excepted), a changed
#    line ending or BOM,
#  - an import a fix added above the file's first statement or leading comment block (shebang,
#    encoding, licence), its docstring or its `from __future__` imports,
#  - an import a fix added at module level of a package the file imported only inside a
#    function, a `try` or another block (it may be optional there; torch is not optional where
#    functorch, torchvision, torchaudio or torchtext is imported at module level),
#  - a `--diff` that shows more changed lines than the fix changed (a real line diff).
# Usage: scripts/corpus_fix_check.sh [PTLINT] [PACKAGE...]   (env SAMPLE=N: every Nth package file
# only; FIXTURES=0: skip the fixture corpora)
set -euo pipefail
PTLINT=$(realpath "${1:-build/ptlint}")
shift || true
PACKAGES=("${@:-torch torchvision torchaudio skorch}")
read -r -a PACKAGES <<<"${PACKAGES[*]}"
SITE=/usr/lib/python3/dist-packages
TESTS=$(realpath "$(dirname "$0")/../tests")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ptlint-corpus-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
exec python3 - "$PTLINT" "$WORK" "$SITE" "${SAMPLE:-1}" "$TESTS" "${FIXTURES:-1}" "${PACKAGES[@]}" <<'PYEOF'
import ast, difflib, glob, json, os, re, shutil, subprocess, sys, time, warnings

ptlint, work, site, sample = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
tests, with_fixtures = sys.argv[5], sys.argv[6] != "0"
packages = sys.argv[7:]
warnings.simplefilter("ignore")  # SyntaxWarning from invalid escapes in real sources
VARIANTS = {
    "lf": lambda b: b,
    "crlf": lambda b: b.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"),
    "bom": lambda b: b"\xef\xbb\xbf" + b,
}
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL", msg, flush=True)


def ptlint_run(args, **kw):
    p = subprocess.run([ptlint] + args, capture_output=True, **kw)
    if p.returncode not in (0, 1):
        fail(f"ptlint {' '.join(args[:4])}... exit {p.returncode}: {p.stderr.decode(errors='replace')[-800:]}")
    return p


def ast_ok(data):
    try:
        ast.parse(data)
        return True
    except (SyntaxError, ValueError):
        return False


PYFLAKES_PYTHON = os.environ.get("PYFLAKES_PYTHON", "/usr/bin/python3")
HAVE_PYFLAKES = subprocess.run([PYFLAKES_PYTHON, "-c", "import pyflakes"], capture_output=True).returncode == 0
if not HAVE_PYFLAKES:
    print(f"note: no pyflakes for {PYFLAKES_PYTHON}: undefined names are not checked", flush=True)


def undefined_names(data):
    """The `undefined name 'x'` messages pyflakes gives for a file's content (without line numbers)."""
    p = subprocess.run([PYFLAKES_PYTHON, "-m", "pyflakes"], input=data, capture_output=True)
    return {line.split(": ", 1)[-1] for line in p.stdout.decode(errors="replace").splitlines()
            if "undefined name" in line}


def import_roots(tree):
    """Packages imported at module level outside any block, and those imported anywhere else."""
    top, nested = set(), set()
    top_nodes = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module.split(".")[0]]
        else:
            continue
        (top if id(node) in top_nodes else nested).update(names)
    # A package that cannot be imported without torch makes torch no longer optional.
    if top & {"functorch", "torchvision", "torchaudio", "torchtext"}:
        top.add("torch")
    return top, nested


def header_end(tree, lines):
    """The last line (1-based) of the leading comment block, the docstring and __future__ imports."""
    end = 0
    while end < len(lines) and lines[end].lstrip().startswith(b"#"):
        end += 1
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            end = max(end, node.end_lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "__future__":
            end = max(end, node.end_lineno)
        else:
            break
    return end


def check_added_imports(f, old, new):
    try:
        old_tree, new_tree = ast.parse(old), ast.parse(new)
    except (SyntaxError, ValueError):
        return
    old_lines, new_lines = old.splitlines(True), new.splitlines(True)
    added = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if tag in ("insert", "replace"):
            added.update(range(j1 + 1, j2 + 1))
    top, nested = import_roots(old_tree)
    limit = header_end(new_tree, new_lines)
    for node in new_tree.body:
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.lineno not in added:
            continue
        if node.lineno <= limit:
            fail(f"lf: an import added above the first statement or comment block at line {node.lineno} of {f}")
        roots = [a.name.split(".")[0] for a in node.names] if isinstance(node, ast.Import) else \
            [(node.module or "").split(".")[0]]
        for root in roots:
            if root in nested and root not in top:
                fail(f"lf: a module-level import of {root}, imported only in a block, added at line {node.lineno} of {f}")


def diff_changed_lines(text):
    """Per file of a `--diff` output: the number of '-' and '+' lines of its hunks."""
    out, current = {}, None
    for line in text.splitlines():
        if line.startswith("--- "):
            current = os.path.realpath(line[4:].strip())
            out.setdefault(current, 0)
        elif line.startswith("+++ ") or line.startswith("@@"):
            continue
        elif current is not None and line[:1] in ("-", "+"):
            out[current] += 1
    return out


def syntax_errors(root):
    p = ptlint_run(["check", "--no-cache", "--exit-zero", "--select=PTL000", "--output-format", "json", root])
    return {d["filename"] for d in json.loads(p.stdout or b"[]")}


def snapshot(root):
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if not f.endswith((".py", ".pyi")):
                continue  # a fixture project's pyproject.toml
            p = os.path.join(dirpath, f)
            with open(p, "rb") as h:
                out[p] = h.read()
    return out


def package_corpus(pkg):
    """(relative path, content) of a Debian package's Python files (every `sample`th)."""
    src_root = os.path.join(site, pkg)
    sources = []
    for dirpath, _, files in os.walk(src_root):
        for f in sorted(files):
            if f.endswith((".py", ".pyi")):
                sources.append(os.path.join(dirpath, f))
    for s in sorted(sources)[::sample]:
        with open(s, "rb") as h:
            yield os.path.relpath(s, src_root), h.read()


def projects_corpus():
    """Every file of tests/projects/*, configuration included."""
    src_root = os.path.join(tests, "projects")
    for dirpath, _, files in sorted(os.walk(src_root)):
        for f in sorted(files):
            with open(os.path.join(dirpath, f), "rb") as h:
                yield os.path.relpath(os.path.join(dirpath, f), src_root), h.read()


def toml_str(s):
    return json.dumps(s)  # a JSON string is a TOML basic string


def fixtures_corpus():
    """tests/fixtures/**/*.py, one folder per header setting the fixture harness honours beside
    `select` and `unsafe-fixes` (every rule runs here, with unsafe fixes), with its pyproject.toml."""
    src_root = os.path.join(tests, "fixtures")
    groups = {}
    paths = sorted(glob.glob(os.path.join(src_root, "*.py")) + glob.glob(os.path.join(src_root, "*", "*.py")),
                   key=os.path.basename)
    for path in paths:
        f = os.path.basename(path)
        with open(path, "rb") as h:
            data = h.read()
        m = re.search(rb"# ptlint-test:([^\r\n]*)", data)
        opts = m.group(1).decode().split() if m else []
        key = tuple(sorted(o for o in opts if o.startswith(("torch-version=", "compile-decorators="))))
        groups.setdefault(key, []).append((f, data))
    for i, (key, files) in enumerate(sorted(groups.items())):
        folder = f"g{i:02}"
        if key:
            conf = ["[tool.ptlint]"]
            for o in key:
                name, value = o.split("=", 1)
                conf.append(f"{name} = " + (toml_str(value) if name == "torch-version"
                                            else "[" + ", ".join(map(toml_str, value.split(","))) + "]"))
            yield f"{folder}/pyproject.toml", ("\n".join(conf) + "\n").encode()
        for f, data in files:
            yield f"{folder}/{f}", data


corpora = [(pkg, lambda pkg=pkg: package_corpus(pkg)) for pkg in packages]
if with_fixtures:
    corpora += [("projects", projects_corpus), ("fixtures", fixtures_corpus)]
total = {"files": 0, "changed": 0, "seconds": 0.0, "edits": 0}
summary = []
for pkg, corpus in corpora:
    contents = list(corpus())
    corpus_files = corpus_changed = 0
    corpus_failures = len(failures)
    for variant, transform in VARIANTS.items():
        root = os.path.join(work, variant, pkg)
        for rel, data in contents:
            dest = os.path.join(root, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as h:
                h.write(transform(data) if rel.endswith((".py", ".pyi")) else data)
        before = snapshot(root)
        ts_before = syntax_errors(root)
        # The edits on offer, to check that nothing outside them changes.
        p = ptlint_run(["check", "--no-cache", "--exit-zero", "--select=ALL", "--unsafe-fixes", "--output-format",
                        "json", root])
        # A finding without a fix yet may get one in a later pass, once another fix landed (a
        # `training=` added, an import added): its lines count as covered too.
        fix_rows = {}
        for d in json.loads(p.stdout or b"[]"):
            if not d.get("fix") and d.get("location") and d.get("end_location"):
                fix_rows.setdefault(os.path.realpath(d["filename"]), set()).update(
                    range(d["location"]["row"], d["end_location"]["row"] + 1))
            for e in (d.get("fix") or {}).get("edits", []):
                fix_rows.setdefault(os.path.realpath(d["filename"]), set()).update(
                    range(e["location"]["row"], e["end_location"]["row"] + 1))
                total["edits"] += 1
        shown = {}
        if variant == "lf":
            p = ptlint_run(["check", "--no-cache", "--exit-zero", "--select=ALL", "--unsafe-fixes", "--diff", root], cwd=root)
            shown = {os.path.realpath(os.path.join(root, k)) if not os.path.isabs(k) else k: v
                     for k, v in diff_changed_lines(p.stdout.decode(errors="replace")).items()}
        t0 = time.monotonic()
        p = ptlint_run(["check", "--no-cache", "--exit-zero", "--select=ALL", "--fix", "--unsafe-fixes", root])
        total["seconds"] += time.monotonic() - t0
        for line in p.stderr.decode(errors="replace").splitlines():
            if line.startswith("warning:") and ("converge" in line or "syntax error" in line):
                fail(f"{variant}: {line}")
        after = snapshot(root)
        ts_after = syntax_errors(root)
        for f in sorted(ts_after - ts_before):
            fail(f"{variant}: tree-sitter syntax error introduced in {f}")
        changed = [f for f in before if after.get(f) != before[f]]
        total["files"] += len(before)
        total["changed"] += len(changed)
        for f in changed:
            old, new = before[f], after[f]
            if ast_ok(old) and not ast_ok(new):
                fail(f"{variant}: ast.parse fails after the fix: {f}")
            elif HAVE_PYFLAKES and variant == "lf":
                for name in sorted(undefined_names(new) - undefined_names(old)):
                    fail(f"{variant}: the fix introduced {name} in {f}")
            if old.startswith(b"\xef\xbb\xbf") != new.startswith(b"\xef\xbb\xbf"):
                fail(f"{variant}: BOM changed: {f}")
            if variant == "crlf" and new.count(b"\n") != new.count(b"\r\n"):
                fail(f"{variant}: a bare LF in a CRLF file: {f}")
            if variant != "crlf" and b"\r" in new and b"\r" not in old:
                fail(f"{variant}: a CR in an LF file: {f}")
            if variant == "lf":
                check_added_imports(f, old, new)
                minimal = sum(max(i2 - i1, 0) + max(j2 - j1, 0) for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
                    None, old.splitlines(True), new.splitlines(True), autojunk=False).get_opcodes() if tag != "equal")
                if shown.get(os.path.realpath(f), 0) > minimal:
                    fail(f"lf: --diff shows {shown[os.path.realpath(f)]} changed lines where the fix changed {minimal}: {f}")
            rows = fix_rows.get(os.path.realpath(f), set())
            old_lines, new_lines = old.splitlines(True), new.splitlines(True)
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
                if tag in ("replace", "delete") and not any(r in rows for r in range(i1 + 1, i2 + 1)):
                    fail(f"{variant}: lines {i1 + 1}-{i2} of {f} changed outside every reported edit")
                    break
        # A second run is a no-op.
        ptlint_run(["check", "--no-cache", "--exit-zero", "--select=ALL", "--fix", "--unsafe-fixes", root])
        again = snapshot(root)
        for f in again:
            if again[f] != after.get(f):
                fail(f"{variant}: the second --fix run changed {f}")
        corpus_files += len(before)
        corpus_changed += len(changed)
        print(f"{pkg:12} {variant:5} files={len(before):5} changed={len(changed):4} "
              f"syntax-errors(before)={len(ts_before)}", flush=True)
    summary.append(f"{pkg:12} files={corpus_files:5} changed={corpus_changed:4} failures={len(failures) - corpus_failures}")
print("per corpus (all variants):")
for line in summary:
    print("  " + line)
print(f"total: {total['files']} files, {total['changed']} changed, {total['edits']} first-pass edits, "
      f"fix time {total['seconds']:.1f}s, {len(failures)} failures")
sys.exit(1 if failures else 0)
PYEOF
