"""Shared helpers for the hostile-input tests: run the built `ptlint` under a time and memory
bound, and snapshot files so that "nothing was written" can be checked byte for byte."""
import os
import resource
import signal
import subprocess
import sys
import tempfile

MEMORY_LIMIT = 4 << 30  # address space: ASan-free builds stay far below this


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_ptlint(ptlint, args, timeout=60, stdin=None, cwd=None):
    """Runs ptlint; fails on a signal, a timeout or an exit code outside 0-2."""
    try:
        proc = subprocess.run([ptlint] + args, input=stdin, capture_output=True, timeout=timeout, cwd=cwd,
                              preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        raise Failure(f"timed out after {timeout}s: ptlint {' '.join(args)[:200]}")
    check(proc.returncode >= 0, f"killed by signal {-proc.returncode}: ptlint {' '.join(args)[:200]}\n"
                                f"{proc.stderr.decode(errors='replace')[-2000:]}")
    check(proc.returncode in (0, 1, 2), f"exit code {proc.returncode}: ptlint {' '.join(args)[:200]}\n"
                                        f"{proc.stderr.decode(errors='replace')[-2000:]}")
    return proc


def snapshot(path):
    st = os.stat(path)
    with open(path, "rb") as f:
        return (st.st_mtime_ns, st.st_ino, f.read())


def main(tests):
    """`script.py PTLINT TEST`: runs one test function by name (or all)."""
    ptlint = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or list(tests)
    failed = 0
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"ptlint-hostile-{name}-") as tmp:
            try:
                tests[name](ptlint, tmp)
                print(f"ok   {name}")
            except Failure as e:
                failed += 1
                print(f"FAIL {name}: {e}")
    sys.exit(1 if failed else 0)


# Permission cases: run ptlint as an unprivileged user. As root that is `nobody` (through
# setpriv, which changes nothing else); as anyone else, the current user already is one.
def unprivileged_prefix():
    if os.geteuid() != 0:
        return []
    import pwd
    import shutil
    check(shutil.which("setpriv") is not None, "running as root without setpriv: cannot drop privileges")
    nobody = pwd.getpwnam("nobody")
    return ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]


def hand_over(tmp):
    """Makes `tmp` (and everything in it) belong to the unprivileged user, and every folder above
    it searchable; fails when a folder above cannot be searched by others."""
    if os.geteuid() != 0:
        return
    import pwd
    nobody = pwd.getpwnam("nobody")
    for dirpath, dirnames, filenames in os.walk(tmp):
        for name in [dirpath] + [os.path.join(dirpath, f) for f in filenames + dirnames]:
            os.lchown(name, nobody.pw_uid, nobody.pw_gid)
    os.chmod(tmp, 0o755)
    path = os.path.dirname(os.path.abspath(tmp))
    while path != "/":
        check(os.stat(path).st_mode & 0o001, f"{path} is not searchable by others: cannot test as nobody")
        path = os.path.dirname(path)


def run_unprivileged(ptlint, args, timeout=60, stdin=None, cwd=None):
    """run_ptlint as the unprivileged user; the same checks (no signal, no timeout, exit 0-2)."""
    prefix = unprivileged_prefix()
    if not prefix:
        return run_ptlint(ptlint, args, timeout=timeout, stdin=stdin, cwd=cwd)
    try:
        proc = subprocess.run(prefix + [ptlint] + args, input=stdin, capture_output=True, timeout=timeout, cwd=cwd,
                              preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        raise Failure(f"timed out after {timeout}s: ptlint {' '.join(args)[:200]}")
    check(proc.returncode in (0, 1, 2), f"exit code {proc.returncode} (as nobody): ptlint {' '.join(args)[:200]}\n"
                                        f"{proc.stderr.decode(errors='replace')[-2000:]}")
    return proc


AMP = "import torch\nwith torch.cuda.amp.autocast():\n    pass\n"
AMP_FIXED = 'import torch\nwith torch.amp.autocast("cuda"):\n    pass\n'


def write(path, text, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(text)
    return path


def read(path):
    with open(path, "rb") as f:
        return f.read()
