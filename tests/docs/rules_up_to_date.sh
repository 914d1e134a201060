#!/usr/bin/env bash
# docs/rules/ must be exactly what the rule metadata of the built binary generates.
# Usage: rules_up_to_date.sh <ptlint executable> <repo root> <GenerateRuleDocs.cmake>
set -euo pipefail
ptlint=$1; repo=$2; generator=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/ptlint-rule-docs.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake -DPTLINT="$ptlint" -DOUT="$work/rules" -P "$generator" >/dev/null
if ! diff -ru "$repo/docs/rules" "$work/rules"; then
  echo "FAIL: docs/rules/ is out of date with the rules; run scripts/gen_rule_docs.sh and commit the result"
  exit 1
fi
echo "PASS: docs/rules/ matches $(ls "$work/rules" | wc -l) generated pages"
