// PTL402 pin-memory-without-non-blocking: a blocking device copy of a batch from a
// `pin_memory=True` DataLoader.
#include <set>
#include <string>

#include "analysis/code_text.h"
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"
#include "analysis/value_flow.h"
#include "analysis/value_resolution.h"
#include "rules/register.h"
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
that do not pass `non_blocking=`. The target is judged on every value it may hold where the
call stands: `device = "cuda" if torch.cuda.is_available() else "cpu"`, a device returned by a
function of the file (`device = infer_device()`) or of another file of the project
(`from utils import get_device`, read in its own file), `self.device` assigned in another method,
`accelerator.device` are devices; a target that is only ever `"cpu"` (or `"meta"`,
`torch.device("cpu")`) is no host-to-device copy and is not reported, nor is a dtype
(`.to(torch.float16)`), nor a batch name that already holds a `.to()` / `.cuda()` copy where it
is read (`x = x.cuda(non_blocking=True)` then `x.to(device)`), nor a loader whose `pin_memory`
the analysis cannot resolve. The loader may be reached by value flow: a function of the file that
returns it, a parameter the file's calls pass it to, an attribute (`self.loader`) set in any
method of the class, also from a parameter of `__init__` that the file's `Trainer(model, loader)`
calls pass. A batch taken with `batch = next(it)` from `it = iter(loader)` is followed through
the rest of its function. The DataLoader is given as related information.

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
    if (isKind(expr, kind::attribute)) expr = analysis::unparenthesize(fieldOf(expr, "object"));
    else if (isKind(expr, kind::subscript)) expr = analysis::unparenthesize(fieldOf(expr, "value"));
    else if (through_methods && isKind(expr, kind::call) && isKind(fieldOf(expr, "function"), kind::attribute))
      expr = analysis::unparenthesize(fieldOf(fieldOf(expr, "function"), "object"));
    else break;
  }
  return isKind(expr, kind::identifier) ? expr : TSNode{};
}

// Adds the names bound by `pattern` (an identifier, a tuple or list of them) to `names`.
void addBoundNames(TSNode pattern, std::string_view source, std::set<std::string_view>& names) {
  analysis::walkTree(
      pattern,
      [&](TSNode node) {
        if (isKind(node, kind::identifier)) names.insert(analysis::textOf(node, source));
        return !isKind(node, kind::attribute) && !isKind(node, kind::subscript);
      },
      [](TSNode) {});
}

// True when `value` is, or unpacks into, parts of the batch: `batch`, `batch["x"]`,
// `batch.items()`, `(batch[0], batch[1])`.
bool fromBatch(TSNode value, std::string_view source, const std::set<std::string_view>& names) {
  value = analysis::unparenthesize(value);
  if (isKind(value, kind::tuple) || isKind(value, kind::expression_list) || isKind(value, kind::list)) {
    bool all = ts_node_named_child_count(value) > 0;
    analysis::forEachNamedChild(value, [&](TSNode element) { all = all && fromBatch(element, source, names); });
    return all;
  }
  TSNode root = rootName(value, true);
  if (ts_node_is_null(root) || !names.count(analysis::textOf(root, source))) return false;
  // `batch.to(device)` is a copy already, not a part of the pinned batch.
  for (TSNode node = value; isKind(node, kind::call);) {
    std::string_view method = analysis::textOf(fieldOf(fieldOf(node, "function"), "attribute"), source);
    if (method != "items" && method != "values" && method != "get") return false;
    node = analysis::unparenthesize(fieldOf(fieldOf(node, "function"), "object"));
  }
  return true;
}

// What a `.to()` target may be, value by value.
enum class Target { Device, Host, Dtype, Opaque };

Target classifyTarget(const analysis::SemanticModel& asking, const analysis::FlowValue& value, int depth = 0) {
  if (value.kind != analysis::FlowValue::Kind::Expression) return Target::Device;  // `for dev in devices`
  const analysis::SemanticModel& model = value.in(asking);  // a helper's return: its own file
  TSNode node = value.node;
  std::string_view source = model.file().text();
  if (amp::resolveDtype(model, node) != amp::DtypeKind::Unknown) return Target::Dtype;  // `torch.float16`, ...
  if (isKind(node, kind::string)) {
    // "cpu" and "meta" are no host-to-device copy; an f-string is judged by its leading text.
    std::string_view text = analysis::textOf(node, source);
    size_t quote = text.find_first_of("\"'");
    std::string_view body = quote == std::string_view::npos ? text : text.substr(quote + 1);
    while (!body.empty() && (body.front() == '"' || body.front() == '\'')) body.remove_prefix(1);
    return body.starts_with("cpu") || body.starts_with("meta") ? Target::Host : Target::Device;
  }
  if (isKind(node, kind::integer)) return Target::Device;
  if (isKind(node, kind::identifier) || isKind(node, kind::attribute)) return Target::Device;
  if (isKind(node, kind::call)) {
    auto callee = model.calleeName(node);
    if (!callee || *callee != "torch.device") return Target::Opaque;
    TSNode type = analysis::argumentFor(node, 0, "type", source);
    if (ts_node_is_null(type)) return Target::Opaque;
    if (depth > 2) return Target::Device;
    auto types = analysis::valuesOf(model, type);
    if (types.any([&](const analysis::FlowValue& v) { return classifyTarget(model, v, depth + 1) == Target::Device; }))
      return Target::Device;
    if (types.all([&](const analysis::FlowValue& v) { return classifyTarget(model, v, depth + 1) == Target::Host; }))
      return Target::Host;
    return Target::Device;  // `torch.device(name)`: a device, its type not known
  }
  return Target::Opaque;
}

// `.to(...)` moves to a device unless its target is a dtype or the host: decided on every value
// the target may hold (`device = "cuda" if torch.cuda.is_available() else "cpu"` may be CUDA;
// `"cpu"` is not), else on the expression as written (a name or attribute is taken for a device,
// an unknown call is not).
bool movesToDevice(const analysis::SemanticModel& model, TSNode call, std::string_view method) {
  std::string_view source = model.file().text();
  if (method == "cuda") return true;
  TSNode target = analysis::argumentFor(call, 0, "device", source);
  if (ts_node_is_null(target)) return false;
  auto values = analysis::valuesOf(model, target);
  bool device = false, dtype = false, all_host = !values.unknown && !values.values.empty();
  for (const auto& value : values.values) {
    Target kind = classifyTarget(model, value);
    device = device || kind == Target::Device;
    dtype = dtype || kind == Target::Dtype;
    all_host = all_host && kind == Target::Host;
  }
  if (dtype || all_host) return false;
  if (device) return true;
  // Nothing decided: a name the flow does not follow (a parameter) is taken for a device.
  TSNode first = analysis::resolveValue(model, target);
  if (amp::resolveDtype(model, first) != amp::DtypeKind::Unknown) return false;
  return isKind(first, kind::identifier) || isKind(first, kind::attribute) || isKind(first, kind::integer);
}

// A batch name that already holds a device copy where the call reads it (`x = x.cuda(...)` before
// `x.to(device)`): every value reaching it is a `.to()` / `.cuda()` result, or a comprehension of
// them.
bool isCopy(const analysis::SemanticModel& model, TSNode expr) {
  std::string_view source = model.file().text();
  expr = analysis::unparenthesize(expr);
  if (isKind(expr, kind::dictionary_comprehension)) {
    TSNode body = fieldOf(expr, "body");
    return isKind(body, kind::pair) && isCopy(model, fieldOf(body, "value"));
  }
  if (isKind(expr, kind::list_comprehension) || isKind(expr, kind::generator_expression))
    return isCopy(model, fieldOf(expr, "body"));
  if (!isKind(expr, kind::call)) return false;
  std::string_view method = methodName(expr, source);
  return method == "to" || method == "cuda";
}

bool alreadyMoved(const analysis::SemanticModel& model, TSNode name) {
  auto values = analysis::valuesOf(model, name);
  return values.all([&](const analysis::FlowValue& v) {
    return v.kind == analysis::FlowValue::Kind::Expression && isCopy(v.in(model), v.node);
  });
}

class PinMemoryWithoutNonBlocking final : public Rule {
 public:
  const RuleMeta& meta() const override { return kPinMemoryWithoutNonBlocking; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::for_statement, kind::call}; }
  // Every call the rule reports resolves to DataLoader through an import or an attribute, which
  // spell it as code: a file that names it only in docstrings and comments is not parsed for it.
  // `pin_memory=True` (or a name bound to `True`), and a `.to(` or `.cuda(` call.
  Prefilter prefilter() const override {
    return {.words = {"DataLoader"},
            .whole_words = true,
            .also = {{"pin_memory"}, {"True"}, {".to(", ".cuda("}},
            .words_in_code = true,
            .tree_names = {{"pin_memory"}, {"DataLoader"}}};
  }

  void check(TSNode node, Context& ctx) const override {
    if (isKind(node, kind::call)) return checkNext(node, ctx);
    const auto& model = ctx.model();
    TSNode loop = node;
    TSNode loader = pinnedLoaderOf(model, fieldOf(loop, "right"));
    if (ts_node_is_null(loader)) return;
    std::set<std::string_view> targets;
    addBoundNames(fieldOf(loop, "left"), ctx.source(), targets);
    if (targets.empty()) return;
    TSNode body = fieldOf(loop, "body");
    if (!ts_node_is_null(body)) checkBatchUses(ctx, body, 0, loader, targets);
  }

 private:
  // The pinned DataLoader `iterable` iterates (directly, through `enumerate`/`zip`/`tqdm`, or by
  // value flow), else null.
  static TSNode pinnedLoaderOf(const analysis::SemanticModel& model, TSNode iterable) {
    std::string_view source = model.file().text();
    TSNode loader = data::dataLoaderOfIterable(model, iterable);
    if (!ts_node_is_null(loader) && boolValue(model, data::dataLoaderArgument(loader, "pin_memory", source)) == true)
      return loader;
    // A loader the loop may iterate by value flow (a parameter the file's calls pass one to, a
    // function's return): the first that pins its batches.
    for (TSNode candidate : data::dataLoadersOfIterable(model, iterable))
      if (boolValue(model, data::dataLoaderArgument(candidate, "pin_memory", source)) == true) return candidate;
    return {};
  }

  // `batch = next(it)` where `it` is `iter(loader)` of a pinned loader: the batch's copies in the
  // rest of the function (the loop a `while True:` runs is in it).
  static void checkNext(TSNode call, Context& ctx) {
    const auto& model = ctx.model();
    TSNode function = fieldOf(call, "function");
    if (!isKind(function, kind::identifier) || model.text(function) != "next" ||
        model.resolve("next", function) != nullptr)
      return;
    auto args = positionalArguments(call);
    TSNode assignment = ts_node_parent(call);
    if (args.empty() || !isKind(assignment, kind::assignment) ||
        !analysis::sameNode(analysis::unparenthesize(fieldOf(assignment, "right")), call))
      return;
    TSNode loader{};
    for (const auto& value : analysis::valuesOf(model, args[0]).values) {
      // An iterator a helper of another file makes is not followed (its loader is not this file's).
      if (value.kind != analysis::FlowValue::Kind::Expression || value.model != nullptr || !isKind(value.node, kind::call))
        continue;
      TSNode iter = fieldOf(value.node, "function");
      if (!isKind(iter, kind::identifier) || model.text(iter) != "iter" || model.resolve("iter", iter) != nullptr) continue;
      auto iter_args = positionalArguments(value.node);
      if (iter_args.size() == 1) loader = pinnedLoaderOf(model, iter_args[0]);
      if (!ts_node_is_null(loader)) break;
    }
    if (ts_node_is_null(loader)) return;
    std::set<std::string_view> targets;
    addBoundNames(fieldOf(assignment, "left"), ctx.source(), targets);
    if (targets.empty()) return;
    TSNode scope = call;
    while (!ts_node_is_null(scope) && !isKind(scope, kind::function_definition) && !isKind(scope, kind::module))
      scope = ts_node_parent(scope);
    if (isKind(scope, kind::function_definition)) scope = fieldOf(scope, "body");
    if (ts_node_is_null(scope)) return;
    // The first `next(it)` of the function follows the batch; the others (`except StopIteration:`
    // restarting the iterator) rebind the same batch.
    std::string_view iterator = model.text(args[0]);
    TSNode first{};
    analysis::walkTree(
        scope,
        [&](TSNode node) {
          if (!ts_node_is_null(first) || isCodeBoundary(node)) return false;
          if (isNextOf(model, node, iterator)) first = node;
          return ts_node_is_null(first);
        },
        [](TSNode) {});
    if (!analysis::sameNode(first, call)) return;
    checkBatchUses(ctx, scope, analysis::endOf(assignment), loader, targets, iterator);
  }

  // `next(<iterator>)`, the builtin, its argument spelled `iterator`.
  static bool isNextOf(const analysis::SemanticModel& model, TSNode node, std::string_view iterator) {
    if (!isKind(node, kind::call)) return false;
    TSNode function = fieldOf(node, "function");
    if (!isKind(function, kind::identifier) || model.text(function) != "next") return false;
    auto args = positionalArguments(node);
    return !args.empty() && model.text(args[0]) == iterator && model.resolve("next", function) == nullptr;
  }

  // Reports the batch's `.to()` / `.cuda()` copies in `body` at or after byte `from`, following
  // the names that take parts of it.
  static void checkBatchUses(Context& ctx, TSNode body, uint32_t from, TSNode loader,
                             std::set<std::string_view>& targets, std::string_view iterator = {}) {
    std::string_view source = ctx.source();
    const auto& model = ctx.model();
    auto batchValue = [&](TSNode value) {
      return fromBatch(value, source, targets) ||
             (!iterator.empty() && isNextOf(model, analysis::unparenthesize(value), iterator));
    };
    analysis::walkTree(
        body,
        [&](TSNode node) {
          if (isCodeBoundary(node) || isKind(node, kind::string) || isKind(node, kind::comment)) return false;
          if (analysis::endOf(node) <= from) return false;
          if (analysis::startOf(node) < from) return true;  // holds the start: look inside
          // Names that take parts of the batch: `x, y = batch`, `for k, v in batch.items()`,
          // `{k: v.to(device) for k, v in batch.items()}`.
          if (isKind(node, kind::assignment) && batchValue(fieldOf(node, "right")))
            addBoundNames(fieldOf(node, "left"), source, targets);
          if (isKind(node, kind::for_statement) && fromBatch(fieldOf(node, "right"), source, targets))
            addBoundNames(fieldOf(node, "left"), source, targets);
          // A comprehension's `for` clauses come after its body in the tree: bind them first.
          if (isKind(node, kind::list_comprehension) || isKind(node, kind::dictionary_comprehension) ||
              isKind(node, kind::set_comprehension) || isKind(node, kind::generator_expression)) {
            analysis::forEachNamedChild(node, [&](TSNode clause) {
              if (isKind(clause, kind::for_in_clause) && fromBatch(fieldOf(clause, "right"), source, targets))
                addBoundNames(fieldOf(clause, "left"), source, targets);
            });
          }
          if (isKind(node, kind::call)) checkCopy(ctx, node, loader, targets);
          return true;
        },
        [&](TSNode node) {
          // After `next()`: `batch = [t.to(device) for t in batch]`, `x = model(x)` — once its right
          // side has been read, the name holds something else than the pinned batch.
          if (iterator.empty() || !isKind(node, kind::assignment) || analysis::startOf(node) < from) return;
          TSNode left = fieldOf(node, "left");
          if (isKind(left, kind::identifier) && !batchValue(fieldOf(node, "right"))) targets.erase(model.text(left));
        });
  }

  static void checkCopy(Context& ctx, TSNode call, TSNode loader, const std::set<std::string_view>& targets) {
    const auto& model = ctx.model();
    std::string_view source = ctx.source();
    std::string_view method = methodName(call, source);
    if (method != "to" && method != "cuda") return;
    TSNode receiver = rootName(fieldOf(fieldOf(call, "function"), "object"));
    if (ts_node_is_null(receiver) || !targets.count(ctx.text(receiver))) return;
    if (alreadyMoved(model, receiver)) return;
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
        call, fmt::format("`.{}()` of a pinned batch copies synchronously; pass `non_blocking=True`",
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

PTLINT_REGISTER_RULE(PTL402, PinMemoryWithoutNonBlocking)

}  // namespace ptlint::rules
