#!/usr/bin/env bash
# README command 1: set up, build, and lint the bundled examples/ project.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
echo
echo "== build/ptlint check examples/"
build/ptlint check --output-format full examples/ || rc=$?
# Exit 1 only means "findings remain", which is the point of the examples.
[[ ${rc:-0} -le 1 ]]
