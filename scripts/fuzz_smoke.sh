#!/usr/bin/env bash
# CI fuzz smoke: builds the libFuzzer targets (clang-14, ASan + UBSan) in build-fuzz/ and runs
# each for a short time on a scratch copy of its seed corpus. Any crash, leak, sanitizer report
# or broken invariant fails the script and leaves the input under build-fuzz/crashes/: commit
# it to fuzz/regressions/<target>/ with the fix (ctest replays that folder in the g++ build).
# Usage: scripts/fuzz_smoke.sh [SECONDS_PER_TARGET=20] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-20}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(analysis fix config jsonrpc lsp_session)
BUILD=${PTLINT_FUZZ_BUILD:-build-fuzz}
JOBS=${JOBS:-2}

if [ ! -f "$BUILD/build.ninja" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD" -G Ninja -DPTLINT_FUZZ=ON -DPTLINT_BUILD_TESTS=OFF \
    -DPTLINT_WITH_TORCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$BUILD" -j"$JOBS" --target $(printf 'fuzz_%s ' "${TARGETS[@]}") >/dev/null

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$BUILD/crashes"
status=0
for target in "${TARGETS[@]}"; do
  scratch=$(mktemp -d)
  cp -r "fuzz/corpus/$target/." "$scratch/" 2>/dev/null || true
  cp -r "fuzz/regressions/$target/." "$scratch/" 2>/dev/null || true
  dict=()
  case $target in analysis|fix) dict=(-dict=fuzz/python.dict) ;; esac
  log="$BUILD/crashes/$target.log"
  if "$BUILD/fuzz/fuzz_$target" "${dict[@]}" -max_total_time="$SECONDS_PER_TARGET" -timeout=20 -rss_limit_mb=3072 \
      -max_len=16384 -artifact_prefix="$BUILD/crashes/$target-" -print_final_stats=1 "$scratch" >"$log" 2>&1; then
    execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    echo "fuzz_$target: ok, ${execs:-?} executions in ${SECONDS_PER_TARGET}s"
  else
    echo "fuzz_$target: FAILED (log: $log)"
    grep -E 'ERROR|invariant|SUMMARY|Test unit written' "$log" | head -20 || true
    status=1
  fi
  rm -rf "$scratch"
done
exit $status
