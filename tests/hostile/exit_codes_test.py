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


if __name__ == "__main__":
    main({"unreadable_only_path": test_unreadable_only_path,
          "path_under_unsearchable_folder": test_path_under_unsearchable_folder,
          "config_not_a_file": test_config_not_a_file, "invalid_glob": test_invalid_glob})
