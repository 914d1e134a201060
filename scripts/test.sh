#!/usr/bin/env bash
# README command 2: set up, build, and run every test. `.ci/run` runs this same command.
#   scripts/test.sh             the whole suite (ctest) in build/
#   scripts/test.sh --sanitize  the unit, fixture, CLI, notebook and gpu_check client suites under
#                               ASan+UBSan in build-asan/ (clang-14; scripts/sanitized_build.sh)
#   scripts/test.sh --tsan      the LSP tests (but the front-end agreement test, which is about
#                               results, not threads) and the LSP fuzz replays under ThreadSanitizer in
#                               build-tsan/ (only the targets they need are built); any report fails
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
if [[ ${1:-} == --tsan ]]; then
  if [[ ! -f build-tsan/build.ninja ]]; then
    cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTLINT_TSAN=ON -DPTLINT_WITH_TORCH=OFF
  fi
  cmake --build build-tsan -j"$jobs" --target ptlint ptlint_lsp_unit_tests replay_jsonrpc replay_lsp_session
  # halt_on_error: a report kills the process, so the test that drove it fails. Smaller inputs
  # for the test whose size only matters for speed (TSan runs 5-15x slower).
  export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$PWD/tests/lsp/tsan.supp"
  export PTLINT_TEST_BIG_REPEAT=3000
  ctest --test-dir build-tsan -j"$jobs" --output-on-failure \
    -R '^(lsp\.|fuzz_replay\.(jsonrpc|lsp_session)$)' -E '^lsp\.(vscode_jsonrpc|gpu_check|agreement\..*)$'
  exit
fi
if [[ ${1:-} == --sanitize ]]; then
  scripts/sanitized_build.sh build-asan
  # Only what the `sanitize` tests run (the LSP suites run under ThreadSanitizer instead).
  cmake --build build-asan -j"$jobs" --target ptlint ptlint_unit_tests ptlint_gpu_tests
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  ctest --test-dir build-asan -j"$jobs" --output-on-failure -L sanitize
  exit
fi
scripts/build.sh
ctest --test-dir build -j"$jobs" --output-on-failure
