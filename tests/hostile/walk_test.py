"""Hostile folder trees: symlink loops (`a -> .`, `b -> ..`), dangling links, a FIFO, a link to a
device, an unreadable folder. The walk must end, lint each real file once, never open the FIFO
or the device, and report the unreadable folder once, as an error (exit 2: it was asked for and
not checked)."""
import json
import os
import pwd
import resource
import shutil
import stat
import subprocess

from hostile_common import Failure, check, limit_memory, main, run_ptlint

CODE = "import torch\nwith torch.cuda.amp.autocast():\n    pass\n"
COMPILED = "import torch\ndef h(x):\n    return x.item()\nt = torch.compile(h)\n"


def build_tree(root):
    os.makedirs(os.path.join(root, "pkg", "sub"))
    for rel in ("a.py", "pkg/b.py", "pkg/sub/c.py"):
        with open(os.path.join(root, rel), "w") as f:
            f.write(CODE)
    os.symlink(".", os.path.join(root, "pkg", "loop"))            # a -> .
    os.symlink("..", os.path.join(root, "pkg", "sub", "up"))      # b -> ..
    os.symlink("missing.py", os.path.join(root, "dangling.py"))   # dangling
    os.symlink("/dev/zero", os.path.join(root, "zero.py"))        # device link
    os.mkfifo(os.path.join(root, "fifo.py"))                      # FIFO
    os.symlink("a.py", os.path.join(root, "alias.py"))            # second name of a real file
    return {"a.py", "pkg/b.py", "pkg/sub/c.py"}


def linted_files(proc, root):
    text = proc.stdout.decode()
    items = json.loads(text) if text.strip() else []
    return [os.path.relpath(os.path.realpath(d["filename"]), os.path.realpath(root)) for d in items]


def test_links_fifo_device(ptlint, tmp):
    root = os.path.join(tmp, "tree")
    expected = build_tree(root)
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--output-format", "json", root], timeout=30)
    files = linted_files(proc, root)
    check(set(files) == expected, f"linted {sorted(set(files))}, expected {sorted(expected)}")
    check(len(files) == len(expected), f"a real file was linted more than once: {sorted(files)}")
    # Never opened: trace every open and look for the FIFO and the device.
    if shutil.which("strace"):
        trace = os.path.join(tmp, "trace")
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=open,openat,openat2", "-o", trace, ptlint, "check",
                        "--no-cache", root], capture_output=True, timeout=60)
        with open(trace) as f:
            opens = [l for l in f if "fifo.py" in l or "zero.py" in l or "/dev/zero" in l]
        check(not opens, f"opened the FIFO or the device: {opens[:3]}")
    else:
        print("     strace missing: open trace not checked")


def test_unreadable_folder(ptlint, tmp):
    root = os.path.join(tmp, "tree")
    build_tree(root)
    locked = os.path.join(root, "locked")
    os.makedirs(os.path.join(locked, "inner"))
    with open(os.path.join(locked, "inner", "d.py"), "w") as f:
        f.write(CODE)
    os.chmod(locked, 0)
    cmd = [ptlint, "check", "--no-cache", "--output-format", "json", root]
    if os.geteuid() == 0:
        # root reads mode-000 folders; run ptlint as `nobody` so that the permission bites.
        if not shutil.which("setpriv"):
            print("     skipped: running as root without setpriv, cannot make a folder unreadable")
            return
        nobody = pwd.getpwnam("nobody")
        for dirpath, dirnames, filenames in os.walk(tmp):
            os.chmod(dirpath, 0o755)
        os.chmod(locked, 0)
        cmd = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"] + cmd
        path = os.path.dirname(tmp)
        while path != "/":
            if not os.stat(path).st_mode & stat.S_IXOTH:
                print(f"     skipped: {path} is not searchable by nobody")
                return
            path = os.path.dirname(path)
    proc = subprocess.run(cmd, capture_output=True, timeout=30, preexec_fn=limit_memory)
    err = proc.stderr.decode(errors="replace")
    check(proc.returncode >= 0, f"killed by signal {-proc.returncode}")
    warnings = [l for l in err.splitlines() if "locked" in l]
    check(len(warnings) == 1, f"expected one error about the unreadable folder, got {warnings!r}")
    check(proc.returncode == 2, f"exit {proc.returncode} with a folder that could not be read")
    check(set(linted_files(proc, root)) == {"a.py", "pkg/b.py", "pkg/sub/c.py"}, "the other files were not all linted")
    os.chmod(locked, 0o755)


DEEP_LEVELS = 1000
DEEP_MEMORY_LIMIT = 170 << 20  # a path object per level of every path kept needs over 200 MB here


def sanitized(ptlint):
    with open(ptlint, "rb") as f:
        data = f.read()
    return b"__asan_init" in data or b"__tsan_init" in data or b"__msan_init" in data


def test_deep_folders(ptlint, tmp, levels=None, limit=None):
    """A package nested 1,000 folders deep, `__init__.py` at each level: the walk, the project
    index and the reports keep every file's path, and memory must grow with the sum of their
    lengths, not with one object per level of each."""
    levels = levels or DEEP_LEVELS
    root = os.path.join(tmp, "tree")
    os.makedirs(root)
    with open(os.path.join(root, "pyproject.toml"), "w"):
        pass
    with open(os.path.join(root, "top.py"), "w") as f:
        f.write(COMPILED)
    folders = [root]
    for _ in range(levels):
        folders.append(os.path.join(folders[-1], "p"))
        os.mkdir(folders[-1])
        with open(os.path.join(folders[-1], "__init__.py"), "w"):
            pass
    with open(os.path.join(folders[-1], "leaf.py"), "w") as f:
        f.write(COMPILED)
    try:
        check_deep_tree(ptlint, root, limit or DEEP_MEMORY_LIMIT, levels)
    finally:
        for folder in reversed(folders):  # bottom up: shutil.rmtree recurses once per level
            for name in os.listdir(folder):
                if not os.path.isdir(os.path.join(folder, name)):
                    os.unlink(os.path.join(folder, name))
            os.rmdir(folder)


def check_deep_tree(ptlint, root, limit, levels):
    if sanitized(ptlint):
        print("     sanitizer build: memory budget not checked")
        return

    def budget():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = dict(os.environ, MALLOC_ARENA_MAX="1")  # one arena: the budget does not depend on the cores
    try:
        proc = subprocess.run([ptlint, "check", "--no-cache", "-j", "1", "--output-format", "json", root],
                              capture_output=True, timeout=120, preexec_fn=budget, env=env)
    except subprocess.TimeoutExpired:
        raise Failure(f"timed out on a tree {levels} folders deep")
    stderr = proc.stderr.decode(errors="replace")[-2000:]
    check(proc.returncode == 1, f"exit code {proc.returncode} under {limit >> 20} MB:\n{stderr}")
    files = {os.path.basename(f) for f in linted_files(proc, root)}
    check(files == {"top.py", "leaf.py"}, f"findings in {sorted(files)}, expected top.py and leaf.py\n{stderr}")


def test_deep_folders_tight(ptlint, tmp):
    """1,500 levels under 80 MB of address space: the walk's list and the engine's inputs are
    strings, not a path object (one object per level) per file, which needed over 90 MB here."""
    test_deep_folders(ptlint, tmp, levels=1500, limit=80 << 20)


if __name__ == "__main__":
    main({"links_fifo_device": test_links_fifo_device, "unreadable_folder": test_unreadable_folder,
          "deep_folders": test_deep_folders, "deep_folders_tight": test_deep_folders_tight})
