// PTL802 state-dict-of-wrapper: `torch.save(w.state_dict())` where `w` is a DDP, DataParallel or
// torch.compile wrapper, whose keys carry `module.` / `_orig_mod.`.
#include <string>

#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kStateDictOfWrapper{
    .code = "PTL802",
    .name = "state-dict-of-wrapper",
    .summary = "`torch.save` of a wrapper's `state_dict()`, whose keys carry `module.` or `_orig_mod.`",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Reports `torch.save(w.state_dict(), ...)`, directly or as a value of a dict (`{"model":
w.state_dict(), ...}`, `dict(model=w.state_dict())`), where `w` holds the result of
`torch.nn.parallel.DistributedDataParallel(...)`, `torch.nn.DataParallel(...)` or
`torch.compile(...)` (any import or alias): a name whose last binding before the save is that
call and is not under a condition the save is not under, or a `self.<attr>` the class binds to it
once.

## Why is this bad?
The wrappers hold the model as a submodule — `self.module` for DDP and DataParallel
(`torch/nn/parallel/distributed.py`, `data_parallel.py`), `self._orig_mod` for the
`OptimizedModule` that `torch.compile` returns (`torch/_dynamo/eval_frame.py`) — so every key of
their `state_dict()` starts with `module.` or `_orig_mod.` (PyTorch 1.13, 2.6 and 2.14). Loading
such a checkpoint into the plain model fails with "Missing key(s) in state_dict ... Unexpected
key(s) in state_dict: module.weight ...", and every consumer of the file has to strip the
prefix; a checkpoint saved from a compiled DDP model carries both.

## Example
```python
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

model = DDP(Net().cuda(), device_ids=[rank])
...
torch.save(model.state_dict(), "model.pt")
```

## Use instead
```python
torch.save(model.module.state_dict(), "model.pt")
```

## Fix safety
The fix saves the wrapped model's `state_dict()` (`w.module.state_dict()`,
`w._orig_mod.state_dict()`). It is unsafe: the keys written change, and code that loads the file
into a wrapped model, or strips the prefix itself, expects the old ones.

## Releases
`DistributedDataParallel.module` (`torch/nn/parallel/distributed.py`) in 1.13, 2.6 and 2.14; the
`_orig_mod.` prefix of `torch.compile` (`torch/_dynamo/eval_frame.py`) from 2.0 (2.6 and 2.14; no
`torch.compile` in 1.13).

## References
- [Saving and loading models: DataParallel models](https://docs.pytorch.org/tutorials/beginner/saving_loading_models.html#saving-torch-nn-dataparallel-models)
- [`torch/nn/parallel/distributed.py` (2.6)](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/nn/parallel/distributed.py)
- [`torch/_dynamo/eval_frame.py` (2.6), `OptimizedModule`](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/_dynamo/eval_frame.py)
)md"};

// ".module" or "._orig_mod" for a wrapping call, else empty.
std::string_view wrapperAttribute(const analysis::SemanticModel& model, TSNode value) {
  value = analysis::unparenthesize(value);
  if (!isKind(value, kind::call)) return {};
  auto callee = model.calleeName(value);
  if (!callee) return {};
  if (*callee == "torch.nn.parallel.DistributedDataParallel" || *callee == "torch.nn.DataParallel" ||
      *callee == "torch.nn.parallel.DataParallel" || *callee == "torch.nn.parallel.data_parallel.DataParallel")
    return "module";
  if (*callee == "torch.compile") return "_orig_mod";
  return {};
}

bool isConditionalBlock(TSNode block) {
  analysis::NodeKind kind = analysis::kindOf(ts_node_parent(block));
  return kind == kind::if_statement || kind == kind::elif_clause || kind == kind::else_clause || kind == kind::except_clause ||
         kind == kind::except_group_clause || kind == kind::while_statement || kind == kind::case_clause ||
         kind == kind::for_statement || kind == kind::with_statement || kind == kind::try_statement || kind == kind::finally_clause;
}

// True when every conditional block around `binding` (inside its function) also holds `use`.
bool holdsWheneverBound(TSNode binding, TSNode use) {
  for (TSNode up = ts_node_parent(binding); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (isCodeBoundary(up)) break;
    if (isKind(up, kind::block) && isConditionalBlock(up) && !analysis::contains(up, use)) {
      analysis::NodeKind kind = analysis::kindOf(ts_node_parent(up));
      // A `for`/`with`/`try` body runs when reached; only branches decide.
      if (kind != kind::for_statement && kind != kind::with_statement && kind != kind::try_statement && kind != kind::finally_clause)
        return false;
    }
  }
  return true;
}

// The attribute that reaches the wrapped model from `receiver`, or empty.
std::string_view wrappedBy(const analysis::SemanticModel& model, TSNode receiver) {
  if (isKind(receiver, kind::identifier)) {
    const analysis::Binding* binding = model.resolve(model.text(receiver), receiver);
    if (binding == nullptr || binding->kind != analysis::BindingKind::Assignment) return {};
    if (enclosingFunctionOrModule(binding->statement).id != enclosingFunctionOrModule(receiver).id) return {};
    if (analysis::startOf(binding->statement) > analysis::startOf(receiver)) return {};
    if (!holdsWheneverBound(binding->statement, receiver)) return {};
    return wrapperAttribute(model, binding->value);
  }
  if (isKind(receiver, kind::attribute) && isKind(fieldOf(receiver, "object"), kind::identifier)) {
    TSNode bound = selfAttributeValue(model, receiver);
    return ts_node_is_null(bound) ? std::string_view{} : wrapperAttribute(model, bound);
  }
  return {};
}

// `w.state_dict()` calls in what is saved: the object itself, or values of dicts in it.
void collectStateDictCalls(TSNode node, std::string_view source, std::vector<TSNode>& out, int depth) {
  node = analysis::unparenthesize(node);
  if (depth > 4 || ts_node_is_null(node)) return;
  if (isKind(node, kind::call)) {
    TSNode callee = fieldOf(node, "function");
    if (isKind(callee, kind::attribute) && analysis::textOf(fieldOf(callee, "attribute"), source) == "state_dict") {
      if (ts_node_named_child_count(argumentList(node)) == 0) out.push_back(node);
      return;
    }
    if (isKind(callee, kind::identifier) && analysis::textOf(callee, source) == "dict") {
      analysis::forEachNamedChild(argumentList(node), [&](TSNode argument) {
        if (isKind(argument, kind::keyword_argument)) collectStateDictCalls(fieldOf(argument, "value"), source, out, depth + 1);
      });
    }
    return;
  }
  if (isKind(node, kind::dictionary)) {
    analysis::forEachNamedChild(node, [&](TSNode pair) {
      if (isKind(pair, kind::pair)) collectStateDictCalls(fieldOf(pair, "value"), source, out, depth + 1);
    });
  }
}

class StateDictOfWrapper final : public Rule {
 public:
  const RuleMeta& meta() const override { return kStateDictOfWrapper; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override {
    return {.words = {"state_dict"},
            .whole_words = true,
            .also = {{"save"}},
            .code_names = {{"DistributedDataParallel", "DataParallel", "compile"}},
            .code_calls = {{{"save"}}, {{"state_dict", true}}},
            .tree_names = {{"DistributedDataParallel", "DataParallel", "compile"}},
            .tree_calls = {{"save"}, {"state_dict"}}};
  }

  void check(TSNode call, Context& ctx) const override {
    std::string_view source = ctx.source();
    TSNode callee = fieldOf(call, "function");
    std::string_view last = isKind(callee, kind::attribute) ? ctx.text(fieldOf(callee, "attribute")) : ctx.text(callee);
    if (last != "save") return;
    const auto& model = ctx.model();
    if (!model.refersTo(callee, "torch.save")) return;
    TSNode object = keywordArgument(call, "obj", source);
    if (ts_node_is_null(object)) {
      auto positional = positionalArguments(call);
      if (positional.empty()) return;
      object = positional[0];
    }
    std::vector<TSNode> calls;
    collectStateDictCalls(object, source, calls, 0);
    for (TSNode state_dict : calls) {
      TSNode receiver = fieldOf(fieldOf(state_dict, "function"), "object");
      std::string_view attribute = wrappedBy(model, receiver);
      if (attribute.empty()) continue;
      std::string_view prefix = attribute == "module" ? "module." : "_orig_mod.";
      Diagnostic& d = ctx.report(
          state_dict, fmt::format("`{}`'s `state_dict()` keys start with `{}`; save `{}.{}.state_dict()`",
                                  ctx.text(receiver), prefix, ctx.text(receiver), attribute));
      d.help = fmt::format("`{}` is a wrapper; the unwrapped model cannot load keys with that prefix.", ctx.text(receiver));
      d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, fmt::format("Save `{}.{}.state_dict()`", ctx.text(receiver), attribute),
                            {{analysis::endOf(receiver), analysis::endOf(receiver), fmt::format(".{}", attribute)}}};
    }
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL802, StateDictOfWrapper)

}  // namespace ptlint::rules
