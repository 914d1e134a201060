"""Nothing run, nothing written that should not be: `ptlint check --fix` over a copy of a small
corpus and an LSP session, traced with `strace -f`. One execve (ptlint itself), no socket, no
connect; write-opens, renames and unlinks only of the files being fixed (and their temporary
siblings) and `.ptlint_cache/`; the LSP session opens nothing for writing at all."""
import glob
import os
import re
import shutil
import subprocess

from hostile_common import check, main
from lsp_client import LspClient

SYSCALLS = "execve,execveat,socket,connect,open,openat,openat2,creat,rename,renameat,renameat2,unlink,unlinkat,link,linkat"
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")


def corpus(dest):
    os.makedirs(dest)
    srcs = sorted(glob.glob("/usr/lib/python3/dist-packages/torch/cuda/amp/*.py"))
    srcs += sorted(glob.glob("/usr/lib/python3/dist-packages/torch/utils/data/*.py"))[:5]
    for i, src in enumerate(srcs):
        shutil.copy(src, os.path.join(dest, f"{i}_{os.path.basename(src)}"))
    with open(os.path.join(dest, "train.py"), "w") as f:
        f.write("import torch\nimport numpy as np\nfrom torch.utils.data import DataLoader\n"
                "scaler = torch.cuda.amp.GradScaler()\nloader = DataLoader(ds, num_workers=4)\n"
                "with torch.cuda.amp.autocast():\n    pass\n")


def parse_trace(path):
    calls = []
    with open(path) as f:
        for line in f:
            m = re.match(r"^\d+\s+(\w+)\((.*)$", line.strip())
            if m and "resumed>" not in line:
                calls.append((m.group(1), m.group(2)))
            elif "<... " in line:
                m = re.match(r"^\d+\s+<\.\.\. (\w+) resumed>(.*)$", line.strip())
                if m:
                    calls.append((m.group(1), m.group(2)))
    return calls


def quoted_paths(args):
    return re.findall(r'"((?:[^"\\]|\\.)*)"', args)


def require_strace():
    if not shutil.which("strace"):
        raise SystemExit("strace is not installed (scripts/setup.sh installs it)")


def test_check_fix(ptlint, tmp):
    require_strace()
    work = os.path.join(tmp, "corpus")
    corpus(work)
    before = {n: open(os.path.join(work, n), "rb").read() for n in os.listdir(work)}
    trace = os.path.join(tmp, "trace")
    proc = subprocess.run(["strace", "-f", "-qq", "-s", "4096", "-e", f"trace={SYSCALLS}", "-o", trace, ptlint, "check",
                           "--fix", "--unsafe-fixes", work], capture_output=True, timeout=120, cwd=tmp)
    check(proc.returncode in (0, 1), f"exit {proc.returncode}: {proc.stderr.decode()[-500:]}")
    calls = parse_trace(trace)
    fixed = {n for n in os.listdir(work) if n in before and open(os.path.join(work, n), "rb").read() != before[n]}
    check(fixed, "nothing was fixed: the trace proves nothing")
    execs = [c for c in calls if c[0].startswith("execve")]
    check(len(execs) == 1, f"{len(execs)} execve calls: {execs}")
    net = [c for c in calls if c[0] in ("socket", "connect")]
    check(not net, f"network calls: {net[:3]}")
    allowed_dirs = (os.path.realpath(work) + "/", os.path.realpath(tmp) + "/.ptlint_cache/",
                    os.path.realpath(work) + "/.ptlint_cache/")
    writes = 0
    for name, args in calls:
        paths = quoted_paths(args)
        if name in ("open", "openat", "openat2", "creat"):
            if name != "creat" and not any(f in args for f in WRITE_FLAGS):
                continue
        elif name not in ("rename", "renameat", "renameat2", "unlink", "unlinkat", "link", "linkat"):
            continue
        for p in paths:
            if p.startswith("/dev/null"):
                continue
            real = os.path.realpath(p if os.path.isabs(p) else os.path.join(tmp, p))
            writes += 1
            ok = real.startswith(allowed_dirs) and (
                "/.ptlint_cache/" in real or os.path.basename(real) in fixed or ".ptlint-" in os.path.basename(real))
            check(ok, f"{name} of {p} outside the fixed files and the cache")
    print(f"     {len(calls)} traced calls, {writes} writes, {len(fixed)} files fixed, 1 execve, no socket")


def test_lsp_session(ptlint, tmp):
    require_strace()
    work = os.path.join(tmp, "corpus")
    corpus(work)
    trace = os.path.join(tmp, "trace")
    client = LspClient(["strace", "-f", "-qq", "-s", "4096", "-e", f"trace={SYSCALLS}", "-o", trace, ptlint, "--lsp"])
    client.initialize(root=work)
    for name in sorted(os.listdir(work))[:4]:
        uri = "file://" + os.path.join(work, name)
        client.open(uri, open(os.path.join(work, name)).read())
        client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}, "context": {"diagnostics": [], "only": ["source.fixAll.ptlint"]}})
    client.request("workspace/diagnostic", {"previousResultIds": []})
    code = client.shutdown()
    check(code == 0, f"exit code {code} after shutdown + exit")
    calls = parse_trace(trace)
    execs = [c for c in calls if c[0].startswith("execve")]
    check(len(execs) == 1, f"{len(execs)} execve calls")
    check(not [c for c in calls if c[0] in ("socket", "connect")], "network calls")
    writes = [c for c in calls if c[0] in ("creat", "rename", "renameat", "renameat2", "unlink", "unlinkat", "link", "linkat")
              or (c[0].startswith("open") and any(f in c[1] for f in WRITE_FLAGS))]
    writes = [c for c in writes if "/dev/null" not in c[1]]
    check(not writes, f"the LSP server wrote: {writes[:3]}")
    print(f"     LSP: {len(calls)} traced calls, no write, 1 execve, no socket")


if __name__ == "__main__":
    main({"check_fix": test_check_fix, "lsp_session": test_lsp_session})
