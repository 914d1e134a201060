"""Hostile file contents: deep nesting, huge lines, many lines, NUL bytes, invalid UTF-8, a
latin-1 coding cookie, files over the size limit (and standard input over it), CRLF / lone CR /
BOM variants of real files, a pyproject.toml nested 50,000 deep, more threads than may be started.
Each must lint without a crash in bounded time and memory, and `--fix` must write nothing to a
file it cannot handle (mtime and bytes unchanged)."""
import ast
import glob
import json
import os
import time

import resource
import subprocess

from lsp_client import LspClient
from walk_test import sanitized
from hostile_common import (AMP, AMP_FIXED, Failure, check, hand_over, limit_memory, main, read, run_ptlint,
                            run_unprivileged, snapshot, unprivileged_prefix, write)

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


def test_out_of_memory(ptlint, tmp):
    # A file whose tree does not fit the address space left: an error naming it (exit 2), never an
    # abort, and the other files still reported.
    if sanitized(ptlint):
        print("     sanitizer build: address-space limit not applied")
        return
    lines = [b"import torch"] + [b"x%d = torch.cuda.amp.autocast(enabled=(%d + %d) * [%d, %d])" % (i, i, i, i, i)
                                 for i in range(180000)]
    big = write(os.path.join(tmp, "big.py"), b"\n".join(lines) + b"\n", mode="wb")
    small = write(os.path.join(tmp, "small.py"), AMP)
    limit = os.path.getsize(ptlint) + (160 << 20)  # the binary maps, then a little: the big tree fails

    def budget():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    env = dict(os.environ, MALLOC_ARENA_MAX="1")
    for args in (["--no-cache", "-j", "1"], ["--no-cache", "-j", "2"]):
        proc = subprocess.run([ptlint, "check", *args, "--output-format", "json", small, big], capture_output=True,
                              timeout=120, preexec_fn=budget, env=env)
        err = proc.stderr.decode(errors="replace")
        check(proc.returncode == 2, f"exit {proc.returncode} under {limit >> 20} MB ({args}): {err[-800:]}")
        check("big.py" in err and "out of memory" in err, f"no error naming big.py: {err[-800:]}")
        files = {os.path.basename(d["filename"]) for d in json.loads(proc.stdout)}
        check("small.py" in files, f"small.py not reported beside it: {sorted(files)}")
    # The same file in the language server: the request for its diagnostics fails, the server
    # goes on and answers for the small file.
    lsp = LspClient([ptlint, "--lsp"], preexec_fn=budget, env=env)
    try:
        lsp.initialize(tmp)
        with open(big) as f:
            lsp.open("file://" + big, f.read())
        r = lsp.request("textDocument/diagnostic", {"textDocument": {"uri": "file://" + big}})
        check("error" in r and "out of memory" in r["error"]["message"], f"big.py in the server: {str(r)[:300]}")
        lsp.open("file://" + small, read(small).decode())
        r = lsp.request("textDocument/diagnostic", {"textDocument": {"uri": "file://" + small}})
        codes = [d.get("code") for d in r.get("result", {}).get("items", [])]
        check("PTL101" in codes, f"small.py in the server after big.py: {str(r)[:300]}")
        check(lsp.shutdown() == 0, "the server did not exit cleanly")
    finally:
        if lsp.proc.poll() is None:
            lsp.proc.kill()


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


def test_stdin_too_large(ptlint, tmp):
    # The same limit as files: refused quickly, in bounded memory; --fix passes the text through.
    line = AMP + "#" * 100 + "\n"
    big = line * ((20 << 20) // len(line))
    check(len(big) > 16 << 20, "the input is not over the limit")
    for args in (["check", "--no-cache", "--stdin-filename", "big.py", "-"],
                 ["check", "--no-cache", "--fix", "--stdin-filename", "big.py", "-"]):
        start = time.monotonic()
        proc = run_ptlint(ptlint, args, stdin=big.encode(), cwd=tmp, timeout=60)
        elapsed = time.monotonic() - start
        err = proc.stderr.decode(errors="replace")
        check(proc.returncode == 2, f"{args}: exit {proc.returncode}, expected 2: {err[-300:]}")
        check("big.py" in err and "too large" in err, f"no message naming the input and the limit: {err[-300:]}")
        check(elapsed < 10, f"took {elapsed:.1f}s to refuse")
        if "--fix" in args:
            check(proc.stdout == big.encode(), "--fix on refused standard input did not give the text back unchanged")
        else:
            check(b"All checks passed" not in proc.stdout, "said 'All checks passed!'")


def deep_toml_check(ptlint, tmp, name, text, lsp=True):
    work = os.path.join(tmp, name)
    write(os.path.join(work, "pkg", "a.py"), AMP)
    write(os.path.join(work, "pyproject.toml"), text)
    # Found by the walk itself (no --config), from inside and from above the folder.
    for args, cwd in ((["check", "--no-cache", "."], work), (["check", "--no-cache", work], tmp),
                      (["check", "--no-cache", "--config", os.path.join(work, "pyproject.toml"), "pkg"], work)):
        proc = run_ptlint(ptlint, args, cwd=cwd, timeout=60)
        err = proc.stderr.decode(errors="replace")
        check(proc.returncode == 2, f"{name}: exit {proc.returncode}, expected 2: {err[-300:]}")
        check("pyproject.toml:1:" in err and "nested more than" in err, f"{name}: no message naming the file: {err[-300:]}")
    if not lsp:
        return
    # The language server reads the same file when a document of that folder opens: it answers on.
    client = LspClient([ptlint, "--lsp"])
    client.initialize(root=work)
    client.open("file://" + os.path.join(work, "pkg", "a.py"), AMP)
    rid = client.request("textDocument/hover", {"textDocument": {"uri": "file://" + os.path.join(work, "pkg", "a.py")},
                                                "position": {"line": 1, "character": 20}}, wait=False)
    client.response(rid, timeout=30)
    code = client.shutdown()
    check(code == 0, f"{name}: the language server exited with {code}")


def test_toml_deep_headers(ptlint, tmp):
    deep_toml_check(ptlint, tmp, "header", "[tool.other" + ".a" * 50000 + "]\nx = 1\n")
    deep_toml_check(ptlint, tmp, "arrays_of_tables", "[[tool.other" + ".a" * 50000 + "]]\nx = 1\n")


def test_toml_deep_dotted_keys(ptlint, tmp):
    deep_toml_check(ptlint, tmp, "dotted", "a" + ".a" * 60000 + " = 1\n")
    deep_toml_check(ptlint, tmp, "inline", "x = " + "{a = " * 60000 + "1" + "}" * 60000 + "\n")
    # Depth that real files have, dots inside strings and comments: read as usual.
    work = os.path.join(tmp, "fine")
    write(os.path.join(work, "a.py"), AMP)
    write(os.path.join(work, "pyproject.toml"),
          '[tool.other."a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z" . k1.k2]\n'
          'v = "' + "." * 500 + '"  # ' + "." * 500 + '\n'
          "[tool.ptlint]\nignore = [\"PTL101\"]\n")
    proc = run_ptlint(ptlint, ["check", "--no-cache", "."], cwd=work)
    check(proc.returncode == 0, f"a normal pyproject.toml was refused: {proc.stderr.decode(errors='replace')}")


def test_thread_limit(ptlint, tmp):
    work = os.path.join(tmp, "many")
    for i in range(400):
        write(os.path.join(work, f"m{i:03}.py"), AMP)
    # Address space for ~400 thread stacks at most, and (unprivileged) at most 50 processes.
    def small_limits():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31))
        resource.setrlimit(resource.RLIMIT_NPROC, (50, 50))
    hand_over(tmp)
    for prefix in ([], unprivileged_prefix()):
        proc = subprocess.run(prefix + [ptlint, "check", "--no-cache", "-j", "10000", "--output-format", "json", work],
                              capture_output=True, timeout=120, preexec_fn=small_limits)
        err = proc.stderr.decode(errors="replace")
        check(proc.returncode == 1, f"exit {proc.returncode} with -j 10000 under limits: {err[-500:]}")
        check(len(json.loads(proc.stdout)) == 400, "not every file was linted")
        if not prefix:
            break
    check("threads" in err, f"no warning about the threads that could not start: {err[-300:]}")


def test_lone_cr(ptlint, tmp):
    # Python ends lines at a lone "\r" too: rows as Python counts them, no PTL000, fixes kept CR.
    body = ("import torch\n\nscaler = 1\nwith torch.cuda.amp.autocast():\n    pass\n").replace("\n", "\r")
    path = write(os.path.join(tmp, "cr.py"), body.encode(), mode="wb")
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--select=ALL", "--output-format", "json", path])
    got = [(d["code"], d["location"]["row"], d["location"]["column"]) for d in json.loads(proc.stdout)]
    check(got == [("PTL101", 4, 6)], f"findings on a lone-CR file: {got}")
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--fix", path])
    check(proc.returncode == 0, f"--fix exit {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    check(read(path) == body.replace("torch.cuda.amp.autocast()", 'torch.amp.autocast("cuda")').encode(),
          f"fixed lone-CR file: {read(path)!r}")
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--select=ALL", "--fix", "--stdin-filename", "cr.py", "-"],
                      stdin=body.encode())
    check(proc.stdout == read(path), f"--fix on standard input: {proc.stdout!r}")
    # Mixed lone CR and LF: reported on the right rows, never rewritten with the wrong endings.
    mixed = b"import torch\r\rwith torch.cuda.amp.autocast():\n    pass\n"
    path = write(os.path.join(tmp, "mixed.py"), mixed, mode="wb")
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--select=ALL", "--fix", "--output-format", "json", path])
    got = [(d["code"], d["location"]["row"]) for d in json.loads(proc.stdout)]
    check(got == [("PTL101", 3)] and read(path) == mixed, f"mixed endings: {got}, {read(path)!r}")


if __name__ == "__main__":
    main({f.__name__[5:]: f for f in [test_stdin_too_large, test_toml_deep_headers, test_toml_deep_dotted_keys,
                                       test_thread_limit, test_lone_cr, test_deep_nesting, test_deep_torch_calls, test_huge_line, test_many_lines, test_nul_bytes,
                                       test_invalid_utf8, test_latin1_cookie, test_too_large,
                                       test_line_ending_variants, test_out_of_memory]})
