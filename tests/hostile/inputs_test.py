"""Hostile file contents: deep nesting, huge lines, many lines, NUL bytes, invalid UTF-8, a
latin-1 coding cookie, files over the size limit, CRLF / lone CR / BOM variants of real files.
Each must lint without a crash in bounded time and memory, and `--fix` must write nothing to a
file it cannot handle (mtime and bytes unchanged)."""
import ast
import glob
import json
import os
import time

from hostile_common import Failure, check, main, run_ptlint, snapshot

DEPTHS = (100, 1000, 10000, 100000)


def nested(kind, d):
    if kind == "brackets":
        return "x = " + "[" * d + "]" * d + "\n"
    if kind == "parens":
        return "x = " + "(" * d + "1" + ")" * d + "\n"
    if kind == "calls":
        return "x = " + "f(" * d + ")" * d + "\n"
    if kind == "torch_calls":
        return "import torch\nx = " + "torch.cuda.amp.autocast(" * d + ")" * d + "\n"
    if kind == "not":
        return "x = " + "not " * d + "y\n"
    if kind == "attributes":
        return "import torch\nx = torch" + ".cuda" * d + ".amp.autocast()\n"
    if kind == "plus":
        return "x = " + " + ".join(["a"] * d) + "\n"
    if kind == "subscripts":
        return "x = a" + "[0]" * d + "\n"
    if kind == "lambdas":
        return "f = " + "lambda: " * d + "0\n"
    if kind == "dicts":
        return "x = " + "{1: " * d + "2" + "}" * d + "\n"
    raise ValueError(kind)


def lint_and_fix(ptlint, path, timeout):
    """Lints with every rule, then fixes; a file that was rejected or that ends up unparsable
    must be byte-identical afterwards."""
    before = snapshot(path)
    start = time.monotonic()
    run_ptlint(ptlint, ["check", "--no-cache", "--select=ALL", "--output-format", "json", path], timeout=timeout)
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--select=ALL", "--fix", "--unsafe-fixes", "--output-format",
                               "json", path], timeout=timeout)
    elapsed = time.monotonic() - start
    after = snapshot(path)
    if after != before:
        with open(path, "rb") as f:
            text = f.read()
        check(after[2] != before[2], f"{path}: rewritten with identical bytes")
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            # Python's own parser gives up on deep nesting; tree-sitter must then agree it parses.
            pass
        sel = run_ptlint(ptlint, ["check", "--no-cache", "--select=PTL000", "--output-format", "json", path])
        check(sel.returncode == 0, f"{path}: --fix introduced a syntax error")
    return proc, elapsed


def test_deep_nesting(ptlint, tmp):
    worst = 0.0
    for kind in ("brackets", "parens", "calls", "not", "attributes", "plus", "subscripts", "lambdas", "dicts"):
        for d in DEPTHS:
            path = os.path.join(tmp, f"{kind}_{d}.py")
            with open(path, "w") as f:
                f.write(nested(kind, d))
            _, elapsed = lint_and_fix(ptlint, path, timeout=60)
            worst = max(worst, elapsed)
    print(f"     deep nesting: {9 * len(DEPTHS)} files, slowest lint+fix {worst:.2f}s")


def test_deep_torch_calls(ptlint, tmp):
    """Nested calls that every one of them is a finding with a fix: rules must not be
    quadratic in the depth."""
    for d in DEPTHS:
        path = os.path.join(tmp, f"torch_calls_{d}.py")
        with open(path, "w") as f:
            f.write(nested("torch_calls", d))
        _, elapsed = lint_and_fix(ptlint, path, timeout=60)
        print(f"     {d} nested autocast calls: {elapsed:.2f}s")


def test_huge_line(ptlint, tmp):
    path = os.path.join(tmp, "line.py")
    with open(path, "w") as f:
        f.write("import torch\nx = torch.cuda.amp.autocast(); y = '" + "a" * (10 << 20) + "'\n")
    _, elapsed = lint_and_fix(ptlint, path, timeout=120)
    print(f"     10 MB line: {elapsed:.2f}s")


def test_many_lines(ptlint, tmp):
    path = os.path.join(tmp, "lines.py")
    with open(path, "w") as f:
        f.write("import torch\n" + ("x = torch.cuda.amp.GradScaler()\n" + "y = 1\n" * 99) * 1000)
    proc, elapsed = lint_and_fix(ptlint, path, timeout=120)
    with open(path) as f:
        text = f.read()
    check("torch.cuda.amp.GradScaler" not in text, "100,000-line file was not fixed")
    check(text.count("\n") == 100001, "line count changed")
    print(f"     100,000 lines: {elapsed:.2f}s")


def test_nul_bytes(ptlint, tmp):
    for i, body in enumerate([b"import torch\x00\nx = torch.cuda.amp.autocast()\n", b"\x00" * 1000,
                              b"x = '\x00'\nimport torch\nwith torch.cuda.amp.autocast():\n    pass\n"]):
        path = os.path.join(tmp, f"nul{i}.py")
        with open(path, "wb") as f:
            f.write(body)
        lint_and_fix(ptlint, path, timeout=30)


def unhandled(ptlint, tmp, name, body, expect):
    """A file ptlint must refuse: exit 2, one message naming the file and `expect`, no write."""
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(body)
    before = snapshot(path)
    for extra in ([], ["--fix", "--unsafe-fixes"]):
        proc = run_ptlint(ptlint, ["check", "--no-cache", "--select=ALL"] + extra + [path], timeout=60)
        err = proc.stderr.decode(errors="replace")
        check(proc.returncode == 2, f"{name}: exit {proc.returncode}, expected 2")
        lines = [l for l in err.splitlines() if name in l]
        check(len(lines) == 1 and expect in lines[0], f"{name}: expected one message with {expect!r}, got {err!r}")
        check(snapshot(path) == before, f"{name}: --fix wrote to a file it cannot handle")


def test_invalid_utf8(ptlint, tmp):
    unhandled(ptlint, tmp, "bad.py", b"import torch\nx = '\xff\xfe'\nwith torch.cuda.amp.autocast():\n    pass\n", "UTF-8")
    unhandled(ptlint, tmp, "surrogate.py", b"x = '\xed\xa0\x80'\nimport torch\ntorch.cuda.amp.autocast()\n", "UTF-8")


def test_latin1_cookie(ptlint, tmp):
    unhandled(ptlint, tmp, "latin.py",
              b"# -*- coding: latin-1 -*-\nimport torch\nname = 'caf\xe9'\nwith torch.cuda.amp.autocast():\n    pass\n",
              "UTF-8")


def test_too_large(ptlint, tmp):
    unhandled(ptlint, tmp, "big.py", b"import torch\ntorch.cuda.amp.autocast()\n" + b"#" * (17 << 20) + b"\n",
              "too large")


def real_files():
    files = sorted(glob.glob("/usr/lib/python3/dist-packages/torch/cuda/amp/*.py"))
    files += sorted(glob.glob("/usr/lib/python3/dist-packages/torch/utils/data/*.py"))[:6]
    files += sorted(glob.glob("/usr/lib/python3/dist-packages/torch/amp/*.py"))
    return [f for f in files if os.path.getsize(f) < 200_000]


def test_line_ending_variants(ptlint, tmp):
    files = real_files()
    if not files:
        print("     skipped: no Debian torch sources in /usr/lib/python3/dist-packages")
        return
    made = 0
    for src in files:
        with open(src, "rb") as f:
            base = f.read().replace(b"\r\n", b"\n")
        base += b"\nimport torch\nwith torch.cuda.amp.autocast():\n    pass\n"
        for tag, body in (("crlf", base.replace(b"\n", b"\r\n")), ("cr", base.replace(b"\n", b"\r")),
                          ("bom", b"\xef\xbb\xbf" + base), ("bomcrlf", b"\xef\xbb\xbf" + base.replace(b"\n", b"\r\n")),
                          ("mixed", base.replace(b"\n", b"\r\n", 5))):
            path = os.path.join(tmp, f"{tag}_{made}_{os.path.basename(src)}")
            with open(path, "wb") as f:
                f.write(body)
            made += 1
            lint_and_fix(ptlint, path, timeout=60)
            with open(path, "rb") as f:
                after = f.read()
            check(after.startswith(b"\xef\xbb\xbf") == body.startswith(b"\xef\xbb\xbf"), f"{path}: BOM changed")
            if tag in ("crlf", "bomcrlf"):
                check(after.count(b"\n") == after.count(b"\r\n"), f"{path}: CRLF file got a bare LF")
            if tag == "cr":
                check(b"\n" not in after or after == body, f"{path}: CR-only file got a LF")
    print(f"     {made} line-ending/BOM variants of {len(files)} real files")


if __name__ == "__main__":
    main({f.__name__[5:]: f for f in [test_deep_nesting, test_deep_torch_calls, test_huge_line, test_many_lines, test_nul_bytes,
                                       test_invalid_utf8, test_latin1_cookie, test_too_large,
                                       test_line_ending_variants]})
