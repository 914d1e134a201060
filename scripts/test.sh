#!/usr/bin/env bash
# README command 2: set up, build, and run every test. `.ci/run` runs this same command.
#   scripts/test.sh             the whole suite (ctest) in build/
#   scripts/test.sh --sanitize  the unit/fixture/CLI suites under ASan+UBSan in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
if [[ ${1:-} == --sanitize ]]; then
  if [[ ! -f build-asan/build.ninja ]]; then
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPTLINT_SANITIZE=ON -DPTLINT_WITH_TORCH=OFF
  fi
  cmake --build build-asan -j"$jobs"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  ctest --test-dir build-asan -j"$jobs" --output-on-failure -L sanitize
  exit
fi
scripts/build.sh
ctest --test-dir build -j"$jobs" --output-on-failure
