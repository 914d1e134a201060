#!/usr/bin/env python3
"""ptlint's benchmark suite (run it through bench/run.sh, which builds what it needs).

Measures, in one run and on the same files:
  1. the floor: reading and tree-sitter parsing every corpus file, nothing else (ptlint_parse_floor,
     on glibc's malloc; and ptlint_parse_floor_jemalloc, on ptlint's allocator, when built)
  2. `ptlint check --no-cache` on the corpus, cold; and again with a warm results cache
  3. one small file, start to exit
  4. the LSP latency benchmark (bench/lsp/lsp_latency.py)
  5. peak memory (/usr/bin/time -v) of 2
  6. the peer: Ruff's WASM build linting the same files in process (bench/ruff/)
and the ratios 2/1 and 2/6; plus `--select ALL -j1` against the floor on one thread.
When the real-ML corpus is there (bench/ml_corpus.sh materialises bench/ml_corpus.txt's pinned
repositories into bench/ml-corpus/, or --ml-corpus DIR names another folder), the same run also
measures 1, 2 (cold, both thread counts, and --select ALL -j1), 5 and 6 on it and prints its
rows beside Debian's torch; without it, a line says it was skipped.
With --baseline-ptlint (bench/run.sh --baseline REV builds it), also side-by-side rows for that
binary against this one, the two alternating run by run (same files, same moment): cold with the
default threads, cold -j1, warm cache with nothing changed, and warm cache with one file edited
before each run (a copy of the corpus; each binary keeps its own cache folder).
Wall times are medians over --runs runs (hyperfine); CPU is user+sys, the mean over the same
runs. On a loaded machine wall times swell and CPU times do not: compare CPU there.
"""

import argparse
import glob
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST = "/usr/lib/python3/dist-packages"
CORPUS = [os.path.join(DIST, "torch")]
LARGE = [os.path.join(DIST, name) for name in ("torchvision", "torchaudio", "skorch")]
ML_CORPUS = os.path.join(ROOT, "bench", "ml-corpus")
ML_LIST = os.path.join(ROOT, "bench", "ml_corpus.txt")

# A small training script that every default rule's trigger words reach, so it is parsed and
# linted in full (the pre-commit case: one file, start to exit).
SMALL_FILE = '''import random

import numpy as np
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader


def train(model, dataset, optimizer, epochs=1):
    loader = DataLoader(dataset, batch_size=32, num_workers=4)
    scaler = torch.cuda.amp.GradScaler()
    ddp = DDP(model, find_unused_parameters=True)
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with torch.cuda.amp.autocast():
                loss = torch.nn.functional.cross_entropy(ddp(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
    return random.random() + float(np.mean([1.0]))


@torch.compile
def attention(q, k, v):
    weights = torch.softmax(q @ k.transpose(-2, -1) / 8.0, dim=-1)
    print(weights.sum().item())
    return weights @ v
'''


class _BaselineOnly(Exception):
    """Ends the measurements after the side-by-side rows (--baseline-only)."""


def log(message):
    print("bench: " + message, file=sys.stderr, flush=True)


def hyperfine(name, command, runs, workdir, warmup=1, prepare=None):
    """Runs `command` (a list) under hyperfine; returns wall median and mean CPU (seconds)."""
    out = os.path.join(workdir, name + ".json")
    args = ["hyperfine", "--style", "none", "-N", "--runs", str(runs), "--warmup", str(warmup),
            "--export-json", out]
    if prepare:
        args += ["--prepare", prepare]
    args.append(shlex.join(command))
    shown = command if len(command) <= 12 else command[:10] + ["... (%d more)" % (len(command) - 10)]
    log("%s: %s" % (name, " ".join(shown)))
    subprocess.run(args, check=True, cwd=workdir, stdout=subprocess.DEVNULL)
    with open(out) as f:
        result = json.load(f)["results"][0]
    return {"wall": result["median"], "cpu": result["user"] + result["system"],
            "min": result["min"], "times": result["times"]}


def timed_run(command, workdir):
    """Runs `command` once; returns (wall seconds, user+sys CPU seconds of it and its children)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        sys.exit("bench: %s exited with %d" % (" ".join(command), proc.returncode))
    return wall, usage.ru_utime + usage.ru_stime


def side_by_side(name, commands, runs, prepare=None, warmup=1):
    """Alternates the commands of `commands` ({label: (argv, workdir)}) run by run, the order
    reversed every other round; `prepare(label, round)` runs untimed before each run. Returns
    {label: {"wall": median, "cpu": median, "walls": [...], "cpus": [...]}}."""
    labels = list(commands)
    log("%s: %d alternated runs of %s" % (name, runs, " / ".join(labels)))
    for _ in range(warmup):
        for label in labels:
            if prepare:
                prepare(label, -1)
            timed_run(*commands[label])
    walls = {label: [] for label in labels}
    cpus = {label: [] for label in labels}
    for i in range(runs):
        for label in (labels if i % 2 == 0 else labels[::-1]):
            if prepare:
                prepare(label, i)
            wall, cpu = timed_run(*commands[label])
            walls[label].append(wall)
            cpus[label].append(cpu)
    return {label: {"wall": statistics.median(walls[label]), "cpu": statistics.median(cpus[label]),
                    "walls": walls[label], "cpus": cpus[label]} for label in labels}


def baseline_rows(base_ptlint, ptlint, roots, threads, runs, work):
    """The side-by-side measurements: {row: {"base": ..., "current": ...}}."""
    def check(binary):
        return [binary, "check", "--exit-zero", "--output-format", "concise"]
    j = ["-j", str(threads)]
    binaries = {"base": base_ptlint, "current": ptlint}
    out = {}
    out["cold"] = side_by_side("cold", {k: (check(b) + ["--no-cache"] + j + roots, work) for k, b in binaries.items()},
                               runs)
    out["cold_j1"] = side_by_side("cold_j1", {k: (check(b) + ["--no-cache", "-j", "1"] + roots, work)
                                              for k, b in binaries.items()}, runs)
    # Warm runs: a copy of the corpus (one of its files is edited), one cache folder per binary.
    corpus = os.path.join(work, "corpus")
    os.mkdir(corpus)
    copies = []
    for r in roots:
        copy = os.path.join(corpus, os.path.basename(r))
        shutil.copytree(r, copy, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        copies.append(copy)
    dirs = {}
    for k in binaries:
        dirs[k] = os.path.join(work, "warm-" + k)
        os.mkdir(dirs[k])
        timed_run(check(binaries[k]) + j + copies, dirs[k])  # fills the cache
    out["warm"] = side_by_side("warm", {k: (check(b) + j + copies, dirs[k]) for k, b in binaries.items()}, runs)
    # The file edited: one that the default rules parse and lint (not one the prefilter skips).
    edited = os.path.join(copies[0], "nn", "modules", "module.py")
    if not os.path.isfile(edited):
        edited = sorted(glob.glob(os.path.join(copies[0], "**", "*.py"), recursive=True))[0]
    with open(edited, "rb") as f:
        original = f.read()
    counter = [0]

    def edit(label, round_):
        counter[0] += 1
        with open(edited, "wb") as f:
            f.write(original + b"\n# edited before run %d\n" % counter[0])
    try:
        out["warm_edit"] = side_by_side("warm_edit", {k: (check(b) + j + copies, dirs[k]) for k, b in binaries.items()},
                                        runs, prepare=edit)
    finally:
        with open(edited, "wb") as f:
            f.write(original)
    out["edited_file"] = os.path.relpath(edited, corpus)
    return out


def print_baseline(base, rev, threads, load):
    print("\nside by side: %s (baseline %s) vs this build; medians of %d alternated runs; load average %s -> %s\n" % (
        base["base_path"], rev, len(base["cold"]["base"]["walls"]), load[0], load[1]))
    rows = [("cold --no-cache, -j%d" % threads, "cold"), ("cold --no-cache, -j1", "cold_j1"),
            ("warm cache, nothing changed, -j%d" % threads, "warm"),
            ("warm cache, %s edited before each run, -j%d" % (base["edited_file"], threads), "warm_edit")]
    headers = ("measurement", "baseline wall", "baseline CPU", "this wall", "this CPU", "ratio wall", "ratio CPU")
    table = []
    for label, key in rows:
        b, c = base[key]["base"], base[key]["current"]
        table.append((label, fmt_s(b["wall"]), fmt_s(b["cpu"]), fmt_s(c["wall"]), fmt_s(c["cpu"]),
                      "%.2fx" % (c["wall"] / b["wall"]), "%.2fx" % (c["cpu"] / b["cpu"])))
    widths = [max(len(str(r[i])) for r in table + [headers]) for i in range(len(headers))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in table:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")
    cold = base["cold"]["current"]
    for who in ("base", "current"):
        print("warm, one file edited / cold (%s): wall %.1f%%   CPU %.1f%%   (target < 15%%)" % (
            "baseline" if who == "base" else "this build", 100 * base["warm_edit"][who]["wall"] / base["cold"][who]["wall"],
            100 * base["warm_edit"][who]["cpu"] / base["cold"][who]["cpu"]))
    print("cold CPU, this build / baseline: default threads %.2fx, -j1 %.2fx   (target < 1.1x)" % (
        cold["cpu"] / base["cold"]["base"]["cpu"], base["cold_j1"]["current"]["cpu"] / base["cold_j1"]["base"]["cpu"]))


def peak_rss_mib(command, runs, workdir):
    """Median of the peak resident set size over `runs` runs, in MiB."""
    peaks = []
    for _ in range(runs):
        proc = subprocess.run(["/usr/bin/time", "-v"] + command, cwd=workdir, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
        if match:
            peaks.append(int(match.group(1)) / 1024)
    return statistics.median(peaks) if peaks else float("nan")


def ruff_peer(files_txt, runs):
    script = os.path.join(ROOT, "bench", "ruff", "ruff_wasm_check.js")
    log("peer: node %s (%d timed passes after one warm-up)" % (script, runs))
    proc = subprocess.run(["node", script, files_txt, "--passes", str(runs)], check=True,
                          stdout=subprocess.PIPE, text=True, cwd=os.path.dirname(script))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def pinned_repos(path=ML_LIST):
    """The {owner/name: commit} pins of bench/ml_corpus.txt."""
    pins = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and not fields[0].startswith("#") and len(fields) >= 2:
                pins[fields[0]] = fields[1]
    return pins


def ml_corpus_roots(folder):
    """The repository folders of a real-ML corpus folder (bench/ml_corpus.sh's layout), and a
    note when it holds other commits than the pins, or fewer repositories; None if absent."""
    if not os.path.isdir(folder):
        return None, None
    roots = sorted(os.path.join(folder, d) for d in os.listdir(folder)
                   if os.path.isdir(os.path.join(folder, d)) and not d.endswith(".tmp"))  # .tmp: interrupted
    if not roots:
        return None, None
    pins = pinned_repos() if os.path.isfile(ML_LIST) else {}
    have = {}
    for r in roots:
        stamp = os.path.join(r, ".ml-corpus-commit")
        if os.path.isfile(stamp):
            with open(stamp) as f:
                have[os.path.basename(r).replace("+", "/", 1)] = f.read().strip()
    missing = sorted(set(pins) - set(have))
    moved = sorted(k for k in pins if k in have and have[k] != pins[k])
    note = []
    if missing:
        note.append("%d pinned repositories missing (%s)" % (len(missing), ", ".join(missing)))
    if moved:
        note.append("%d at other commits than the pins (%s)" % (len(moved), ", ".join(moved)))
    return roots, "; ".join(note) or None


def corpus_files(floor, roots, files_txt):
    """Writes the corpus exactly as `ptlint check` walks it to `files_txt`; returns (count, bytes)."""
    with open(files_txt, "w") as f:
        subprocess.run([floor, "--list"] + roots, check=True, stdout=f)
    with open(files_txt) as f:
        files = [line.rstrip("\n") for line in f if line.strip()]
    return len(files), sum(os.path.getsize(p) for p in files)


def same_allocator_floor(floor):
    """The floor linked with ptlint's allocator (jemalloc), when the build made one, else None."""
    path = floor + "_jemalloc"
    return path if os.access(path, os.X_OK) else None


def measure_ml(ptlint, floor, roots, threads, runs, work, skip_ruff, timings):
    """The real-ML corpus rows: floor, cold check (default threads, -j1), --select ALL -j1, peak
    memory and the peer, on the same file list."""
    files_txt = os.path.join(work, "ml_files.txt")
    count, size = corpus_files(floor, roots, files_txt)
    log("real-ML corpus: %d files, %.1f MB in %d repositories" % (count, size / 1e6, len(roots)))
    j = ["-j", str(threads)]
    check = [ptlint, "check", "--exit-zero", "--output-format", "concise"]
    if timings:
        timed = subprocess.run(check + ["--no-cache", "-j", "1"] + roots, cwd=work, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env=dict(os.environ, PTLINT_TIMINGS="1"))
        log("real-ML corpus, per-rule prefilter and check figures (PTLINT_TIMINGS=1, -j1):\n" + timed.stderr)
    m = {"files": count, "bytes": size, "repos": len(roots)}
    m["floor"] = hyperfine("ml_floor", [floor] + j + roots, runs, work)
    m["floor_j1"] = hyperfine("ml_floor_j1", [floor, "-j", "1"] + roots, runs, work)
    floor_je = same_allocator_floor(floor)
    if floor_je:
        m["floor_je_j1"] = hyperfine("ml_floor_je_j1", [floor_je, "-j", "1"] + roots, runs, work)
    m["cold"] = hyperfine("ml_cold", check + ["--no-cache"] + j + roots, runs, work)
    m["cold_j1"] = hyperfine("ml_cold_j1", check + ["--no-cache", "-j", "1"] + roots, runs, work)
    m["all_j1"] = hyperfine("ml_all_j1", check + ["--no-cache", "--select", "ALL", "-j", "1"] + roots, runs, work)
    m["peak_mib"] = peak_rss_mib(check + ["--no-cache"] + j + roots, min(3, runs), work)
    m["peak_all_mib"] = peak_rss_mib(check + ["--no-cache", "--select", "ALL"] + j + roots, min(3, runs), work)
    if not skip_ruff:
        m["ruff"] = ruff_peer(files_txt, runs)
    return m


def print_side_by_side(torch, ml, threads, note):
    """Debian's torch and the real-ML corpus, one row per measurement, one column pair each."""
    tj = "-j%d" % threads
    print("\nreal-ML corpus: %d files, %.1f MB in %d repositories (bench/ml_corpus.txt)%s\n" % (
        ml["files"], ml["bytes"] / 1e6, ml["repos"], "; " + note if note else ""))
    headers = ("measurement", "torch wall", "torch CPU", "real-ML wall", "real-ML CPU")

    def pair(f, key):
        return (fmt_s(f[key]["wall"]), fmt_s(f[key]["cpu"])) if key in f else ("-", "-")
    table = [
        ("1. floor, %s" % tj,) + pair(torch, "floor") + pair(ml, "floor"),
        ("1. floor, -j1",) + pair(torch, "floor_j1") + pair(ml, "floor_j1"),
        ("1. floor, -j1, on ptlint's allocator (jemalloc)",) + pair(torch, "floor_je_j1") + pair(ml, "floor_je_j1"),
        ("2. check --no-cache (cold), %s" % tj,) + pair(torch, "cold") + pair(ml, "cold"),
        ("2. check --no-cache, -j1",) + pair(torch, "cold_j1") + pair(ml, "cold_j1"),
        ("2. --select ALL --no-cache -j1",) + pair(torch, "all_j1") + pair(ml, "all_j1"),
        ("5. peak memory (cold, %s)" % tj, "%.0f MiB" % torch["peak_mib"], "", "%.0f MiB" % ml["peak_mib"], ""),
        ("5. peak memory, --select ALL", "%.0f MiB" % torch["peak_all_mib"], "", "%.0f MiB" % ml["peak_all_mib"], ""),
    ]
    tr, mr = torch.get("ruff"), ml.get("ruff")
    if tr or mr:
        table.append(("6. Ruff-WASM, in process, default rules",
                      fmt_s(tr["median"]) if tr else "-", fmt_s(tr["cpu_median"]) if tr else "-",
                      fmt_s(mr["median"]) if mr else "-", fmt_s(mr["cpu_median"]) if mr else "-"))

    def ratio(f, a, b, ruff=False):
        if ruff:
            if not f.get("ruff"):
                return "-", "-"
            return "%.2fx" % (f[a]["wall"] / f["ruff"]["median"]), "%.2fx" % (f[a]["cpu"] / f["ruff"]["cpu_median"])
        if a not in f or b not in f:
            return "-", "-"
        return "%.2fx" % (f[a]["wall"] / f[b]["wall"]), "%.2fx" % (f[a]["cpu"] / f[b]["cpu"])
    table.append(("ratio cold %s / floor %s" % (tj, tj),) + ratio(torch, "cold", "floor") + ratio(ml, "cold", "floor"))
    table.append(("ratio --select ALL -j1 / floor -j1",) + ratio(torch, "all_j1", "floor_j1") +
                 ratio(ml, "all_j1", "floor_j1"))
    table.append(("ratio --select ALL -j1 / floor -j1 on jemalloc",) + ratio(torch, "all_j1", "floor_je_j1") +
                 ratio(ml, "all_j1", "floor_je_j1"))
    table.append(("ratio cold %s / Ruff-WASM" % tj,) + ratio(torch, "cold", None, True) + ratio(ml, "cold", None, True))
    widths = [max(len(str(r[i])) for r in table + [headers]) for i in range(len(headers))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in table:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")
    met = lambda ok: "met" if ok else "NOT met"
    print()
    if mr:
        print("real-ML: cold %s / Ruff-WASM, wall %.2fx (target <= 0.5x): %s" % (
            tj, ml["cold"]["wall"] / mr["median"], met(ml["cold"]["wall"] <= 0.5 * mr["median"])))
    print("real-ML: --select ALL -j1 / floor -j1, CPU %.2fx (target <= 1.3x): %s" % (
        ml["all_j1"]["cpu"] / ml["floor_j1"]["cpu"], met(ml["all_j1"]["cpu"] <= 1.3 * ml["floor_j1"]["cpu"])))
    if "floor_je_j1" in ml:
        print("real-ML: --select ALL -j1 / floor -j1 on jemalloc too, CPU %.2fx" % (
            ml["all_j1"]["cpu"] / ml["floor_je_j1"]["cpu"]))
    print("real-ML: peak memory %.0f MB, --select ALL %.0f MB (target <= 200 MB): %s" % (
        ml["peak_mib"] * 1.048576, ml["peak_all_mib"] * 1.048576,
        met(max(ml["peak_mib"], ml["peak_all_mib"]) * 1.048576 <= 200)))


def fmt_s(seconds):
    if seconds != seconds:  # NaN
        return "-"
    return "%.0f ms" % (seconds * 1000) if seconds < 1 else "%.2f s" % seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="build folder holding ptlint and ptlint_parse_floor")
    parser.add_argument("--large", action="store_true", help="add torchvision, torchaudio and skorch")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--skip-lsp", action="store_true")
    parser.add_argument("--skip-ruff", action="store_true")
    parser.add_argument("--json", help="also write every figure to this file")
    parser.add_argument("--ml-corpus", metavar="DIR",
                        help="the real-ML corpus folder (default bench/ml-corpus/ when it is there; "
                             "bench/ml_corpus.sh materialises it)")
    parser.add_argument("--no-ml-corpus", action="store_true", help="measure Debian's torch only")
    parser.add_argument("--baseline-ptlint", help="another build's ptlint, measured side by side with this one")
    parser.add_argument("--baseline-rev", default="baseline", help="what --baseline-ptlint was built from")
    parser.add_argument("--baseline-only", action="store_true", help="print the side-by-side rows only")
    parser.add_argument("--timings", action="store_true",
                        help="first print PTLINT_TIMINGS' table for one -j1 check: what each rule's prefilter "
                             "lets through, what is parsed, each rule's check time")
    args = parser.parse_args()
    if args.baseline_only and not args.baseline_ptlint:
        parser.error("--baseline-only needs --baseline-ptlint (bench/run.sh --baseline REV)")

    ptlint = os.path.join(os.path.abspath(args.build), "ptlint")
    floor = os.path.join(os.path.abspath(args.build), "ptlint_parse_floor")
    roots = CORPUS + (LARGE if args.large else [])
    missing = [r for r in roots if not os.path.isdir(r)]
    if missing:
        sys.exit("bench: corpus missing: %s (run scripts/setup.sh)" % ", ".join(missing))
    runs, threads = max(1, args.runs), max(1, args.threads)
    ml_roots, ml_note = None, None
    if args.ml_corpus and args.no_ml_corpus:
        parser.error("--ml-corpus and --no-ml-corpus exclude each other")
    if args.ml_corpus:
        ml_roots, ml_note = ml_corpus_roots(os.path.abspath(args.ml_corpus))
        if ml_roots is None:
            sys.exit("bench: --ml-corpus %s: no repositories there (bench/ml_corpus.sh --from DIR fills it)"
                     % args.ml_corpus)
    elif not args.no_ml_corpus and not args.baseline_only:
        ml_roots, ml_note = ml_corpus_roots(ML_CORPUS)
        if ml_roots is None:
            log("real-ML corpus skipped: %s is absent (bench/ml_corpus.sh --from DIR-OF-CLONES "
                "materialises bench/ml_corpus.txt's pinned repositories there; nothing is downloaded)"
                % os.path.relpath(ML_CORPUS, os.getcwd()))
    if ml_note:
        log("real-ML corpus: " + ml_note)
    work = tempfile.mkdtemp(prefix="ptlint-bench-")
    load_before = open("/proc/loadavg").read().split()[0]
    figures = {}
    try:
        # The corpus exactly as `ptlint check` walks it.
        files_txt = os.path.join(work, "files.txt")
        with open(files_txt, "w") as f:
            subprocess.run([floor, "--list"] + roots, check=True, stdout=f)
        with open(files_txt) as f:
            files = [line.rstrip("\n") for line in f if line.strip()]
        corpus_bytes = sum(os.path.getsize(p) for p in files)
        log("corpus: %d files, %.1f MB" % (len(files), corpus_bytes / 1e6))

        j = ["-j", str(threads)]
        check = [ptlint, "check", "--exit-zero", "--output-format", "concise"]
        if args.timings:
            timed = subprocess.run(check + ["--no-cache", "-j", "1"] + roots, cwd=work, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True, env=dict(os.environ, PTLINT_TIMINGS="1"))
            log("per-rule prefilter and check figures (PTLINT_TIMINGS=1, -j1):\n" + timed.stderr)
        if args.baseline_ptlint:
            load_base = [open("/proc/loadavg").read().split()[0]]
            figures["baseline"] = baseline_rows(os.path.abspath(args.baseline_ptlint), ptlint, roots, threads, runs, work)
            figures["baseline"]["base_path"] = os.path.abspath(args.baseline_ptlint)
            load_base.append(open("/proc/loadavg").read().split()[0])
            figures["baseline"]["load"] = load_base
        if args.baseline_only:
            raise _BaselineOnly()
        figures["floor"] = hyperfine("floor", [floor] + j + roots, runs, work)
        figures["floor_j1"] = hyperfine("floor_j1", [floor, "-j", "1"] + roots, runs, work)
        floor_je = same_allocator_floor(floor)
        if floor_je:
            figures["floor_je_j1"] = hyperfine("floor_je_j1", [floor_je, "-j", "1"] + roots, runs, work)
        figures["cold"] = hyperfine("cold", check + ["--no-cache"] + j + roots, runs, work)
        figures["cold_j1"] = hyperfine("cold_j1", check + ["--no-cache", "-j", "1"] + roots, runs, work)
        figures["all_j1"] = hyperfine("all_j1", check + ["--no-cache", "--select", "ALL", "-j", "1"] + roots, runs, work)
        warm_dir = os.path.join(work, "warm")
        os.mkdir(warm_dir)
        figures["warm"] = hyperfine("warm", check + j + roots, runs, warm_dir, warmup=1)
        small = os.path.join(work, "train.py")
        with open(small, "w") as f:
            f.write(SMALL_FILE)
        figures["small"] = hyperfine("small", check + ["--no-cache", small], max(20, runs * 4), work, warmup=3)
        figures["peak_mib"] = peak_rss_mib(check + ["--no-cache"] + j + roots, min(3, runs), work)
        figures["peak_all_mib"] = peak_rss_mib(check + ["--no-cache", "--select", "ALL"] + j + roots, min(3, runs), work)
        if not args.skip_ruff:
            figures["ruff"] = ruff_peer(files_txt, runs)
        if not args.skip_lsp:
            lsp_json = os.path.join(work, "lsp.json")
            log("lsp: bench/lsp/lsp_latency.py")
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "lsp", "lsp_latency.py"), ptlint,
                            "--iterations", str(max(40, runs * 20)), "--json", lsp_json],
                           check=True, stdout=sys.stderr)
            with open(lsp_json) as f:
                figures["lsp"] = json.load(f)
        if ml_roots:
            figures["ml"] = measure_ml(ptlint, floor, ml_roots, threads, runs, work, args.skip_ruff, args.timings)
    except _BaselineOnly:
        pass
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_after = open("/proc/loadavg").read().split()[0]
    if args.baseline_only:
        print_baseline(figures["baseline"], args.baseline_rev, threads, figures["baseline"]["load"])
        if args.json:
            with open(args.json, "w") as out:
                json.dump({"files": len(files), "bytes": corpus_bytes, "threads": threads, "runs": runs,
                           "figures": figures}, out, indent=1)
        return

    f = figures
    rows = []

    def row(label, wall, cpu, target, met):
        rows.append((label, wall, cpu, target, "" if met is None else ("met" if met else "NOT met")))

    tj = "-j%d" % threads
    row("1. floor: read + parse every file, %s" % tj, fmt_s(f["floor"]["wall"]), fmt_s(f["floor"]["cpu"]), "", None)
    row("1. floor, -j1", fmt_s(f["floor_j1"]["wall"]), fmt_s(f["floor_j1"]["cpu"]), "", None)
    if "floor_je_j1" in f:
        row("1. floor, -j1, on ptlint's allocator (jemalloc)", fmt_s(f["floor_je_j1"]["wall"]),
            fmt_s(f["floor_je_j1"]["cpu"]), "", None)
    ruff = f.get("ruff")
    row("2. ptlint check --no-cache (cold), %s" % tj, fmt_s(f["cold"]["wall"]), fmt_s(f["cold"]["cpu"]),
        "< Ruff-WASM (6)", None if not ruff else f["cold"]["wall"] < ruff["median"])
    row("2. ptlint check --no-cache, -j1", fmt_s(f["cold_j1"]["wall"]), fmt_s(f["cold_j1"]["cpu"]), "", None)
    row("2. ptlint check, warm cache, %s" % tj, fmt_s(f["warm"]["wall"]), fmt_s(f["warm"]["cpu"]),
        "< 10% of cold", f["warm"]["wall"] < 0.1 * f["cold"]["wall"])
    row("2. --select ALL --no-cache -j1", fmt_s(f["all_j1"]["wall"]), fmt_s(f["all_j1"]["cpu"]),
        "<= 1.3x floor -j1", f["all_j1"]["cpu"] <= 1.3 * f["floor_j1"]["cpu"])
    row("3. one small file (%d lines), start to exit" % SMALL_FILE.count("\n"),
        "%.1f ms" % (f["small"]["wall"] * 1000), "%.1f ms" % (f["small"]["cpu"] * 1000), "< 10 ms",
        f["small"]["wall"] < 0.010)
    for label, lsp in f.get("lsp", {}).items():
        row("4. LSP didChange -> diagnostics, %s" % label,
            "%.1f ms (p95 %.1f)" % (lsp["median_ms"], lsp["p95_ms"]), "%.1f ms/edit" % lsp["cpu_ms_per_edit"],
            "<= %.0f ms" % lsp["target_ms"], lsp["median_ms"] <= lsp["target_ms"])
    row("5. peak memory of 2 (cold, %s)" % tj, "%.0f MiB" % f["peak_mib"], "", "< 200 MB", f["peak_mib"] * 1.048576 < 200)
    row("5. peak memory, --select ALL", "%.0f MiB" % f["peak_all_mib"], "", "< 200 MB", f["peak_all_mib"] * 1.048576 < 200)
    if ruff:
        row("6. Ruff-WASM %s, in process, default rules" % ruff["ruff"], fmt_s(ruff["median"]), fmt_s(ruff["cpu_median"]),
            "", None)

    headers = ("measurement", "wall (median)", "CPU (user+sys)", "target", "")
    widths = [max(len(str(r[i])) for r in rows + [headers]) for i in range(5)]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |"
    print("\nptlint benchmark: %d files, %.1f MB (%s); %d runs each; %d threads; load average %s -> %s\n" % (
        len(files), corpus_bytes / 1e6, ", ".join(os.path.basename(r) for r in roots), runs, threads,
        load_before, load_after))
    print(line)
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")
    print()
    print("ratio 2/1  (cold check / floor, %s):     wall %.2fx   CPU %.2fx" % (
        tj, f["cold"]["wall"] / f["floor"]["wall"], f["cold"]["cpu"] / f["floor"]["cpu"]))
    print("ratio ALL/1 (--select ALL -j1 / floor -j1): wall %.2fx   CPU %.2fx   (target <= 1.3x)" % (
        f["all_j1"]["wall"] / f["floor_j1"]["wall"], f["all_j1"]["cpu"] / f["floor_j1"]["cpu"]))
    if "floor_je_j1" in f:
        print("ratio ALL/1 on one allocator (floor on jemalloc too): wall %.2fx   CPU %.2fx" % (
            f["all_j1"]["wall"] / f["floor_je_j1"]["wall"], f["all_j1"]["cpu"] / f["floor_je_j1"]["cpu"]))
    if ruff:
        print("ratio 2/6  (cold check, whole process / Ruff-WASM in process): wall %.2fx   CPU %.2fx   (target < 1)" % (
            f["cold"]["wall"] / ruff["median"], f["cold"]["cpu"] / ruff["cpu_median"]))
    print("ratio warm/cold: wall %.1f%%   (target < 10%%)" % (100 * f["warm"]["wall"] / f["cold"]["wall"]))
    if "ml" in figures:
        print_side_by_side(figures, figures["ml"], threads, ml_note)
    if "baseline" in figures:
        print_baseline(figures["baseline"], args.baseline_rev, threads, figures["baseline"]["load"])
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"files": len(files), "bytes": corpus_bytes, "threads": threads, "runs": runs,
                       "load": [load_before, load_after], "figures": figures}, out, indent=1)


if __name__ == "__main__":
    main()
