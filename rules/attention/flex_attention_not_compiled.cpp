// PTL603 flex-attention-not-compiled: a call of `flex_attention` that no `torch.compile` reaches
// in the project, so it runs PyTorch's unfused eager implementation.
#include <fmt/format.h>

#include "analysis/compiled_regions.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/compile/compiled_region_rule.h"

namespace ptlint::rules {
namespace {

using analysis::BindingKind;
using analysis::fieldOf;
using analysis::isKind;
using analysis::unparenthesize;

constexpr std::string_view kFlexAttention = "torch.nn.attention.flex_attention.flex_attention";

constexpr RuleMeta kFlexAttentionNotCompiled{
    .code = "PTL603",
    .name = "flex-attention-not-compiled",
    .summary = "`flex_attention` called where no `torch.compile` reaches it",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.5",
    .docs = R"md(
## What it does
Reports a call of `torch.nn.attention.flex_attention.flex_attention` (any import or alias:
`from torch.nn.attention.flex_attention import flex_attention as fa`, `import
torch.nn.attention.flex_attention as fx; fx.flex_attention(...)`) that no `torch.compile` of the
project reaches. The rule looks at the whole project (the folder holding `pyproject.toml`,
`setup.py`, `setup.cfg` or `.git` above the file) and counts every way code gets compiled:

- the function holding the call is compiled (`@torch.compile`, `torch.compile(fn)`), or is
  called from compiled code, in the same file or in another one;
- it is the `forward` of a module compiled anywhere in the project (`torch.compile(model)`,
  `model.compile()`), or of a submodule such a `forward` reaches through `self.<attr>(...)`,
  `nn.ModuleList`, `nn.Sequential` or `nn.ModuleDict`;
- the name called is not torch's eager function but a compiled one
  (`flex_attention = torch.compile(flex_attention)`, `compiled_flex = torch.compile(flex_attention,
  dynamic=False)`, a `functools.partial` of either).

Nothing is reported when the project may compile the call in a way the analysis cannot follow:
a `torch.compile` of a model built by a factory or passed in as a parameter, compiled code that
calls a parameter or a submodule bound to such a value, a call inside a nested function or a
lambda, or a function that is passed around as a value. A call under
`@torch.compiler.disable` / `@torch._dynamo.disable` is reported: it runs eagerly. Files checked
without their project (standard input) are not reported.

## Why is this bad?
`flex_attention` only becomes a fused attention kernel when `torch.compile` traces it. Called
eagerly it computes the attention with an unfused implementation that materialises the whole
`(L, S)` score matrix for every head — the memory and time of hand-written attention, the
opposite of what FlexAttention is used for. Recent PyTorch says so at run time: "flex_attention
called without torch.compile() - this will use an unfused implementation that materializes the
full scores matrix instead of generating a fused kernel" (`torch/nn/attention/flex_attention.py`).

## Example
```python
from torch.nn.attention.flex_attention import flex_attention


class Attention(nn.Module):
    def forward(self, q, k, v, block_mask):
        return flex_attention(q, k, v, block_mask=block_mask)


model = Attention()  # never compiled
```

## Use instead
```python
from torch.nn.attention.flex_attention import flex_attention

flex_attention = torch.compile(flex_attention, dynamic=False)


class Attention(nn.Module):
    def forward(self, q, k, v, block_mask):
        return flex_attention(q, k, v, block_mask=block_mask)
```
Compiling the model that calls it (`model = torch.compile(model)`) works as well.

## Fix safety
There is no fix: where to compile (the function, the model, once at import) is the project's choice.

## Releases
`torch/nn/attention/flex_attention.py`: `flex_attention` in 2.6 and 2.14, not in 1.13 (2.5's):
reported where the range starts at 2.5 or later.

## References
- [`torch.nn.attention.flex_attention` (PyTorch 2.5+)](https://docs.pytorch.org/docs/stable/nn.attention.flex_attention.html)
- [FlexAttention: the flexibility of PyTorch with the performance of FlashAttention](https://pytorch.org/blog/flexattention/)
- [`torch/nn/attention/flex_attention.py`: the eager fallback and its warning](https://github.com/pytorch/pytorch/blob/main/torch/nn/attention/flex_attention.py)
)md"};

// Is every binding of the name `ident` refers to an import (no `flex_attention =
// torch.compile(flex_attention)` anywhere in its scope)?
bool onlyImported(const analysis::SemanticModel& model, TSNode ident) {
  std::string_view name = model.text(ident);
  const analysis::Binding* b = model.resolve(name, ident);
  if (b == nullptr || b->scope == nullptr) return false;
  const auto* all = model.bindingsOf(*b->scope, name);
  if (all == nullptr) return false;
  for (const analysis::Binding* c : *all)
    if (c->kind != BindingKind::Import) return false;
  return true;
}

// The def whose body holds `node` when it is a top-level function or a method of a top-level
// class; null at module level; `nested` when it is inside a nested def, a lambda or a class in a
// function (code that may be handed to anything).
TSNode enclosingDef(TSNode node, bool& nested) {
  nested = false;
  TSNode def{};
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    analysis::NodeKind kind = analysis::kindOf(n);
    if (kind == kind::lambda) nested = true;
    if (kind == kind::function_definition) {
      if (!ts_node_is_null(def)) nested = true;
      def = n;
    }
    if (kind == kind::class_definition && !ts_node_is_null(def)) {
      // A method: its class must be top level.
      for (TSNode up = ts_node_parent(n); !ts_node_is_null(up); up = ts_node_parent(up))
        if (isKind(up, kind::function_definition) || isKind(up, kind::class_definition)) nested = true;
      return def;
    }
  }
  return def;
}

// Is the function `def` only ever called by name in this file (never read as a value, never
// wrapped by a decorator that is not torch's)?
bool onlyCalled(const analysis::SemanticModel& model, TSNode def) {
  TSNode holder = ts_node_parent(def);
  bool plain = true;
  if (isKind(holder, kind::decorated_definition))
    analysis::forEachNamedChild(holder, [&](TSNode child) {
      if (!isKind(child, kind::decorator) || ts_node_named_child_count(child) == 0) return;
      TSNode expr = unparenthesize(ts_node_named_child(child, 0));
      TSNode callee = isKind(expr, kind::call) ? unparenthesize(fieldOf(expr, "function")) : expr;
      std::string_view text = model.text(callee);
      auto q = model.qualifiedName(callee);
      if (!(q && q->starts_with("torch.")) && text != "staticmethod" && text != "classmethod") plain = false;
    });
  if (!plain) return false;
  TSNode name_node = fieldOf(def, "name");
  std::string_view name = model.text(name_node);
  std::string_view source = model.file().text();
  TSNode root = model.file().root();
  return !analysis::forEachWholeWord(source, name, [&](size_t at) {
    TSNode n = ts_node_descendant_for_byte_range(root, static_cast<uint32_t>(at),
                                                  static_cast<uint32_t>(at + name.size()));
    if (!isKind(n, kind::identifier) || analysis::sameNode(n, name_node)) return false;
    TSNode parent = ts_node_parent(n);
    TSNode use = n;
    if (isKind(parent, kind::attribute) && analysis::sameNode(fieldOf(parent, "attribute"), n)) {
      use = parent;  // `self.name`, `Cls.name`
      parent = ts_node_parent(parent);
    } else if (isKind(parent, kind::attribute) || isKind(parent, kind::keyword_argument) || isKind(parent, kind::import_from_statement) ||
               isKind(parent, kind::dotted_name) || isKind(parent, kind::aliased_import)) {
      return false;  // `name.x` reads something else; `f(name=...)` names a parameter
    }
    if (isKind(parent, kind::call) && analysis::sameNode(fieldOf(parent, "function"), use)) return false;
    return true;  // read as a value: passed, stored, returned
  });
}

class FlexAttentionNotCompiled final : public Rule {
 public:
  const RuleMeta& meta() const override { return kFlexAttentionNotCompiled; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override {
    return {.words = {"flex_attention"}, .whole_words = true, .project_words = {"flex_attention"}};
  }
  bool mayReport(const PrefilterInput& input, const Settings& settings) const override {
    return input.parsed == nullptr || judgedHere(settings);
  }

  // Only with the project's facts, and only when every compile in it is understood.
  static bool judgedHere(const Settings& settings) {
    const auto& facts = settings.project;
    return settings.torch_version.atLeast(2, 5) && facts != nullptr && facts->project != nullptr &&
           facts->project->linked && !facts->project->compiles_unknown;
  }

  void check(TSNode call, Context& ctx) const override {
    if (!judgedHere(ctx.settings())) return;
    const auto& model = ctx.model();
    auto callee_name = model.calleeName(call);
    if (!callee_name || *callee_name != kFlexAttention) return;
    // The name must be torch's function and nothing else in its scope.
    TSNode callee = unparenthesize(fieldOf(call, "function"));
    TSNode head = callee;
    while (isKind(head, kind::attribute)) head = unparenthesize(fieldOf(head, "object"));
    if (!isKind(head, kind::identifier) || !onlyImported(model, head)) return;

    if (compiledFunctionAt(call, model, ctx.settings()) != nullptr) return;
    bool nested = false;
    TSNode def = enclosingDef(call, nested);
    if (nested) return;
    if (!ts_node_is_null(def) && !onlyCalled(model, def)) return;

    ctx.report(call, ts_node_is_null(def)
                         ? std::string("`flex_attention` runs eagerly (unfused); call `torch.compile(flex_attention)` instead")
                         : fmt::format("`flex_attention` in `{}` is never compiled; compile the caller or "
                                       "`flex_attention` itself",
                                       model.text(fieldOf(def, "name"))));
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL603, FlexAttentionNotCompiled)

}  // namespace ptlint::rules
