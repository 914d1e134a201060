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
