#!/usr/bin/env bash
# README command 1: install the build dependencies, build only the `ptlint` executable (no tests,
# no benchmarks, no libtorch module), and lint the bundled examples/ project. Setting up and
# building print nothing unless they fail (their output goes to build/run_examples.log), so the
# findings are the first thing shown. A second run is quick: nothing is installed or rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
log=build/run_examples.log
: >"$log"
quiet() { "$@" >>"$log" 2>&1 || { cat "$log" >&2; echo "error: \`$*\` failed (log: $log)" >&2; exit 2; }; }
quiet scripts/setup.sh --minimal
if [[ ! -f build/build.ninja ]]; then
  quiet cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTLINT_BUILD_TESTS=OFF -DPTLINT_WITH_TORCH=OFF
fi
quiet cmake --build build -j"$(nproc)" --target ptlint
build/ptlint check --output-format full examples/ || rc=$?
# Exit 1 only means "findings remain", which is the point of the examples.
[[ ${rc:-0} -le 1 ]]
