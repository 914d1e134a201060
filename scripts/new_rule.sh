#!/usr/bin/env bash
# Scaffolds a rule: rules/<area>/<name>.cpp (metadata, documentation, a working matcher to
# replace, PTLINT_REGISTER_RULE), its fixture tests/fixtures/<area>/<CODE>.py with the fixed
# golden, then builds, regenerates docs/rules/ and the README table, and runs the rule's tests.
#   scripts/new_rule.sh PTL123 my-rule-name area [--no-build]
# <area> is a folder of rules/ (amp, attention, autograd, compile, data, deprecated, distributed,
# numerics, serialization, vision) or a new one. The scaffold reports `torch.scaffold_old(...)`
# and renames it to `torch.scaffold_new`: replace that with the real rule (CONTRIBUTING.md).
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: scripts/new_rule.sh PTLxxx kebab-case-name area [--no-build]" >&2; exit 2; }
[[ $# -ge 3 ]] || usage
code=$1 name=$2 area=$3 build=1
[[ ${4:-} == --no-build ]] && build=0
[[ "$code" =~ ^PTL[1-8][0-9]{2}$ ]] || { echo "error: $code: a code is PTL followed by three digits (PTL101-PTL899)" >&2; exit 2; }
[[ "$name" =~ ^[a-z][a-z0-9]*(-[a-z0-9]+)*$ ]] || { echo "error: $name: the name is kebab-case (hand-rolled-attention)" >&2; exit 2; }
[[ "$area" =~ ^[a-z][a-z0-9_]*$ && "$area" != common && "$area" != noqa ]] || { echo "error: $area: not a rule area" >&2; exit 2; }
if grep -rqs "^PTLINT_REGISTER_RULE($code," rules/; then
  echo "error: $code is already registered: $(grep -rls "^PTLINT_REGISTER_RULE($code," rules/)" >&2; exit 2
fi
if grep -rqs "\.name = \"$name\"" rules/; then echo "error: a rule is already named $name" >&2; exit 2; fi
snake=${name//-/_}
class=$(sed -E 's/(^|-)([a-z])/\U\2/g' <<<"$name")
source="rules/$area/$snake.cpp"
fixture="tests/fixtures/$area/$code.py"
for f in "$source" "$fixture" "$fixture.fixed"; do
  [[ ! -e $f ]] || { echo "error: $f exists" >&2; exit 2; }
done
mkdir -p "rules/$area" "tests/fixtures/$area"

cat > "$source" <<CPP
// $code $name: TODO one line on what it reports.
#include "analysis/syntax.h"
#include "rules/register.h"

namespace ptlint::rules {
namespace {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::startOf;

constexpr RuleMeta k$class{
    .code = "$code",
    .name = "$name",
    .summary = "TODO: \`torch.scaffold_old\` is deprecated; use \`torch.scaffold_new\`",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "",
    .docs = R"md(
## What it does
TODO: reports calls of \`torch.scaffold_old\`, through any import or alias.

## Why is this bad?
TODO: what goes wrong, citing PyTorch's documentation or source at the releases concerned.

## Example
\`\`\`python
import torch

y = torch.scaffold_old(x)
\`\`\`

## Use instead
\`\`\`python
import torch

y = torch.scaffold_new(x)
\`\`\`

## Fix safety
TODO: why the fix is safe (same behaviour) or unsafe (what may change).

## References
- [TODO: PyTorch documentation](https://docs.pytorch.org/docs/stable/)
)md"};

class $class final : public Rule {
 public:
  const RuleMeta& meta() const override { return k$class; }
  // The node kinds check() is called with (tree-sitter-python's names).
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // A file none of whose bytes spell one of these words is never parsed for this rule: every
  // finding must spell one of them (rules/prefilter.h lists the other conditions it can declare).
  Prefilter prefilter() const override { return {.words = {"scaffold_old"}, .whole_words = true}; }

  void check(TSNode call, Context& ctx) const override {
    TSNode function = fieldOf(call, "function");
    // Ask the semantic model what the callee is, never the text: \`from torch import
    // scaffold_old as f; f(x)\` is found, \`other.scaffold_old(x)\` is not.
    if (!ctx.model().refersTo(function, "torch.scaffold_old")) return;
    Diagnostic& d = ctx.report(function, "\`torch.scaffold_old\` is deprecated; use \`torch.scaffold_new\`");
    if (!isKind(function, kind::attribute)) return;  // an imported alias: no fix
    TSNode attribute = fieldOf(function, "attribute");
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Use \`torch.scaffold_new\`",
                          {{startOf(attribute), endOf(attribute), "scaffold_new"}}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE($code, $class)

}  // namespace ptlint::rules
CPP

cat > "$fixture" <<PY
# $code $name: each line a finding starts on says so at its end; nothing else may be
# reported (tests/unit/fixture_test.cpp has the comment syntax and the header options).
import torch
from torch import scaffold_old as old

y = torch.scaffold_old(1)  # expect: $code
z = old(2)  # expect: $code
w = other.scaffold_old(3)  # not torch's
s = "torch.scaffold_old(4)"
PY
sed 's/y = torch.scaffold_old(1)/y = torch.scaffold_new(1)/' "$fixture" > "$fixture.fixed"

echo "created $source"
echo "created $fixture and $fixture.fixed"
if [[ $build == 1 ]]; then
  [[ -f build/build.ninja ]] || cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cmake --build build -j"${PTLINT_JOBS:-$(nproc)}" --target ptlint ptlint_unit_tests
  scripts/gen_rule_docs.sh build/ptlint
  scripts/test_rule.sh "$code"
  echo "next: replace the TODOs and the matcher, then scripts/test_rule.sh $code (CONTRIBUTING.md)"
fi
