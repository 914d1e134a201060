#!/usr/bin/env bash
# Builds what one rule's tests need and runs only those: its fixtures (every
# tests/fixtures/**/<CODE>*.py, findings and fixed golden), the unit tests naming the code, the
# registry checks and the generated-docs checks.
#   scripts/test_rule.sh PTL601 [build dir]        (default: build, configured as in README.md)
set -euo pipefail
cd "$(dirname "$0")/.."
code=${1:-}
build=${2:-build}
[[ "$code" =~ ^PTL[0-9]{3}$ ]] || { echo "usage: scripts/test_rule.sh PTLxxx [build dir]" >&2; exit 2; }
[[ -f "$build/build.ninja" || -f "$build/Makefile" ]] || {
  echo "error: $build is not configured (cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)" >&2; exit 2; }
cmake --build "$build" -j"${PTLINT_JOBS:-$(nproc)}" --target ptlint ptlint_unit_tests
# Fixture test names are the fixture's file name (FixtureTest.FindingsMatchExpectations/PTL601_x);
# other unit tests say the code in their name (RuleMessages.PTL601..., Ptl601Fix...).
filter="*${code}*:*Ptl${code:3}*:Registry.*"
"$build/tests/ptlint_unit_tests" --gtest_filter="$filter"
ctest --test-dir "$build" -R '^docs\.' --output-on-failure
