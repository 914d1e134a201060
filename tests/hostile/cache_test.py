"""The results cache (`.ptlint_cache/`) in a hostile working folder: one that cannot be searched,
symlinks inside it or in its place, entries edited to describe impossible ranges. The check
always runs (the cache is optional), nothing outside the cache is ever written through it, and
nothing it holds is printed unless it describes the file as it is."""
import json
import os

from hostile_common import AMP, check, hand_over, main, read, run_ptlint, run_unprivileged, write


def findings(proc):
    out = proc.stdout.decode(errors="replace")
    return json.loads(out) if out.strip() else []


def test_unsearchable(ptlint, tmp):
    # A cache folder mode 000, and one root created with umask 077: as the unprivileged user.
    for name, make in (("mode000", lambda d: os.chmod(os.path.join(d, ".ptlint_cache"), 0)),
                       ("umask077", lambda d: os.chmod(os.path.join(d, ".ptlint_cache"), 0o700))):
        work = os.path.join(tmp, name)
        write(os.path.join(work, "a.py"), AMP)
        run_ptlint(ptlint, ["check", "a.py"], cwd=work)  # fills the cache
        check(os.path.isdir(os.path.join(work, ".ptlint_cache")), "no cache was written")
        hand_over(tmp)
        if name == "umask077" and os.geteuid() == 0:
            for dirpath, _, filenames in os.walk(os.path.join(work, ".ptlint_cache")):
                for f in [dirpath] + [os.path.join(dirpath, f) for f in filenames]:
                    os.lchown(f, 0, 0)
        make(work)
        proc = run_unprivileged(ptlint, ["check", "--output-format", "json", "a.py"], cwd=work)
        err = proc.stderr.decode(errors="replace")
        check(proc.returncode == 1, f"{name}: exit {proc.returncode}, expected 1 (one finding): {err[-500:]}")
        check([d["code"] for d in findings(proc)] == ["PTL101"], f"{name}: the finding is missing")
        check(".ptlint_cache" in err and "warning" in err, f"{name}: no warning about the cache: {err!r}")
        os.chmod(os.path.join(work, ".ptlint_cache"), 0o755)


def test_symlinks(ptlint, tmp):
    work = os.path.join(tmp, "repo")
    write(os.path.join(work, "a.py"), AMP)
    precious = write(os.path.join(work, "precious.txt"), "keep me\n")
    cache = os.path.join(work, ".ptlint_cache")
    os.makedirs(cache)
    os.symlink("../precious.txt", os.path.join(cache, ".gitignore"))
    os.symlink("../created_by_ptlint", os.path.join(cache, "CACHEDIR.TAG"))     # dangling
    os.symlink("../precious.txt", os.path.join(cache, "results.json"))
    for _ in range(2):
        proc = run_ptlint(ptlint, ["check", "--output-format", "json", "a.py"], cwd=work)
        check(proc.returncode == 1 and len(findings(proc)) == 1, f"exit {proc.returncode}: {proc.stderr!r}")
    check(read(precious) == b"keep me\n", "a file outside the cache was overwritten through a symlink")
    check(not os.path.lexists(os.path.join(work, "created_by_ptlint")), "a dangling link's target was created")
    warnings = [l for l in proc.stderr.decode().splitlines() if ".ptlint_cache" in l]
    check(len(warnings) == 1, f"expected one warning about the cache, got {warnings}")
    # `.ptlint_cache` itself a symlink to a folder outside.
    outside = os.path.join(tmp, "outside")
    os.makedirs(outside)
    work2 = os.path.join(tmp, "repo2")
    write(os.path.join(work2, "a.py"), AMP)
    os.symlink(outside, os.path.join(work2, ".ptlint_cache"))
    proc = run_ptlint(ptlint, ["check", "--output-format", "json", "a.py"], cwd=work2)
    check(proc.returncode == 1 and len(findings(proc)) == 1, f"exit {proc.returncode}")
    check(os.listdir(outside) == [], f"wrote through the .ptlint_cache symlink: {os.listdir(outside)}")


def test_project_scan_cache(ptlint, tmp):
    # The project index's scan cache lives beside the results: a symlink to a device, to a FIFO
    # or to a file outside is never read through (no hang, no unbounded read) nor written through.
    compiled = ("import torch\n\n\ndef f(x):\n    return x.sum().item()\n\n\ng = torch.compile(f)\n")
    for name in ("zero", "fifo", "outside"):
        work = os.path.join(tmp, "scan-" + name)
        write(os.path.join(work, "a.py"), compiled)
        precious = write(os.path.join(work, "precious.txt"), "keep me\n")
        cache = os.path.join(work, ".ptlint_cache")
        os.makedirs(cache)
        link = os.path.join(cache, "project-scan.json")
        if name == "zero":
            os.symlink("/dev/zero", link)
        elif name == "fifo":
            os.mkfifo(os.path.join(work, "pipe"))
            os.symlink("../pipe", link)
        else:
            os.symlink("../precious.txt", link)
        proc = run_ptlint(ptlint, ["check", "--output-format", "json", "a.py"], cwd=work)
        check(proc.returncode == 1 and [d["code"] for d in findings(proc)] == ["PTL501"],
              f"{name}: exit {proc.returncode}: {proc.stderr[-300:]!r}")
        check(read(precious) == b"keep me\n", f"{name}: a file outside the cache was written through a symlink")


def test_tampered_entries(ptlint, tmp):
    work = os.path.join(tmp, "repo")
    write(os.path.join(work, "a.py"), AMP)
    expected = findings(run_ptlint(ptlint, ["check", "--no-cache", "--output-format", "json", "a.py"], cwd=work))
    results = os.path.join(work, ".ptlint_cache", "results.json")
    edits = {
        "reversed": lambda d: d.update(start=d["end"] + 3, end=d["start"]),
        "past_the_end": lambda d: d.update(end=10_000),
        "negative": lambda d: d.update(start=-1),
        "edit_reversed": lambda d: d["fix"]["edits"][0].__setitem__(0, d["fix"]["edits"][0][1] + 5),
        "edit_past_the_end": lambda d: d["fix"]["edits"][0].__setitem__(1, 1 << 31),
        "unknown_code": lambda d: d.update(code="PTL999"),
        "bad_severity": lambda d: d.update(severity=42),
        "forged_line": lambda d: d.update(message="ok\nother.py:1:1: PTL999 forged\x1b[2J"),
    }
    for name, edit in edits.items():
        if os.path.exists(results):
            os.unlink(results)
        run_ptlint(ptlint, ["check", "a.py"], cwd=work)
        with open(results) as f:
            doc = json.load(f)
        for entry in doc["entries"].values():
            for d in entry["diagnostics"]:
                edit(d)
        with open(results, "w") as f:
            json.dump(doc, f)
        proc = run_ptlint(ptlint, ["check", "--output-format", "json", "a.py"], cwd=work)
        got = findings(proc)
        check(proc.returncode == 1, f"{name}: exit {proc.returncode}")
        check(got == expected, f"{name}: the edited cache entry was trusted: {json.dumps(got)[:300]}")


if __name__ == "__main__":
    main({"unsearchable": test_unsearchable, "symlinks": test_symlinks, "tampered_entries": test_tampered_entries,
          "project_scan_cache": test_project_scan_cache})
