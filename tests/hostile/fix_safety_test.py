"""`--fix` and the file system: it never writes through a symlink to a file outside the paths
given, and a kill at any moment leaves every file either old or new, never truncated. It is a
compare-and-swap: a file changed while ptlint ran, a read-only file and a file with several hard
links are refused (exit 2, a message naming the file); owner, group and mode are kept; the
temporary files an interrupted run left are cleaned up (only those, never through a symlink)."""
import os
import random
import shutil
import signal
import subprocess
import time

from hostile_common import (AMP, AMP_FIXED, check, hand_over, limit_memory, main, read, run_ptlint, run_unprivileged,
                            snapshot, write)

OLD = ("import torch\n"
       "scaler = torch.cuda.amp.GradScaler()\n"
       "with torch.cuda.amp.autocast():\n"
       "    y = model(x)  # données\n") + "# padding line to make the write take a while\n" * 400


def test_symlink_outside_roots(ptlint, tmp):
    root, outside = os.path.join(tmp, "root"), os.path.join(tmp, "outside")
    os.makedirs(root)
    os.makedirs(outside)
    target = os.path.join(outside, "target.py")
    with open(target, "w") as f:
        f.write(OLD)
    inside = os.path.join(root, "inside.py")
    with open(inside, "w") as f:
        f.write(OLD)
    os.symlink(target, os.path.join(root, "link.py"))
    os.symlink(inside, os.path.join(root, "link_in.py"))
    before = snapshot(target)
    # The folder walk, and the link named explicitly: neither may touch the outside file.
    run_ptlint(ptlint, ["check", "--no-cache", "--fix", root])
    run_ptlint(ptlint, ["check", "--no-cache", "--fix", os.path.join(root, "link.py")])
    check(snapshot(target) == before, "--fix wrote through a symlink to a file outside the roots")
    check(os.path.islink(os.path.join(root, "link.py")), "the symlink itself was replaced")
    with open(inside) as f:
        check("torch.cuda.amp" not in f.read(), "the real file inside the root was not fixed")
    check(os.path.islink(os.path.join(root, "link_in.py")), "the inside symlink was replaced by a file")


def test_kill_during_fix(ptlint, tmp):
    files = 300
    template = os.path.join(tmp, "template")
    os.makedirs(template)
    for i in range(files):
        with open(os.path.join(template, f"m{i:03}.py"), "w") as f:
            f.write(OLD)
    # The new content, as one complete run writes it.
    ref = os.path.join(tmp, "ref")
    shutil.copytree(template, ref)
    run_ptlint(ptlint, ["check", "--no-cache", "--fix", ref])
    with open(os.path.join(ref, "m000.py")) as f:
        new = f.read()
    check(new != OLD, "the reference run fixed nothing")
    rng = random.Random(8)
    partial_runs = 0
    for attempt in range(25):
        work = os.path.join(tmp, f"run{attempt}")
        shutil.copytree(template, work)
        proc = subprocess.Popen([ptlint, "check", "--no-cache", "--fix", "-j", "2", work], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, preexec_fn=limit_memory)
        time.sleep(rng.uniform(0.0, 0.12))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        counts = {"old": 0, "new": 0}
        for name in os.listdir(work):
            path = os.path.join(work, name)
            if not name.endswith(".py"):
                continue  # a temporary file the kill left behind; never a source file
            with open(path) as f:
                text = f.read()
            check(text in (OLD, new), f"{path}: neither the old nor the new content ({len(text)} bytes)")
            counts["old" if text == OLD else "new"] += 1
        check(counts["old"] + counts["new"] == files, f"run {attempt}: files lost ({counts})")
        if counts["old"] and counts["new"]:
            partial_runs += 1
        shutil.rmtree(work)
    print(f"     25 killed runs over {files} files, {partial_runs} killed mid-way; every file old or new")


def refused(proc, path, reason):
    err = proc.stderr.decode(errors="replace")
    check(proc.returncode == 2, f"exit {proc.returncode}, expected 2 ({reason}): {err[-500:]}")
    lines = [l for l in err.splitlines() if l.startswith("error:") and os.path.basename(path) in l and reason in l]
    check(lines, f"no error naming {os.path.basename(path)} and saying {reason!r}: {err[-500:]}")
    check("All checks passed" not in proc.stdout.decode(errors="replace"), "said 'All checks passed!'")


def edit_while_fixing(ptlint, tmp, path, edit):
    """Runs `--fix path`, holding ptlint just before it compares and swaps (strace delays the
    fchmod of the temporary file by 1.5 s), and calls `edit()` in that window."""
    check(shutil.which("strace") is not None, "strace is not installed (scripts/setup.sh installs it)")
    proc = subprocess.Popen(["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=fchmod", "-e",
                             "inject=fchmod:delay_enter=1500000", ptlint, "check", "--no-cache", "--fix", path],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit_memory)
    folder, name = os.path.dirname(path), os.path.basename(path)
    deadline = time.monotonic() + 20
    while not any(n.startswith(f".{name}.ptlint-") for n in os.listdir(folder)):
        check(time.monotonic() < deadline and proc.poll() is None, "ptlint never wrote its temporary file")
        time.sleep(0.01)
    edit()
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_changed_during_fix(ptlint, tmp):
    # Appended in place (same inode), and replaced by a new file (an editor's save).
    path = write(os.path.join(tmp, "inplace.py"), AMP)
    mine = AMP + "print('written while ptlint ran')\n"
    proc = edit_while_fixing(ptlint, tmp, path, lambda: write(path, mine))
    refused(proc, path, "changed on disk")
    check(read(path) == mine.encode(), "the change made while --fix ran was overwritten")
    path = write(os.path.join(tmp, "replaced.py"), AMP)

    def replace():
        write(path + ".new", mine)
        os.rename(path + ".new", path)
    proc = edit_while_fixing(ptlint, tmp, path, replace)
    refused(proc, path, "changed on disk")
    check(read(path) == mine.encode(), "the file saved while --fix ran was overwritten")
    check(not [n for n in os.listdir(tmp) if ".ptlint-" in n], "a temporary file was left behind")


def test_read_only(ptlint, tmp):
    # As the unprivileged user, in a folder it may write; and as root (root may write anything,
    # but a mode without write permission says: do not).
    path = write(os.path.join(tmp, "ro.py"), AMP)
    os.chmod(path, 0o444)
    hand_over(tmp)
    proc = run_unprivileged(ptlint, ["check", "--no-cache", "--fix", path])
    refused(proc, path, "read-only")
    check(read(path) == AMP.encode() and os.stat(path).st_mode & 0o777 == 0o444, "the read-only file was rewritten")
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--fix", path])
    refused(proc, path, "read-only")
    check(read(path) == AMP.encode(), "the read-only file was rewritten by a privileged run")
    # --diff still shows what a fix would do.
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--diff", path])
    check(proc.returncode == 1 and b"torch.amp.autocast" in proc.stdout, "--diff on a read-only file showed nothing")


def test_hard_links(ptlint, tmp):
    path = write(os.path.join(tmp, "linked.py"), AMP)
    other = os.path.join(tmp, "other_name.py")
    os.link(path, other)
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--fix", path])
    refused(proc, path, "hard links")
    check(os.stat(path).st_ino == os.stat(other).st_ino, "the hard link was split")
    check(read(path) == AMP.encode(), "a file with two names was changed under one of them")


def test_owner_and_mode_kept(ptlint, tmp):
    path = write(os.path.join(tmp, "owned.py"), AMP)
    os.chmod(path, 0o640)
    if os.geteuid() == 0:
        import pwd
        nobody = pwd.getpwnam("nobody")
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
    before = os.stat(path)
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--fix", path])
    check(proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    after = os.stat(path)
    check(read(path) == AMP_FIXED.encode(), "not fixed")
    check((after.st_uid, after.st_gid) == (before.st_uid, before.st_gid),
          f"owner changed from {before.st_uid}:{before.st_gid} to {after.st_uid}:{after.st_gid}")
    check(after.st_mode == before.st_mode, f"mode changed from {oct(before.st_mode)} to {oct(after.st_mode)}")
    if os.geteuid() != 0:
        print("     not root: the owner was ours already (the chown case needs root)")


def test_stale_temporaries(ptlint, tmp):
    path = write(os.path.join(tmp, "x.py"), AMP)
    precious = write(os.path.join(tmp, "precious.txt"), "keep me\n")
    stale = write(os.path.join(tmp, ".x.py.ptlint-a1B2c3"), AMP[:10])        # what a kill -9 leaves
    clean = write(os.path.join(tmp, ".clean.py.ptlint-Zz9Yy8"), "half\n")     # clean.py: nothing to fix
    write(os.path.join(tmp, "clean.py"), "import os\n")
    keep = [write(os.path.join(tmp, ".x.py.ptlint-abc"), "not ours: 3 letters\n"),
            write(os.path.join(tmp, ".y.py.ptlint-abcdef"), "no y.py here\n"),
            write(os.path.join(tmp, "x.py.ptlint-abcdef"), "no leading dot\n")]
    link = os.path.join(tmp, ".x.py.ptlint-QwErTy")
    os.symlink(precious, link)
    proc = run_ptlint(ptlint, ["check", "--no-cache", "--fix", tmp])
    check(proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    check(read(path) == AMP_FIXED.encode(), "not fixed")
    check(not os.path.exists(stale) and not os.path.exists(clean), "the interrupted run's temporary files remain")
    check(all(os.path.exists(k) for k in keep), "a file that is not our temporary file was deleted")
    check(os.path.islink(link) and read(precious) == b"keep me\n", "the symlink (or its target) was touched")
    # A plain check deletes nothing.
    again = write(os.path.join(tmp, ".x.py.ptlint-d4E5f6"), "x")
    run_ptlint(ptlint, ["check", "--no-cache", tmp])
    check(os.path.exists(again), "a check without --fix deleted files")


if __name__ == "__main__":
    main({"symlink_outside_roots": test_symlink_outside_roots, "kill_during_fix": test_kill_during_fix,
          "changed_during_fix": test_changed_during_fix, "read_only": test_read_only, "hard_links": test_hard_links,
          "owner_and_mode_kept": test_owner_and_mode_kept, "stale_temporaries": test_stale_temporaries})
