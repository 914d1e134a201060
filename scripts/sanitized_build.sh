#!/usr/bin/env bash
# Configures build-asan/ (or $1): clang-14, RelWithDebInfo, every library under ASan + UBSan and
# libFuzzer's coverage instrumentation (-DPTLINT_FUZZ=ON). One build serves both the
# sanitizer test run (scripts/test.sh --sanitize) and the fuzz smoke (scripts/fuzz_smoke.sh),
# so CI compiles the sources under sanitizers once. A folder configured otherwise (another
# compiler, no fuzz instrumentation) is configured afresh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-asan}
if [[ -f $build/CMakeCache.txt ]] && ! grep -q '^PTLINT_FUZZ:BOOL=ON$' "$build/CMakeCache.txt"; then
  echo "$build: configured without -DPTLINT_FUZZ=ON; configuring it again with clang-14" >&2
  rm -rf "$build"
fi
if [[ ! -f $build/build.ninja ]]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPTLINT_FUZZ=ON -DPTLINT_BUILD_TESTS=ON -DPTLINT_WITH_TORCH=OFF >/dev/null
fi
