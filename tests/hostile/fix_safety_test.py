"""`--fix` and the file system: it never writes through a symlink to a file outside the paths
given, and a kill at any moment leaves every file either old or new, never truncated."""
import os
import random
import shutil
import signal
import subprocess
import time

from hostile_common import check, limit_memory, main, run_ptlint, snapshot

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


if __name__ == "__main__":
    main({"symlink_outside_roots": test_symlink_outside_roots, "kill_during_fix": test_kill_during_fix})
