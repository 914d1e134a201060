#!/usr/bin/env bash
# Regenerates docs/rules/ (one page per rule plus README.md, the index) and the rule table of the
# top-level README.md from the rule metadata of the built binary: run it after adding or changing
# a rule, and commit the result.
#   scripts/gen_rule_docs.sh [path/to/ptlint]        (default: build/ptlint)
# The ctests `docs.rules_up_to_date` and `docs.readme_rule_table` fail while they differ.
set -euo pipefail
cd "$(dirname "$0")/.."
ptlint=${1:-build/ptlint}
[ -x "$ptlint" ] || { echo "error: $ptlint is not built (run scripts/build.sh)" >&2; exit 2; }
cmake -DPTLINT="$ptlint" -DOUT="$PWD/docs/rules" -P cmake/GenerateRuleDocs.cmake
cmake -DPTLINT="$ptlint" -DREADME="$PWD/README.md" -P cmake/GenerateRuleTable.cmake
echo "docs/rules/: $(ls docs/rules | wc -l) files"
