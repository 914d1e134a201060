#!/usr/bin/env bash
# scripts/new_rule.sh in a scratch copy: it writes a registered rule, a fixture with expectations
# and a golden, refuses a code already taken, and the rule it writes compiles against the
# current rules/rule.h (so a change of the Rule interface cannot leave the scaffold behind).
# Usage: new_rule_scaffold.sh <repo root> <C++ compiler> <include dir>...
set -euo pipefail
repo=$1; cxx=$2; shift 2
includes=()
for dir in "$@"; do [[ -n $dir ]] && includes+=("-I$dir"); done
work=$(mktemp -d "${TMPDIR:-/tmp}/ptlint-new-rule.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scripts" "$work/tests/fixtures"
cp "$repo/scripts/new_rule.sh" "$work/scripts/"
cp -r "$repo/rules" "$work/rules"
cd "$work"
# A code and a name no rule of the tree has (a rule being scaffolded there may hold PTL899).
for n in $(seq 899 -1 800); do
  grep -rqs "^PTLINT_REGISTER_RULE(PTL$n," rules/ || { code=PTL$n; break; }
done
name=scaffold-selftest-${code,,}
scripts/new_rule.sh "$code" "$name" numerics --no-build >/dev/null
source=rules/numerics/${name//-/_}.cpp fixture=tests/fixtures/numerics/$code.py
for f in "$source" "$fixture" "$fixture.fixed"; do
  [[ -s $f ]] || { echo "FAIL: new_rule.sh wrote no $f"; exit 1; }
done
grep -qx "PTLINT_REGISTER_RULE($code, ScaffoldSelftestPtl${code:3})" "$source" || { echo "FAIL: $source is not registered"; exit 1; }
[[ $(grep -c "# expect: $code\$" "$fixture") == 2 ]] || { echo "FAIL: $fixture lacks its expectations"; exit 1; }
cmp -s "$fixture" "$fixture.fixed" && { echo "FAIL: the golden equals the fixture"; exit 1; }
if scripts/new_rule.sh PTL101 another-rule numerics --no-build 2>/dev/null; then
  echo "FAIL: new_rule.sh accepted PTL101, which is taken"; exit 1
fi
if scripts/new_rule.sh PTL800 "$name" numerics --no-build 2>/dev/null; then
  echo "FAIL: new_rule.sh accepted a name that is taken"; exit 1
fi
"$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Werror -Wno-missing-field-initializers \
  -I"$repo" "${includes[@]}" "$source"
echo "PASS: new_rule.sh wrote a registered rule that compiles, its fixture and its golden"
