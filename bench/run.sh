#!/usr/bin/env bash
# ptlint's benchmark suite, one command: builds ptlint and the parse-only floor (Release, in
# build-bench/), installs the peer (Ruff's WASM build, pinned by bench/ruff/package-lock.json),
# then measures and prints one table (see docs/performance.md).
#
# usage: bench/run.sh [--large] [--runs N] [--threads N] [--skip-lsp] [--skip-ruff] [--json OUT]
#                    [--baseline REV] [--timings] [--ml-corpus DIR | --no-ml-corpus]
#   --large        add torchvision, torchaudio and skorch to the corpus
#   --runs N       timed runs per measurement (medians are reported; default 5)
#   --threads N    threads for ptlint and the floor (default: the machine's cores)
#   --baseline REV also build REV's ptlint (Release, in build-bench-base/: a git worktree of REV
#                  in src/, its build in build/) and print side-by-side rows, the two binaries
#                  alternating run by run: cold default threads, cold -j1, warm cache, warm cache
#                  with one file edited before each run
#   --timings      first print the per-rule table of PTLINT_TIMINGS=1 (files and bytes each
#                  rule's prefilter lets through, what is parsed, each rule's check time)
#   --ml-corpus DIR  also measure the real-ML corpus in DIR (default: bench/ml-corpus/ when it is
#                  there; bench/ml_corpus.sh materialises it from local clones) and print it
#                  beside Debian's torch; --no-ml-corpus measures torch only
# Environment: PTLINT_BENCH_BUILD_DIR reuses another build folder (it must have been configured
# with -DPTLINT_BUILD_BENCH=ON); JOBS sets the build's parallelism (default 2).
# Needs: scripts/setup.sh (cmake, ninja, hyperfine, node/npm, python3-torch, /usr/bin/time).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PTLINT_BENCH_BUILD_DIR:-$root/build-bench}"
jobs="${JOBS:-2}"

for tool in cmake ninja hyperfine node npm python3; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing; run scripts/setup.sh" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "bench: /usr/bin/time is missing; run scripts/setup.sh" >&2; exit 2; }

if [[ -z "${PTLINT_BENCH_BUILD_DIR:-}" ]]; then
  echo "bench: building ptlint (Release) in $build" >&2
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTLINT_BUILD_BENCH=ON \
    -DPTLINT_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$build" --target ptlint ptlint_parse_floor -j "$jobs" >&2

# --baseline REV: REV's ptlint, built from a worktree of its own.
baseline_args=()
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --baseline)
      [[ $# -ge 2 ]] || { echo "bench: --baseline needs a revision" >&2; exit 2; }
      rev="$(git -C "$root" rev-parse --verify "$2^{commit}")" ||
        { echo "bench: unknown revision $2" >&2; exit 2; }
      base="$root/build-bench-base"
      if [[ ! -e "$base/src/.git" ]]; then
        mkdir -p "$base"
        git -C "$root" worktree add --detach "$base/src" "$rev" >&2
      else
        git -C "$base/src" checkout --quiet --detach "$rev" >&2
      fi
      echo "bench: building the baseline $2 (Release) in $base/build" >&2
      cmake -S "$base/src" -B "$base/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPTLINT_BUILD_TESTS=OFF >/dev/null
      cmake --build "$base/build" --target ptlint -j "$jobs" >&2
      baseline_args=(--baseline-ptlint "$base/build/ptlint" --baseline-rev "$2")
      shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
set -- "${args[@]+"${args[@]}"}" "${baseline_args[@]+"${baseline_args[@]}"}"

# The peer, exactly as locked (integrity-checked by npm ci).
ruff_dir="$root/bench/ruff"
if [[ ! -f "$ruff_dir/node_modules/@astral-sh/ruff-wasm-nodejs/package.json" ]] ||
   [[ "$ruff_dir/package-lock.json" -nt "$ruff_dir/node_modules/.package-lock.json" ]]; then
  echo "bench: npm ci in bench/ruff" >&2
  (cd "$ruff_dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

exec python3 "$root/bench/bench.py" --build "$build" "$@"
