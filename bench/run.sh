#!/usr/bin/env bash
# ptlint's benchmark suite, one command: builds ptlint and the parse-only floor (Release, in
# build-bench/), installs the peer (Ruff's WASM build, pinned by bench/ruff/package-lock.json),
# then measures and prints one table (see docs/performance.md).
#
# usage: bench/run.sh [--large] [--runs N] [--threads N] [--skip-lsp] [--skip-ruff] [--json OUT]
#   --large        add torchvision, torchaudio and skorch to the corpus
#   --runs N       timed runs per measurement (medians are reported; default 5)
#   --threads N    threads for ptlint and the floor (default: the machine's cores)
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

# The peer, exactly as locked (integrity-checked by npm ci).
ruff_dir="$root/bench/ruff"
if [[ ! -f "$ruff_dir/node_modules/@astral-sh/ruff-wasm-nodejs/package.json" ]] ||
   [[ "$ruff_dir/package-lock.json" -nt "$ruff_dir/node_modules/.package-lock.json" ]]; then
  echo "bench: npm ci in bench/ruff" >&2
  (cd "$ruff_dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

exec python3 "$root/bench/bench.py" --build "$build" "$@"
