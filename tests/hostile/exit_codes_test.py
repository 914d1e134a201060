"""Nothing that was asked for and not checked yields "All checks passed!" or exit 0: an
unreadable folder given as the only path, a path under a folder that cannot be searched, a
`--config` that is a folder, a device or a FIFO (which must not hang), an invalid glob. Each
gives exit 2 and a message naming the file and the reason. Permission cases run unprivileged."""
import os

from hostile_common import AMP, check, hand_over, main, run_ptlint, run_unprivileged, write


def expect_error(proc, *words):
    err = proc.stderr.decode(errors="replace")
    out = proc.stdout.decode(errors="replace")
    check(proc.returncode == 2, f"exit {proc.returncode}, expected 2: {err[-400:]}")
    check("All checks passed" not in out, f"said 'All checks passed!': {out[-300:]}")
    lines = [l for l in err.splitlines() if l.startswith("error") and all(w in l for w in words)]
    check(lines, f"no error line with {words}: {err[-400:]}")


def test_unreadable_only_path(ptlint, tmp):
    locked = os.path.join(tmp, "locked")
    write(os.path.join(locked, "a.py"), AMP)
    hand_over(tmp)
    os.chmod(locked, 0)
    try:
        for args in (["check", "--no-cache", locked], ["check", "--no-cache", "--output-format", "json", locked],
                     ["check", "--no-cache", tmp]):
            proc = run_unprivileged(ptlint, args, cwd=tmp)
            expect_error(proc, "locked", "Permission denied")
    finally:
        os.chmod(locked, 0o755)


def test_path_under_unsearchable_folder(ptlint, tmp):
    locked = os.path.join(tmp, "locked")
    inside = write(os.path.join(locked, "a.py"), AMP)
    hand_over(tmp)
    os.chmod(locked, 0)
    try:
        proc = run_unprivileged(ptlint, ["check", "--no-cache", inside], cwd=tmp)
        expect_error(proc, "a.py", "Permission denied")
        check(b"No such file" not in proc.stderr, "reported as missing")
    finally:
        os.chmod(locked, 0o755)


def test_config_not_a_file(ptlint, tmp):
    write(os.path.join(tmp, "a.py"), AMP)
    fifo = os.path.join(tmp, "fifo.toml")
    os.mkfifo(fifo)
    for config, words in ((tmp, ("is a folder",)), ("/dev/zero", ("/dev/zero", "not a regular file")),
                          ("/dev/null", ("/dev/null", "not a regular file")), (fifo, ("fifo.toml", "not a regular file")),
                          (os.path.join(tmp, "missing.toml"), ("missing.toml", "No such file"))):
        proc = run_ptlint(ptlint, ["check", "--no-cache", "--config", config, "a.py"], cwd=tmp, timeout=20)
        expect_error(proc, *words)
    # Unreadable, as the unprivileged user.
    secret = write(os.path.join(tmp, "secret.toml"), "select = [\"PTL\"]\n")
    hand_over(tmp)
    os.chmod(secret, 0)
    proc = run_unprivileged(ptlint, ["check", "--no-cache", "--config", secret, "a.py"], cwd=tmp, timeout=20)
    expect_error(proc, "secret.toml", "Permission denied")


def test_invalid_glob(ptlint, tmp):
    write(os.path.join(tmp, "a.py"), AMP)
    for key, body in (("exclude", 'exclude = ["ok", "[[[["]\n'), ("extend-exclude", 'extend-exclude = ["[z-a].py"]\n'),
                      ("per-file-ignores", '[per-file-ignores]\n"tests/[abc" = ["PTL101"]\n')):
        write(os.path.join(tmp, "ptlint.toml"), "# settings\n" + body)
        proc = run_ptlint(ptlint, ["check", "--no-cache", "."], cwd=tmp)
        line = 3 if key == "per-file-ignores" else 2
        expect_error(proc, f"ptlint.toml:{line}:", key, "not a valid glob")


def test_listable_unsearchable_folder(ptlint, tmp):
    # Mode 0444: the folder lists its names, but no entry can be looked at (lstat fails). The
    # other files are checked; the run says what it could not check and exits 2.
    write(os.path.join(tmp, "ok.py"), AMP)
    sub = os.path.join(tmp, "sub")
    write(os.path.join(sub, "a.py"), AMP)
    write(os.path.join(sub, "inner", "b.py"), AMP)
    hand_over(tmp)
    os.chmod(sub, 0o444)
    try:
        for args in (["check", "--no-cache", "."], ["check", "--no-cache", "--output-format", "json", "."]):
            proc = run_unprivileged(ptlint, args, cwd=tmp)
            expect_error(proc, "sub", "Permission denied")
            check(b"ok.py" in proc.stdout, "the readable file was not reported")
    finally:
        os.chmod(sub, 0o755)


def test_path_past_path_max(ptlint, tmp):
    # Folders nested past PATH_MAX (4096 bytes): the deepest cannot be named, so they cannot be
    # checked; the run says so (exit 2), after checking every file it can name.
    write(os.path.join(tmp, "top.py"), AMP)
    name, levels = "p" * 200, 25
    fd = os.open(tmp, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("deep.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write(AMP)
    finally:
        os.close(fd)
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--output-format", "concise", "."], cwd=tmp, timeout=120)
    err = proc.stderr.decode(errors="replace")
    check(proc.returncode == 2, f"exit {proc.returncode}, expected 2: {err[-400:]}")
    check("File name too long" in err, f"no error naming the over-long path: {err[-400:]}")
    check(b"top.py" in proc.stdout, "the file at the top was not reported")
    # Remove the tree from the inside out (rmtree cannot name its deepest entries either).
    fd = os.open(tmp, os.O_RDONLY)
    fds = []
    for _ in range(levels):
        fds.append(fd)
        fd = os.open(name, os.O_RDONLY, dir_fd=fd)
    os.unlink("deep.py", dir_fd=fd)
    os.close(fd)
    while fds:
        parent = fds.pop()
        os.rmdir(name, dir_fd=parent)
        os.close(parent)


def test_project_file_too_large(ptlint, tmp):
    # A project file past the size limit is not scanned for compile sites: the facts of the file
    # checked may miss what it compiles, so the run warns, naming the limit, and exits 2.
    write(os.path.join(tmp, "pyproject.toml"), "")
    write(os.path.join(tmp, "model.py"), "def helper(x):\n    return x.item()\n")
    write(os.path.join(tmp, "big.py"), "import torch\nfrom model import helper\nf = torch.compile(helper)\n" +
          "#" * (17 << 20) + "\n")
    proc = run_ptlint(ptlint, ["check", "--no-cache", "model.py"], cwd=tmp, timeout=60)
    err = proc.stderr.decode(errors="replace")
    check(proc.returncode == 2, f"exit {proc.returncode}, expected 2: {err[-400:]}")
    check("big.py is larger than the 16 MB limit" in err, f"no warning naming the limit: {err[-400:]}")
    check(b"All checks passed" not in proc.stdout, "said 'All checks passed!'")


if __name__ == "__main__":
    main({"unreadable_only_path": test_unreadable_only_path,
          "path_under_unsearchable_folder": test_path_under_unsearchable_folder,
          "config_not_a_file": test_config_not_a_file, "invalid_glob": test_invalid_glob,
          "listable_unsearchable_folder": test_listable_unsearchable_folder,
          "path_past_path_max": test_path_past_path_max,
          "project_file_too_large": test_project_file_too_large})
