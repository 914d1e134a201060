// PTL402 pin-memory-without-non-blocking: a blocking device copy of a batch from a
// `pin_memory=True` DataLoader.
#include <set>
#include <string>

#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "analysis/value_resolution.h"
#include "rules/all_rules.h"
#include "rules/amp/autocast_dtype.h"
#include "rules/common/blocks.h"
#include "rules/data/dataloader_args.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kPinMemoryWithoutNonBlocking{
    .code = "PTL402",
    .name = "pin-memory-without-non-blocking",
    .summary = "Blocking `.to(device)` of a batch from a `pin_memory=True` DataLoader",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Inside a `for` loop over a `torch.utils.data.DataLoader(..., pin_memory=True)` — the loader
itself or a name bound once to it, also through `enumerate(...)`, `zip(...)` and
`tqdm(...)` — reports `.to(device)` and `.cuda()` calls on the loop's batch (a loop variable,
an attribute or item of one, or a name the loop body unpacks from it: `x.to(device)`,
`batch["image"].cuda()`, `inputs, labels = data`, `{k: v.to(device) for k, v in batch.items()}`)
that do not pass `non_blocking=`. A `.to(torch.float16)` (a dtype, not a device) is not a copy to the device and
is not reported, nor is a loader whose `pin_memory` the analysis cannot resolve, nor a loader
held in an attribute (`self.loader`). The DataLoader is given as related information.

## Why is this bad?
`pin_memory=True` makes the loader put each batch in page-locked host memory, and the only
reason to do that is an asynchronous copy. PyTorch's CUDA notes ("Use pinned memory buffers"):
"Host to GPU copies are much faster when they originate from pinned (page-locked) memory. [...]
Once you pin a tensor or storage, you can use asynchronous GPU copies. Just pass an additional
`non_blocking=True` argument to a `to()` or a `cuda()` call. This can be used to overlap data
transfers with computation." Without it the host waits for every transfer before queuing the
next kernel, so the loader pays for pinning and the step gets none of the overlap.

## Example
```python
from torch.utils.data import DataLoader

loader = DataLoader(ds, batch_size=64, num_workers=8, pin_memory=True)
for x, y in loader:
    x, y = x.to(device), y.to(device)
    loss = loss_fn(model(x), y)
```

## Use instead
```python
for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    loss = loss_fn(model(x), y)
```

## Fix safety
The fix adds `non_blocking=True`. It is unsafe: the copy then returns before the data has
arrived; work queued on the same CUDA stream is ordered after it, but code that reads the
destination from the host or from another stream, or that modifies the pinned source while the
copy runs, needs an explicit synchronisation.

## Releases
`torch/utils/data/dataloader.py`: `pin_memory=False` by default in 1.13, 2.6 and 2.14; the premise
holds 1.13–2.14.

## References
- [CUDA semantics: use pinned memory buffers](https://pytorch.org/docs/stable/notes/cuda.html#use-pinned-memory-buffers)
- [A guide on good usage of `non_blocking` and `pin_memory()`](https://pytorch.org/tutorials/intermediate/pinmem_nonblock.html)
- [`torch.utils.data.DataLoader` (`pin_memory`)](https://pytorch.org/docs/stable/data.html#memory-pinning)
)md"};

// The identifier an expression is rooted in: `x` for `x`, `x.a`, `x["k"]`, `x[0].a`, and with
// `through_methods`, `x.items()` / `x.values()` too.
TSNode rootName(TSNode expr, bool through_methods = false) {
  expr = analysis::unparenthesize(expr);
  for (int hops = 0; hops < 16; ++hops) {
    if (isKind(expr, "attribute")) expr = analysis::unparenthesize(fieldOf(expr, "object"));
    else if (isKind(expr, "subscript")) expr = analysis::unparenthesize(fieldOf(expr, "value"));
    else if (through_methods && isKind(expr, "call") && isKind(fieldOf(expr, "function"), "attribute"))
      expr = analysis::unparenthesize(fieldOf(fieldOf(expr, "function"), "object"));
    else break;
  }
  return isKind(expr, "identifier") ? expr : TSNode{};
}

// Adds the names bound by `pattern` (an identifier, a tuple or list of them) to `names`.
void addBoundNames(TSNode pattern, std::string_view source, std::set<std::string_view>& names) {
  analysis::walkTree(
      pattern,
      [&](TSNode node) {
        if (isKind(node, "identifier")) names.insert(analysis::textOf(node, source));
        return !isKind(node, "attribute") && !isKind(node, "subscript");
      },
      [](TSNode) {});
}

// True when `value` is, or unpacks into, parts of the batch: `batch`, `batch["x"]`,
// `batch.items()`, `(batch[0], batch[1])`.
bool fromBatch(TSNode value, std::string_view source, const std::set<std::string_view>& names) {
  value = analysis::unparenthesize(value);
  if (isKind(value, "tuple") || isKind(value, "expression_list") || isKind(value, "list")) {
    bool all = ts_node_named_child_count(value) > 0;
    analysis::forEachNamedChild(value, [&](TSNode element) { all = all && fromBatch(element, source, names); });
    return all;
  }
  TSNode root = rootName(value, true);
  if (ts_node_is_null(root) || !names.count(analysis::textOf(root, source))) return false;
  // `batch.to(device)` is a copy already, not a part of the pinned batch.
  for (TSNode node = value; isKind(node, "call");) {
    std::string_view method = analysis::textOf(fieldOf(fieldOf(node, "function"), "attribute"), source);
    if (method != "items" && method != "values" && method != "get") return false;
    node = analysis::unparenthesize(fieldOf(fieldOf(node, "function"), "object"));
  }
  return true;
}

// `.to(...)` moves to a device unless its only target is a dtype.
bool movesToDevice(const analysis::SemanticModel& model, TSNode call, std::string_view method) {
  std::string_view source = model.file().text();
  if (method == "cuda") return true;
  if (!ts_node_is_null(keywordArgument(call, "device", source))) return true;
  auto positional = positionalArguments(call);
  if (positional.empty()) return false;
  TSNode first = analysis::resolveValue(model, positional[0]);
  if (amp::resolveDtype(model, first) != amp::DtypeKind::Unknown) return false;  // `torch.float16`, ...
  if (isKind(first, "string") || isKind(first, "identifier") || isKind(first, "attribute") || isKind(first, "integer"))
    return true;
  if (isKind(first, "call")) {
    auto callee = model.calleeName(first);
    return callee && *callee == "torch.device";
  }
  return false;
}

class PinMemoryWithoutNonBlocking final : public Rule {
 public:
  const RuleMeta& meta() const override { return kPinMemoryWithoutNonBlocking; }
  std::vector<std::string_view> nodeKinds() const override { return {"for_statement"}; }
  std::vector<std::string_view> triggers() const override { return {"DataLoader"}; }
  std::vector<std::string_view> requiredWords() const override { return {"pin_memory", "True"}; }
  bool triggersAreWholeWords() const override { return true; }
  bool mayReportIn(const analysis::ParsedFile& file, const Settings&) const override {
    // `pin_memory=True` (or a name bound to `True`), and a `.to(` or `.cuda(` call.
    std::string_view text = file.text();
    return (analysis::findBytes(text, ".to(") != std::string_view::npos ||
            analysis::findBytes(text, ".cuda(") != std::string_view::npos) &&
           namesIdentifier(file, "pin_memory") && namesIdentifier(file, "DataLoader");
  }

  void check(TSNode loop, Context& ctx) const override {
    const auto& model = ctx.model();
    std::string_view source = ctx.source();
    TSNode loader = data::dataLoaderOfIterable(model, fieldOf(loop, "right"));
    if (ts_node_is_null(loader)) return;
    TSNode pin = data::dataLoaderArgument(loader, "pin_memory", source);
    if (boolValue(model, pin) != true) return;

    std::set<std::string_view> targets;
    addBoundNames(fieldOf(loop, "left"), source, targets);
    if (targets.empty()) return;

    TSNode body = fieldOf(loop, "body");
    if (ts_node_is_null(body)) return;
    analysis::walkTree(
        body,
        [&](TSNode node) {
          if (isCodeBoundary(node) || isKind(node, "string") || isKind(node, "comment")) return false;
          // Names that take parts of the batch: `x, y = batch`, `for k, v in batch.items()`,
          // `{k: v.to(device) for k, v in batch.items()}`.
          if (isKind(node, "assignment") && fromBatch(fieldOf(node, "right"), source, targets))
            addBoundNames(fieldOf(node, "left"), source, targets);
          if (isKind(node, "for_statement") && fromBatch(fieldOf(node, "right"), source, targets))
            addBoundNames(fieldOf(node, "left"), source, targets);
          // A comprehension's `for` clauses come after its body in the tree: bind them first.
          if (isKind(node, "list_comprehension") || isKind(node, "dictionary_comprehension") ||
              isKind(node, "set_comprehension") || isKind(node, "generator_expression")) {
            analysis::forEachNamedChild(node, [&](TSNode clause) {
              if (isKind(clause, "for_in_clause") && fromBatch(fieldOf(clause, "right"), source, targets))
                addBoundNames(fieldOf(clause, "left"), source, targets);
            });
          }
          if (isKind(node, "call")) checkCopy(ctx, node, loader, targets);
          return true;
        },
        [](TSNode) {});
  }

 private:
  static void checkCopy(Context& ctx, TSNode call, TSNode loader, const std::set<std::string_view>& targets) {
    const auto& model = ctx.model();
    std::string_view source = ctx.source();
    std::string_view method = methodName(call, source);
    if (method != "to" && method != "cuda") return;
    TSNode receiver = rootName(fieldOf(fieldOf(call, "function"), "object"));
    if (ts_node_is_null(receiver) || !targets.count(ctx.text(receiver))) return;
    // The name must still be the loop's: not rebound to something else that the loop also names.
    if (!ts_node_is_null(keywordArgumentNode(call, "non_blocking", source)) || hasDoubleStarArguments(call)) return;
    if (method == "cuda" && positionalArguments(call).size() >= 2) return;  // cuda(device, non_blocking)
    if (method == "to" && positionalArguments(call).size() >= 2) {
      // to(device, dtype, non_blocking) / to(other, non_blocking): a third positional or a bool.
      auto positional = positionalArguments(call);
      if (positional.size() >= 3 || boolValue(model, positional[1]).has_value()) return;
    }
    if (!movesToDevice(model, call, method)) return;
    Diagnostic& d = ctx.report(
        call, fmt::format("`.{}()` of a batch from a `pin_memory=True` DataLoader without `non_blocking=True` copies "
                          "synchronously: the host waits for each transfer and the overlap that pinning enables is "
                          "lost; pass `non_blocking=True`",
                          method));
    TSNode pin = data::dataLoaderArgument(loader, "pin_memory", source);
    d.related.push_back({analysis::startOf(loader), analysis::endOf(loader),
                         ts_node_is_null(pin) ? "the DataLoader" : "the DataLoader pins its batches here"});
    if (ts_node_is_null(argumentList(call))) return;
    quickfix::Fix fix;
    fix.applicability = quickfix::Applicability::Unsafe;
    fix.message = "Add `non_blocking=True`";
    fix.edits.push_back(appendArgument(call, "non_blocking=True", source));
    d.fix = std::move(fix);
  }
};

}  // namespace

const Rule& pinMemoryWithoutNonBlockingRule() {
  static const PinMemoryWithoutNonBlocking rule;
  return rule;
}

}  // namespace ptlint::rules
