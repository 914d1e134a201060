#!/usr/bin/env bash
# Configures and builds everything into build/ (incremental on a second run): ptlint, the tests,
# and ptlint-gpu when libtorch is found. A build/ that scripts/run_examples.sh configured for the
# linter alone is switched to the full build.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
if [[ ! -f build/build.ninja ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
elif grep -q '^PTLINT_BUILD_TESTS:BOOL=OFF$' build/CMakeCache.txt; then
  cmake -S . -B build -DPTLINT_BUILD_TESTS=ON -DPTLINT_WITH_TORCH=AUTO
fi
cmake --build build -j"$jobs"
