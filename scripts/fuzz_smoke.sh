#!/usr/bin/env bash
# CI fuzz smoke: builds the libFuzzer targets (clang-14, ASan + UBSan) in build-asan/, the build
# scripts/test.sh --sanitize uses (scripts/sanitized_build.sh), and runs each for a short time on
# a scratch copy of its seed corpus. Any crash, leak, sanitizer report or broken invariant fails
# the script and leaves the input under build-asan/crashes/: commit
# it to fuzz/regressions/<target>/ with the fix (ctest replays that folder in the g++ build).
# Usage: scripts/fuzz_smoke.sh [SECONDS_PER_TARGET=20] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-20}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(analysis fix config jsonrpc lsp_session project watch_events)
BUILD=${PTLINT_FUZZ_BUILD:-build-asan}
JOBS=${JOBS:-2}

scripts/sanitized_build.sh "$BUILD"
# Quiet when it builds; the compiler's messages when it does not.
if ! cmake --build "$BUILD" -j"$JOBS" --target $(printf 'fuzz_%s ' "${TARGETS[@]}") >"$BUILD/fuzz_build.log" 2>&1; then
  grep -E -A5 'error|FAILED' "$BUILD/fuzz_build.log" | head -60
  echo "fuzz targets: build FAILED (log: $BUILD/fuzz_build.log)"
  exit 1
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$BUILD/crashes"
status=0
for target in "${TARGETS[@]}"; do
  scratch=$(mktemp -d)
  cp -r "fuzz/corpus/$target/." "$scratch/" 2>/dev/null || true
  cp -r "fuzz/regressions/$target/." "$scratch/" 2>/dev/null || true
  dict=()
  case $target in analysis|fix) dict=(-dict=fuzz/python.dict) ;; jsonrpc) dict=(-dict=fuzz/jsonrpc.dict) ;; esac
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
