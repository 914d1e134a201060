// PTL406 distributed-sampler-without-set-epoch: a shuffling `DistributedSampler` in a project that
// runs several epochs and never calls `set_epoch` (the other files' part: ProjectWideFacts).
#include <string>

#include "analysis/module_summary.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/data/epoch_trainers.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kDistributedSamplerWithoutSetEpoch{
    .code = "PTL406",
    .name = "distributed-sampler-without-set-epoch",
    .summary = "A shuffling `DistributedSampler` iterated over several epochs without `set_epoch`",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Reports `torch.utils.data.DistributedSampler(...)` (any import or alias) when it shuffles
(`shuffle` absent or true), is handed to a `DataLoader` in the same file (`sampler=` the call,
or a name or `self.<attr>` bound to it), and the project runs an epoch loop (a `for` whose
target or iterable names an epoch: `for epoch in range(args.epochs)`, in this file or another
one), while nothing in the project spells `set_epoch`. Not reported when the file or any file of
its project imports a trainer that sets the epoch itself (Lightning, accelerate, transformers,
DeepSpeed, Ignite), nor for samplers of validation or test sets (whose order does not matter).
A file checked outside any project is judged on its own text.

## Why is this bad?
`DistributedSampler.__iter__` seeds its shuffle with `self.seed + self.epoch`
(`torch/utils/data/distributed.py`, PyTorch 1.13 to 2.14), and `epoch` changes only through
`set_epoch`. Its documentation: "calling the `set_epoch` method at the beginning of each epoch
**before** creating the `DataLoader` iterator is necessary to make shuffling work properly
across multiple epochs. Otherwise, the same ordering will be always used." Every epoch then
visits the samples in the same order on every rank, which weakens the shuffling that SGD
relies on.

## Example
```python
sampler = DistributedSampler(train_set)
loader = DataLoader(train_set, batch_size=32, sampler=sampler)
for epoch in range(epochs):
    for x, y in loader:
        ...
```

## Use instead
```python
for epoch in range(epochs):
    sampler.set_epoch(epoch)
    for x, y in loader:
        ...
```

## Fix safety
There is no fix: the call belongs at the start of the epoch loop, which may be in another
function.

## Releases
`torch/utils/data/distributed.py`: `DistributedSampler.set_epoch` in 1.13, 2.6 and 2.14; the
premise holds 1.13–2.14.

## References
- [`torch.utils.data.distributed.DistributedSampler`](https://docs.pytorch.org/docs/stable/data.html#torch.utils.data.distributed.DistributedSampler)
- [`torch/utils/data/distributed.py` (2.6)](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/utils/data/distributed.py)
)md"};

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool namesHeldOut(std::string_view text) {
  std::string lower = lowered(text);
  for (std::string_view word : {"val", "test", "eval", "dev", "holdout"})
    if (lower.find(word) != std::string::npos) return true;
  return false;
}

bool isDataLoaderCall(const analysis::SemanticModel& model, TSNode call) {
  auto callee = model.calleeName(call);
  return callee && (*callee == "torch.utils.data.DataLoader" || *callee == "torch.utils.data.dataloader.DataLoader");
}

// True when a `DataLoader(...)` of the file takes `sampler=` the text `name`.
bool givenToLoader(const analysis::SemanticModel& model, TSNode root, std::string_view name) {
  std::string_view source = model.file().text();
  bool found = false;
  analysis::forEachWholeWord(source, "sampler", [&](size_t at) {
    TSNode node = ts_node_descendant_for_byte_range(root, static_cast<uint32_t>(at), static_cast<uint32_t>(at + 7));
    TSNode argument = ts_node_parent(node);
    if (!isKind(argument, kind::keyword_argument) || !analysis::sameNode(fieldOf(argument, "name"), node)) return false;
    if (analysis::textOf(fieldOf(argument, "value"), source) != name) return false;
    TSNode call = ts_node_parent(ts_node_parent(argument));
    found = isKind(call, kind::call) && isDataLoaderCall(model, call);
    return found;
  });
  return found;
}

bool hasEpochLoop(TSNode root, std::string_view source) {
  bool found = false;
  analysis::forEachWholeWord(source, "for", [&](size_t at) {
    TSNode node = ts_node_descendant_for_byte_range(root, static_cast<uint32_t>(at), static_cast<uint32_t>(at + 3));
    TSNode loop = ts_node_parent(node);
    if (!isKind(loop, kind::for_statement)) return false;
    found = lowered(analysis::textOf(fieldOf(loop, "left"), source)).find("epoch") != std::string::npos ||
            lowered(analysis::textOf(fieldOf(loop, "right"), source)).find("epoch") != std::string::npos;
    return found;
  });
  return found;
}

class DistributedSamplerWithoutSetEpoch final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDistributedSamplerWithoutSetEpoch; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // Whether another file calls `set_epoch`, imports a trainer or loops over epochs.
  Prefilter prefilter() const override {
    return {.words = {"DistributedSampler"},
            .whole_words = true,
            .absent = {"set_epoch"},
            .words_in_code = true,
            .tree_names = {{"DistributedSampler"}},
            .project_words = {"DistributedSampler"}};
  }
  bool mayReport(const PrefilterInput& input, const Settings& settings) const override {
    return input.parsed == nullptr || epochsUnset(*input.parsed, settings);
  }
  // No file of the project calls `set_epoch` or imports a trainer that does, and a loop over
  // epochs exists here or in another file. Asked by check() too: a prefilter only skips work.
  static bool epochsUnset(const analysis::ParsedFile& file, const Settings& settings) {
    const analysis::ProjectWideFacts* project =
        settings.project != nullptr && settings.project->project != nullptr && settings.project->project->linked
            ? settings.project->project.get()
            : nullptr;
    if (project != nullptr && (!project->sets_epoch.path.empty() || !project->imports_trainer.path.empty()))
      return false;
    return hasEpochLoop(file.root(), file.text()) || (project != nullptr && !project->loops_epochs.path.empty());
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    if (analysis::findBytes(ctx.source(), "set_epoch") != std::string_view::npos) return;
    auto callee = model.calleeName(call);
    if (!callee || (*callee != "torch.utils.data.DistributedSampler" &&
                    *callee != "torch.utils.data.distributed.DistributedSampler"))
      return;
    if (!epochsUnset(ctx.file(), ctx.settings())) return;
    for (std::string_view trainer : kEpochSettingTrainers)
      if (model.importsModule(trainer)) return;
    std::string_view source = ctx.source();
    if (hasDoubleStarArguments(call) || hasStarArguments(call)) return;
    TSNode shuffle = keywordArgument(call, "shuffle", source);
    auto positional = positionalArguments(call);
    if (ts_node_is_null(shuffle) && positional.size() >= 4) shuffle = positional[3];
    if (!ts_node_is_null(shuffle) && boolValue(model, shuffle) != true) return;
    if (positional.empty() && ts_node_is_null(keywordArgument(call, "dataset", source))) return;
    TSNode dataset = positional.empty() ? keywordArgument(call, "dataset", source) : positional[0];
    if (namesHeldOut(ctx.text(dataset))) return;

    // Handed to a DataLoader: directly, or through the name it is bound to.
    TSNode parent = ts_node_parent(call);
    bool given = false;
    if (isKind(parent, kind::keyword_argument) && ctx.text(fieldOf(parent, "name")) == "sampler") {
      TSNode loader = ts_node_parent(ts_node_parent(parent));
      given = isKind(loader, kind::call) && isDataLoaderCall(model, loader);
      TSNode bound = ts_node_parent(loader);
      if (isKind(bound, kind::assignment) && namesHeldOut(ctx.text(fieldOf(bound, "left")))) return;
    } else if (isKind(parent, kind::assignment) && analysis::sameNode(fieldOf(parent, "right"), call)) {
      TSNode target = fieldOf(parent, "left");
      if (!isKind(target, kind::identifier) && !isKind(target, kind::attribute)) return;
      if (namesHeldOut(ctx.text(target))) return;
      given = givenToLoader(model, ctx.file().root(), ctx.text(target));
    }
    if (!given) return;
    ctx.report(call, "`DistributedSampler` shuffles the same way every epoch; call `sampler.set_epoch(epoch)`");
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL406, DistributedSamplerWithoutSetEpoch)

}  // namespace ptlint::rules
