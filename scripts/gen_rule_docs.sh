#!/usr/bin/env bash
# Regenerates docs/rules/ (one page per rule plus README.md, the index) from the rule metadata
# of the built binary: run it after adding or changing a rule, and commit the result.
#   scripts/gen_rule_docs.sh [path/to/ptlint]        (default: build/ptlint)
# The ctest `docs.rules_up_to_date` fails while docs/rules/ differs from what this writes.
set -euo pipefail
cd "$(dirname "$0")/.."
ptlint=${1:-build/ptlint}
[ -x "$ptlint" ] || { echo "error: $ptlint is not built (run scripts/build.sh)" >&2; exit 2; }
cmake -DPTLINT="$ptlint" -DOUT="$PWD/docs/rules" -P cmake/GenerateRuleDocs.cmake
echo "docs/rules/: $(ls docs/rules | wc -l) files"
