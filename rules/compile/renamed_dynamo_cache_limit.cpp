// PTL103 renamed-dynamo-cache-limit: Dynamo's `cache_size_limit` settings under their old names.
#include <array>

#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::startOf;

constexpr RuleMeta kRenamedDynamoCacheLimit{
    .code = "PTL103",
    .name = "renamed-dynamo-cache-limit",
    .summary = "Dynamo's `cache_size_limit` settings are renamed `recompile_limit`",
    .fix = FixAvailability::Always,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .deprecated_tag = true,
    .since_torch = "2.7",
    .docs = R"md(
## What it does
When the configured `torch-version` is 2.7 or later, reports
`torch._dynamo.config.cache_size_limit` and `torch._dynamo.config.accumulated_cache_size_limit`
(through any import or alias of the config module) read or assigned, and given to
`torch._dynamo.config.patch(...)` as a keyword, as a string key or in a dict.

## Why is this bad?
PyTorch 2.7 renamed the settings `recompile_limit` and `accumulated_recompile_limit`: what they
limit is the number of recompilations of one frame, not a cache size. The old names remain as
deprecated aliases. With a `torch-version` of 2.6 or older the new names do not exist, and
using them fails: Dynamo's config module rejects unknown names, so
`torch._dynamo.config.recompile_limit = 16` raises
`AttributeError: torch._dynamo.config.recompile_limit does not exist` there (PyTorch 2.6,
`torch/utils/_config_module.py`, `ConfigModule.__setattr__`); the rule is silent.

## Example
```python
torch._dynamo.config.cache_size_limit = 16
with torch._dynamo.config.patch(accumulated_cache_size_limit=512):
    ...
```

## Use instead
```python
torch._dynamo.config.recompile_limit = 16
with torch._dynamo.config.patch(accumulated_recompile_limit=512):
    ...
```

## Fix safety
The fix renames the setting and is safe: both names refer to the same configuration value.

## Releases
`torch/_dynamo/config.py`: 2.14 defines `recompile_limit` / `accumulated_recompile_limit` and
keeps the old names as aliases; 2.6 has only `cache_size_limit` / `accumulated_cache_size_limit`
(renamed in 2.7). Reported, and fixed, only where the range starts at 2.7 or later; 1.13 has no
`torch._dynamo`.

## References
- [torch/_dynamo/config.py](https://github.com/pytorch/pytorch/blob/main/torch/_dynamo/config.py)
- [torch/utils/_config_module.py (2.6)](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/utils/_config_module.py): unknown names raise `AttributeError`
- [torch.compile troubleshooting: recompilations](https://pytorch.org/docs/stable/torch.compiler_troubleshooting.html)
)md"};

constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kRenames{{
    {"cache_size_limit", "recompile_limit"},
    {"accumulated_cache_size_limit", "accumulated_recompile_limit"},
}};

std::string_view newName(std::string_view old) {
  for (auto [from, to] : kRenames)
    if (from == old) return to;
  return {};
}

// A string literal's content, or empty for anything else (f-strings, concatenations).
std::string_view stringContent(TSNode node, std::string_view source) {
  if (!isKind(node, kind::string)) return {};
  std::string_view text = analysis::textOf(node, source);
  if (text.size() < 2 || (text[0] != '"' && text[0] != '\'') || text.front() != text.back()) return {};
  return text.substr(1, text.size() - 2);
}

class RenamedDynamoCacheLimit final : public Rule {
 public:
  const RuleMeta& meta() const override { return kRenamedDynamoCacheLimit; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::attribute, kind::call}; }
  Prefilter prefilter() const override {
    return {.words = {"cache_size_limit"}, .floor_at_least = TorchVersion{2, 7}};
  }

  void check(TSNode node, Context& ctx) const override {
    if (!ctx.torchAtLeast(2, 7)) return;
    std::string_view source = ctx.source();
    if (isKind(node, kind::attribute)) {
      TSNode name = fieldOf(node, "attribute");
      std::string_view replacement = newName(ctx.text(name));
      if (replacement.empty() || !ctx.model().refersTo(fieldOf(node, "object"), "torch._dynamo.config")) return;
      report(name, node, ctx.text(name), replacement, ctx);
      return;
    }
    TSNode callee = fieldOf(node, "function");
    if (!isKind(callee, kind::attribute) || ctx.text(fieldOf(callee, "attribute")) != "patch") return;
    if (!ctx.model().refersTo(fieldOf(callee, "object"), "torch._dynamo.config")) return;
    TSNode args = argumentList(node);
    if (ts_node_is_null(args)) return;
    analysis::forEachNamedChild(args, [&](TSNode arg) {
      if (isKind(arg, kind::keyword_argument)) {
        TSNode name = fieldOf(arg, "name");
        std::string_view replacement = newName(ctx.text(name));
        if (!replacement.empty()) report(name, arg, ctx.text(name), replacement, ctx);
      } else if (isKind(arg, kind::string)) {
        reportString(arg, source, ctx);  // patch("cache_size_limit", 16)
      } else if (isKind(arg, kind::dictionary)) {
        analysis::forEachNamedChild(arg, [&](TSNode pair) {
          if (isKind(pair, kind::pair)) reportString(fieldOf(pair, "key"), source, ctx);
        });
      }
    });
  }

 private:
  static void report(TSNode name, TSNode range, std::string_view old, std::string_view replacement, Context& ctx) {
    Diagnostic& d = ctx.report(range, "`" + std::string(old) + "` is a deprecated alias; use `" + std::string(replacement) +
                                          "`" + versions::judgedFor(ctx.settings()));
    d.help = "Renamed in PyTorch 2.7.";
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Use `" + std::string(replacement) + "` instead of `" + std::string(old) + "`",
                          {{startOf(name), endOf(name), std::string(replacement)}}};
  }
  static void reportString(TSNode string, std::string_view source, Context& ctx) {
    std::string_view content = stringContent(string, source);
    std::string_view replacement = newName(content);
    if (replacement.empty()) return;
    Diagnostic& d = ctx.report(string, "`" + std::string(content) + "` is a deprecated alias; use `" + std::string(replacement) +
                                           "`" + versions::judgedFor(ctx.settings()));
    d.help = "Renamed in PyTorch 2.7.";
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Use `" + std::string(replacement) + "` instead of `" + std::string(content) + "`",
                          {{startOf(string) + 1, endOf(string) - 1, std::string(replacement)}}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL103, RenamedDynamoCacheLimit)

}  // namespace ptlint::rules
