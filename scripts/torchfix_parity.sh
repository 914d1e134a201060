#!/usr/bin/env bash
# Compare ptlint's deprecated-API findings with TorchFix's on the same code.
#
#   scripts/torchfix_parity.sh TORCHFIX_SRC PATH... [-- EXTRA PTLINT FLAGS]
#
# TORCHFIX_SRC is a TorchFix source checkout (https://github.com/pytorch-labs/torchfix; needs
# `libcst` for the Python that runs it). TorchFix runs from that folder with `--select ALL`;
# ptlint (PTLINT, default build/ptlint) runs with `--select ALL --torch-version 2.5` (2.5: every
# deprecation TorchFix knows is in force there, and `torch.load` still defaults to
# `weights_only=False`). Each TorchFix code is mapped to the ptlint code that reports the same
# thing (the table is in the Python part below). A TorchFix finding counts as matched when ptlint
# reports the mapped code on the same line of the same file (or on a range that holds that line).
#
# Prints per TorchFix code: TorchFix findings, matched, recall, and the ptlint findings of the
# mapped codes that TorchFix lacks (to be read and judged by hand; they are written to
# $PARITY_OUT/extra.txt, the unmatched TorchFix findings to $PARITY_OUT/missed.txt).
# TORCHFIX_RESULTS=FILE reuses TorchFix's output of an earlier run instead of running it again.
# With PARITY_FIXES=1 it also copies every file where TorchFix offers a fix, applies ptlint's
# fixes (`--fix --unsafe-fixes`, mapped codes only) and checks that the result still compiles.
#
# Exit status: 0 when every mapped TorchFix finding has a ptlint counterpart (and every fixed
# file compiles), 1 otherwise, 2 on a usage error. A tool for measuring, not a CI test: TorchFix
# is not installed in CI.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
TORCHFIX_SRC=$(cd "$1" && pwd)
shift
paths=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  paths+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")")
  shift
done
[[ "${1:-}" == "--" ]] && shift
extra_flags=("$@")

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PTLINT=${PTLINT:-$ROOT/build/ptlint}
PYTHON=${PYTHON:-python3}
OUT=${PARITY_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
[[ -x "$PTLINT" ]] || { echo "no ptlint binary at $PTLINT (set PTLINT)" >&2; exit 2; }
[[ -f "$TORCHFIX_SRC/torchfix/__main__.py" ]] || { echo "$TORCHFIX_SRC is not a TorchFix checkout" >&2; exit 2; }

: > "$OUT/torchfix.txt"
if [[ -n "${TORCHFIX_RESULTS:-}" ]]; then
  # TorchFix's output from an earlier run (`path:row:col: TORnnn ...`, paths relative to /).
  sed 's|^/*|/|' "$TORCHFIX_RESULTS" > "$OUT/torchfix.txt"
  paths_to_run=()
else
  paths_to_run=("${paths[@]}")
fi
for p in "${paths_to_run[@]}"; do
  # TorchFix prints paths relative to its working folder: run it from / and put the / back.
  (cd / && PYTHONPATH="$TORCHFIX_SRC" "$PYTHON" -m torchfix --select ALL -j "${TORCHFIX_JOBS:-1}" "${p#/}" 2>/dev/null || true) |
    grep -E '^[^ ]+:[0-9]+:[0-9]+: TOR[0-9]+' | sed 's|^|/|' >> "$OUT/torchfix.txt" || true
done

# An empty configuration: the projects' own settings (excludes, ignores) must not hide findings.
: > "$OUT/empty.toml"
"$PTLINT" check --no-cache --exit-zero --quiet --config "$OUT/empty.toml" --select ALL --torch-version 2.5 \
  --output-format json-lines "${extra_flags[@]}" "${paths[@]}" > "$OUT/ptlint.jsonl" || true

PARITY_FIXES=${PARITY_FIXES:-0} PTLINT="$PTLINT" "$PYTHON" - "$OUT" <<'PY'
import collections, json, os, py_compile, re, shutil, subprocess, sys, tempfile

out = sys.argv[1]

# TorchFix code -> ptlint code. `None`: no ptlint counterpart by design (reason beside it).
def mapped(code, message):
    if code in ("TOR001", "TOR004", "TOR101", "TOR103"):
        # TorchFix lists torch.cuda.amp / torch.cpu.amp among its deprecated functions;
        # ptlint reports those with its own rule.
        return "PTL101" if re.search(r"torch\.(cuda|cpu)\.amp\.", message) else "PTL106"
    return {
        "TOR002": "PTL107",
        "TOR003": "PTL108",
        "TOR102": "PTL801",
        "TOR106": "PTL704", "TOR107": "PTL704", "TOR108": "PTL704",
        "TOR201": "PTL109",
        "TOR202": "PTL110",
        "TOR401": "PTL405",
        "TOR104": None,  # private alias of default_collate/default_convert: not deprecated
        "TOR105": None,
        "TOR203": None,  # import style (`import torchvision.models as models`)
        "TOR402": None,  # zero_grad(set_to_none=False): the default is None since torch 2.0
        "TOR901": None,  # internal to the pytorch/pytorch repository
    }.get(code)

tf = []
for line in open(os.path.join(out, "torchfix.txt")):
    m = re.match(r"^(.+?):(\d+):(\d+): (TOR\d+) (\[\*\] )?(.*)$", line.rstrip("\n"))
    if m:
        path, row, col, code, fixable, msg = m.groups()
        tf.append((os.path.normpath(path), int(row), code, bool(fixable), msg))

pt = collections.defaultdict(list)  # (file, code) -> [(row, end_row, message)]
for line in open(os.path.join(out, "ptlint.jsonl")):
    line = line.strip()
    if not line:
        continue
    d = json.loads(line)
    if d.get("cell") is not None:
        continue
    pt[(os.path.normpath(d["filename"]), d["code"])].append(
        (d["location"]["row"], d["end_location"]["row"], d["message"]))

stats = collections.OrderedDict()
used = set()
missed = []
fix_files = collections.defaultdict(set)
for path, row, code, fixable, msg in sorted(tf, key=lambda t: (t[2], t[0], t[1])):
    target = mapped(code, msg)
    s = stats.setdefault(code, {"target": set(), "n": 0, "hit": 0})
    s["n"] += 1
    if target is None:
        continue
    s["target"].add(target)
    if fixable:
        fix_files[path].add(target)
    cands = pt.get((path, target), [])
    hit = [c for c in cands if c[0] == row] or [c for c in cands if c[0] <= row <= c[1]]
    if hit:
        s["hit"] += 1
        for c in hit:
            used.add((path, target, c[0], c[2]))
    else:
        missed.append(f"{path}:{row}: {code} ({target}) {msg}")

targets = set()
for s in stats.values():
    targets |= s["target"]
extra = collections.defaultdict(list)
for (path, code), items in sorted(pt.items()):
    if code not in targets:
        continue
    for row, end_row, msg in items:
        if (path, code, row, msg) not in used:
            extra[code].append(f"{path}:{row}: {code} {msg}")

print(f"{'TorchFix':8} {'ptlint':13} {'found':>6} {'matched':>7} {'recall':>6}")
failed = False
for code in sorted(stats):
    s = stats[code]
    tgt = ",".join(sorted(s["target"])) or "-"
    if not s["target"]:
        print(f"{code:8} {tgt:13} {s['n']:6} {'-':>7} {'n/a':>6}")
        continue
    rec = s["hit"] / s["n"] if s["n"] else 1.0
    failed |= s["hit"] < s["n"]
    print(f"{code:8} {tgt:13} {s['n']:6} {s['hit']:7} {rec:6.3f}")
print()
print("ptlint findings without a TorchFix counterpart (judge each by hand):")
for code in sorted(targets):
    print(f"  {code}: {len(extra.get(code, []))}")
with open(os.path.join(out, "missed.txt"), "w") as f:
    f.write("\n".join(missed) + ("\n" if missed else ""))
with open(os.path.join(out, "extra.txt"), "w") as f:
    for code in sorted(extra):
        f.write("\n".join(extra[code]) + "\n")
print(f"\nunmatched TorchFix findings: {out}/missed.txt ({len(missed)}); ptlint extras: {out}/extra.txt")

if os.environ.get("PARITY_FIXES") == "1":
    ptlint = os.environ["PTLINT"]
    bad = []
    work = tempfile.mkdtemp(prefix="parity-fix-")
    for i, (path, codes) in enumerate(sorted(fix_files.items())):
        if not os.path.isfile(path):
            continue
        dst = os.path.join(work, f"{i}_{os.path.basename(path)}")
        shutil.copyfile(path, dst)
        try:
            py_compile.compile(dst, doraise=True)
        except py_compile.PyCompileError:
            continue  # did not compile before: nothing to compare
        subprocess.run([ptlint, "check", "--no-cache", "--exit-zero", "--quiet", "--config",
                        os.path.join(out, "empty.toml"), "--select", ",".join(sorted(codes)),
                        "--torch-version", "2.5", "--fix", "--unsafe-fixes", dst],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            py_compile.compile(dst, doraise=True)
        except py_compile.PyCompileError as e:
            bad.append(f"{path}: {e.msg.strip().splitlines()[-1]}")
    print(f"\nfixed files that no longer compile: {len(bad)} of {len(fix_files)}")
    for b in bad:
        print("  " + b)
    failed |= bool(bad)

sys.exit(1 if failed else 0)
PY
