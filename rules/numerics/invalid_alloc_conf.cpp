// PTL705 invalid-alloc-conf: a `PYTORCH_CUDA_ALLOC_CONF` (or `PYTORCH_ALLOC_CONF`) value set in
// code that the CUDA caching allocator of a release in the range rejects.
#include <array>
#include <optional>

#include "analysis/alloc_conf.h"
#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"
#include "rules/torch_releases.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr std::string_view kCudaVariable = "PYTORCH_CUDA_ALLOC_CONF";
constexpr std::string_view kVariable = "PYTORCH_ALLOC_CONF";
constexpr std::string_view kAllocConfFact = "PYTORCH_ALLOC_CONF";

constexpr RuleMeta kInvalidAllocConf{
    .code = "PTL705",
    .name = "invalid-alloc-conf",
    .summary = "`PYTORCH_CUDA_ALLOC_CONF` / `PYTORCH_ALLOC_CONF` set in code with an option or value the allocator rejects",
    .fix = FixAvailability::None,
    .severity = Severity::Error,
    .enabled_by_default = true,
    .since_torch = "1.10",
    .docs = R"md(
## What it does
Reports an allocator configuration set in code — `os.environ["PYTORCH_CUDA_ALLOC_CONF"] =
"..."`, `os.environ.setdefault(...)`, `os.putenv(...)`, through any import form of `os` — whose
string (a literal, or a name bound once to one) the CUDA caching allocator of a PyTorch release
in the project's `torch-version` range rejects: an unknown option (`expandable_segment:True`),
an option that release does not have yet or no longer has, or a bad value
(`max_split_size_mb:10`, `garbage_collection_threshold:1.5`, `roundup_power2_divisions:3`,
`backend:async`, `expandable_segments:yes`). The help names the release that raises.
`PYTORCH_ALLOC_CONF` is checked where the range includes a release that reads it. Values built
at run time (f-strings, concatenations) are not checked.

## Why is this bad?
The allocator parses the variable when CUDA first allocates memory and raises on anything it
does not understand. The script imports, builds its data pipeline, and fails at the first tensor
moved to the GPU.

## Releases
Each release's own parser is modelled, and the string is judged at every release of the range:

- **1.13** (`c10/cuda/CUDACachingAllocator.cpp`, `CachingAllocatorConfig::parseArgs`): options are
  split on whitespace and commas, key and value on `:`; an option without a value is skipped. Keys:
  `max_split_size_mb` (read with `stoi`, must be greater than 20), `roundup_power2_divisions` (a
  power of two; no list form), `roundup_bypass_threshold_mb`, `garbage_collection_threshold`
  (`stod`, strictly between 0 and 1). Anything else, `backend` and `expandable_segments` included,
  is "Unrecognized CachingAllocator option".
- **2.6** (`c10/cuda/CUDAAllocatorConfig.cpp`): a tokenizer (`,` `:` `[` `]`, spaces dropped), a
  `,` required between options, a value required after every `:`. Keys: `max_split_size_mb` and
  `max_non_split_rounding_mb` (`stoi`, greater than 20), `garbage_collection_threshold`,
  `roundup_power2_divisions` (a power of two or a `[size:div,...,>:div]` list), `backend`
  (`native`, `cudaMallocAsync`), `expandable_segments`, `release_lock_on_cudamalloc`,
  `pinned_use_cuda_host_register`, `pinned_use_background_threads` (`True`/`False`),
  `pinned_num_register_threads` (a power of two up to 128). `roundup_bypass_threshold_mb` is gone.
- **2.14** (`c10/core/AllocatorConfig.cpp`, then `c10/cuda/CUDAAllocatorConfig.cpp`): numbers read
  with `stoull`; `max_split_size_mb` and `max_non_split_rounding_mb` must be at least 20 (the
  large segment size, `large_segment_size_mb`, itself greater than 10); new keys
  `large_segment_size_mb`, `pinned_max_round_threshold_mb`, `pinned_max_cached_size_mb`,
  `pinned_reserve_segment_size_mb` (greater than 0), `graph_capture_record_stream_reuse`,
  `per_process_memory_fraction`, `pinned_free_catch_all`, `throw_on_cudamalloc_oom` (the values of
  the last three are not checked); an unknown key is "Unrecognized key ... in CUDA allocator
  config". It also reads `PYTORCH_ALLOC_CONF` when `PYTORCH_CUDA_ALLOC_CONF` is unset, and warns
  about neither name.

All three parsers take what C++'s `stoi`/`stoull`/`stod` take: leading digits (`128MB` is 128)
and a sign (`-1` wraps to the largest size, and passes a lower bound). Between two releases read,
a release is said to reject a string only when both neighbours reject it on the same key (the
date of each key between them was not pinned); after 2.14 the 2.14 parser is assumed.

## Example
```python
import os

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segment:True"
```

## Use instead
```python
import os

os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
```

## Fix safety
There is no fix: the intended option cannot be guessed with certainty.

## References
- [CUDA semantics: optimizing memory usage with `PYTORCH_CUDA_ALLOC_CONF`](https://pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)
- [1.13's parser: `c10/cuda/CUDACachingAllocator.cpp`](https://github.com/pytorch/pytorch/blob/v1.13.0/c10/cuda/CUDACachingAllocator.cpp)
- [2.6's parser: `c10/cuda/CUDAAllocatorConfig.cpp`](https://github.com/pytorch/pytorch/blob/v2.6.0/c10/cuda/CUDAAllocatorConfig.cpp)
- 2.14's parsers: `c10/core/AllocatorConfig.cpp` and `c10/cuda/CUDAAllocatorConfig.cpp` (headers in `libtorch-dev` 2.14)
)md"};

// The verdict of PyTorch release `r` on a configuration string, from the parsers read (1.13, 2.6,
// 2.14). A release between two of them rejects the string when both of them do, on the same key;
// otherwise nothing is claimed for it. Releases after 2.14 are judged as 2.14.
struct ReleaseVerdict {
  TorchVersion release;
  alloc_conf::Rejection rejection;
};

constexpr std::array<std::pair<TorchVersion, alloc_conf::Parser>, 3> kParsers{{
    {{1, 13}, alloc_conf::Parser::Torch1_13},
    {{2, 6}, alloc_conf::Parser::Torch2_6},
    {{2, 14}, alloc_conf::Parser::Torch2_14},
}};

// The oldest release of `range` known to reject `text`. `from`: the first release that reads the
// variable (a release that does not read it ignores the string).
std::optional<ReleaseVerdict> firstRejection(std::string_view text, const TorchRange& range, TorchVersion from) {
  std::array<std::optional<alloc_conf::Rejection>, kParsers.size()> verdicts;
  for (size_t k = 0; k < kParsers.size(); ++k) verdicts[k] = alloc_conf::check(text, kParsers[k].second);
  auto at = [&](TorchVersion r) -> std::optional<alloc_conf::Rejection> {
    if (r < from || r < kParsers.front().first) return std::nullopt;
    for (size_t k = 0; k < kParsers.size(); ++k) {
      if (r == kParsers[k].first || (k + 1 == kParsers.size() && kParsers[k].first < r)) return verdicts[k];
      if (k + 1 < kParsers.size() && kParsers[k].first < r && r < kParsers[k + 1].first) {
        const auto& lower = verdicts[k];
        const auto& upper = verdicts[k + 1];
        if (lower && upper && lower->key == upper->key && kParsers[k].first.atLeast(from)) return upper;
        return std::nullopt;
      }
    }
    return std::nullopt;
  };
  std::vector<TorchVersion> releases{{1, 13}};
  for (int m = 0; m <= kNewestKnownTorch.minor; ++m) releases.push_back({2, m});
  if (kNewestKnownTorch < range.floor()) releases.push_back(range.floor());
  for (auto r : releases) {
    if (!range.includes(r) || range.newestKnown() < r) continue;
    if (auto rejection = at(r)) return ReleaseVerdict{r, *rejection};
  }
  return std::nullopt;
}

class InvalidAllocConf final : public Rule {
 public:
  const RuleMeta& meta() const override { return kInvalidAllocConf; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::assignment, kind::call}; }
  Prefilter prefilter() const override { return {.words = {kCudaVariable, kVariable}, .whole_words = true}; }

  void check(TSNode node, Context& ctx) const override {
    const auto& model = ctx.model();
    TSNode value{};
    std::optional<std::string> name;
    if (isKind(node, kind::assignment)) {
      TSNode left = fieldOf(node, "left");
      if (!isKind(left, kind::subscript)) return;
      if (!model.refersTo(fieldOf(left, "value"), "os.environ")) return;
      name = stringValue(model, fieldOf(left, "subscript"));
      value = fieldOf(node, "right");
    } else {
      auto callee = model.calleeName(node);
      if (!callee || (*callee != "os.environ.setdefault" && *callee != "os.putenv")) return;
      auto positional = positionalArguments(node);
      if (positional.size() != 2) return;
      name = stringValue(model, positional[0]);
      value = positional[1];
    }
    if (!name || (*name != kCudaVariable && *name != kVariable)) return;
    auto text = stringValue(model, value);
    if (!text) return;
    // PYTORCH_CUDA_ALLOC_CONF is read by every release; PYTORCH_ALLOC_CONF by 2.14 (its header's
    // CUDAAllocatorConfig::instance() falls back to it), not by 2.6 or 1.13.
    TorchVersion from = *name == kCudaVariable ? TorchVersion{0, 0} : releases::fact(kAllocConfFact)->added;
    const TorchRange range = ctx.settings().torchRange();
    auto verdict = firstRejection(*text, range, from);
    if (!verdict) return;
    // The option in the message (the underline is on the variable's value), the variable and the
    // release that raises in the help.
    std::string what = verdict->rejection.message;
    if (!what.empty() && what[0] >= 'a' && what[0] <= 'z') what[0] = static_cast<char>(what[0] - 'a' + 'A');
    Diagnostic& d = ctx.report(value, what + versions::judgedFor(ctx.settings()));
    d.help = fmt::format("PyTorch {} raises at the first CUDA allocation that reads `{}`.", verdict->release.str(), *name);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL705, InvalidAllocConf)

}  // namespace ptlint::rules
