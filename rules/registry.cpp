#include "rules/registry.h"

#include <algorithm>
#include <array>

#include "ptlint/version.h"
#include "rules/noqa/unused_noqa.h"

namespace ptlint::rules {

// The accessors PTLINT_REGISTER_RULE defines, one per rule file.
#define PTLINT_RULE(CODE) const Rule& registeredRule_##CODE();
#include "rules/rule_list.inc"
#undef PTLINT_RULE

namespace {

constexpr RuleMeta kSyntaxError{
    .code = "PTL000",
    .name = "syntax-error",
    .summary = "The file does not parse as Python",
    .fix = FixAvailability::None,
    .severity = Severity::Error,
    .enabled_by_default = false,
    .since_torch = "",
    .docs = R"md(
## What it does
Reports the first syntax error in a file, at the first node the parser could not place.

## Why is this bad?
A file that does not parse cannot be checked: every other rule works on the syntax tree, and no
fix is ever applied to a file with a syntax error (a fix could not be shown to keep the file valid).

## Example
```python
def train(model:
    ...
```

## Use instead
```python
def train(model):
    ...
```

## Fix safety
There is no fix.

## Limits
The parser is tree-sitter's Python grammar, not CPython's, with the valid constructs that grammar
misses handled apart: starred operands in expression lists (`return a, *(x for x in y)`,
`d[*(i, j)]`, `a, *(b, c) = seq`), type-parameter defaults (`def f[T = int]()`, Python 3.13),
format specs starting with `=` (`f"{x:=^10}"`), a dotted name broken across lines inside
brackets, and carriage-return line endings. Valid code it still reports:
- an annotation that subscripts or calls a subscripted bare name, e.g. `x: A[b][c]` or
  `def f(a: A[b](c))` (write `x: "A[b][c]"`, or alias `A[b]` first);
- a type-parameter default that is a `not` expression (`def f[T = not x]()`);
- Python 3.14's template strings (`t"..."`).

Errors that CPython finds after parsing (`return` outside a function, `yield` or `:=` in a
type-parameter default, an invalid assignment target such as `f() = 1`) are not reported.

## Releases
No PyTorch premise: a file ptlint cannot parse is reported at every release.

## References
- [Python language reference: full grammar](https://docs.python.org/3/reference/grammar.html)
)md"};

// The table: every PTLINT_REGISTER_RULE of rules/<area>/*.cpp (rules/register.h), listed by
// cmake/CollectRules.cmake in code order.
const std::vector<const Rule*>& table() {
  static const std::vector<const Rule*> rules = [] {
    std::vector<const Rule*> all{
#define PTLINT_RULE(CODE) &registeredRule_##CODE(),
#include "rules/rule_list.inc"
#undef PTLINT_RULE
    };
    std::sort(all.begin(), all.end(), [](const Rule* a, const Rule* b) { return a->meta().code < b->meta().code; });
    return all;
  }();
  return rules;
}

}  // namespace

std::span<const Rule* const> allRules() { return table(); }

const Rule* findRule(std::string_view code) {
  for (const Rule* rule : table())
    if (rule->meta().code == code) return rule;
  return nullptr;
}

const RuleMeta& syntaxErrorMeta() { return kSyntaxError; }

std::vector<const RuleMeta*> allMetas() {
  std::vector<const RuleMeta*> metas{&kSyntaxError, &unusedNoqaMeta()};
  for (const Rule* rule : table()) metas.push_back(&rule->meta());
  std::sort(metas.begin(), metas.end(), [](const RuleMeta* a, const RuleMeta* b) { return a->code < b->code; });
  return metas;
}

const RuleMeta* findMeta(std::string_view code) {
  if (code == kSyntaxError.code) return &kSyntaxError;
  if (code == unusedNoqaMeta().code) return &unusedNoqaMeta();
  const Rule* rule = findRule(code);
  return rule ? &rule->meta() : nullptr;
}

// Where the project is published (SARIF's tool information).
constexpr std::string_view kProjectUrl = "https://github.com/ptlint/ptlint";

namespace {
// Set once at start-up, before any thread (setLocalRuleDocs).
std::string& localRuleDocs() {
  static std::string folder_uri;
  return folder_uri;
}
}  // namespace

std::string projectUrl() { return std::string(kProjectUrl); }

void setLocalRuleDocs(std::string folder_uri) { localRuleDocs() = std::move(folder_uri); }

std::string ruleDocsUrl(std::string_view code) {
  // A public documentation URL configured at build time wins: `{code}` is replaced, or the page
  // is <URL>/<CODE>.md.
  std::string base = kDocsUrl;
  if (!base.empty()) {
    if (size_t at = base.find("{code}"); at != std::string::npos) return base.replace(at, 6, code);
    if (!base.ends_with('/')) base += '/';
    return base + std::string(code) + ".md";
  }
  if (localRuleDocs().empty()) return {};
  return localRuleDocs() + "/" + std::string(code) + ".md";
}

}  // namespace ptlint::rules
