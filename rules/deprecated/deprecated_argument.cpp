// PTL113 deprecated-argument: arguments PyTorch deprecated or removed (the legacy loss
// reductions, the profiler's `use_cuda=`, `meshgrid` without `indexing=`, softmax without `dim`).
#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "analysis/name_shapes.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::startOf;

constexpr RuleMeta kDeprecatedArgument{
    .code = "PTL113",
    .name = "deprecated-argument",
    .summary = "Argument that PyTorch deprecated or removed",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .deprecated_tag = true,
    .since_torch = "1.13",
    .docs = R"md(
## What it does
Reports, through any import or alias:
- `size_average=` or `reduce=` given to a loss (`nn.MSELoss(size_average=False)`,
  `F.nll_loss(x, y, reduce=False)`, every loss class of `torch.nn` and function of
  `torch.nn.functional` that takes them);
- `use_cuda=` given to `torch.profiler.profile` or `torch.autograd.profiler.profile`;
- `torch.meshgrid(...)` without `indexing=`;
- `F.softmax`, `F.log_softmax`, `F.softmin`, `nn.Softmax`, `nn.LogSoftmax` and `nn.Softmin`
  without `dim`.

A call that passes `*args` or `**kwargs` is not reported (the argument may be in them), nor a
call of `meshgrid`, a softmax or a profiler under another name (`from torch import meshgrid as
mg`); a loss under another name is followed (`from torch.nn import MSELoss as L`).

## Why is this bad?
- `size_average` and `reduce` warn "size_average and reduce args will be deprecated, please use
  reduction='...' instead" (`torch/nn/_reduction.py`, 1.13 to 2.14) and override `reduction=`
  when both are given.
- `use_cuda=` warns "`use_cuda` is deprecated, use `activities` argument instead" in 2.6 and is
  gone from both profilers in 2.14, where passing it raises `TypeError` (an `error` when the
  range includes 2.14).
- `torch.meshgrid` without `indexing=` warns "in an upcoming release, it will be required to pass
  the indexing argument" (1.13 to 2.14).
- The implicit `dim` of softmax warns "Implicit dimension choice for softmax has been
  deprecated" and picks `dim=0` for 0-, 1- and 3-dimensional inputs and `dim=1` otherwise: a
  batch of sequences (3-D) is normalised across the batch.

## Example
```python
loss_fn = nn.MSELoss(size_average=False)
with torch.profiler.profile(use_cuda=True) as prof:
    ...
xs, ys = torch.meshgrid(x, y)
probs = F.softmax(logits)
```

## Use instead
```python
loss_fn = nn.MSELoss(reduction="sum")
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]) as prof:
    ...
xs, ys = torch.meshgrid(x, y, indexing="ij")
probs = F.softmax(logits, dim=-1)
```

## Fix safety
Offered only where the values are literals and the replacement exists at the oldest release of
the range; safe unless said otherwise:
- `size_average=`/`reduce=` (literal `True`, `False` or `None`, no `reduction=` beside them)
  become `reduction=` by PyTorch's own mapping (`legacy_get_string`): `reduce=False` gives
  `"none"`, else `size_average=False` gives `"sum"`, else `"mean"`.
- `torch.profiler.profile(use_cuda=True)` without `activities=` becomes
  `activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]`, `use_cuda=False` becomes
  `activities=[ProfilerActivity.CPU]`: unsafe, because without `activities=` the profiler takes
  every activity the machine supports (`supported_activities()`, which adds XPU, MTIA or HPU on
  such builds) and the literal list does not;
  `torch.autograd.profiler.profile(use_cuda=True)` becomes `use_device="cuda"` (from 2.6, the
  oldest release checked that has it) and `use_cuda=False` is removed (the default).
- `torch.meshgrid(...)` gains `indexing="ij"`, the behaviour it has without the argument.

There is no fix for a missing `dim`: the right axis depends on the data.

## PyTorch versions
Checked in PyTorch 1.13's, 2.6's and 2.14's sources: the loss, meshgrid and softmax warnings
are in all three; the profilers' `use_cuda=` is deprecated in 1.13 (`torch.profiler`) and 2.6
(both) and removed in 2.14 (the releases between were not read, so 2.14 is taken as the
removing release); `use_device=` is in 2.6 and not in 1.13.

## Releases
`torch/nn/_reduction.py` (`size_average`/`reduce`, deprecated in 1.13, 2.6, 2.14),
`torch/profiler/profiler.py` (`use_cuda=` warns in 1.13 and 2.6, is gone in 2.14), ATen's
`TensorShape.cpp` (`meshgrid` warns without `indexing=` in 1.13–2.14; the message is in 2.14.1's
`libtorch_cpu`), `torch/nn/functional.py` (implicit `dim` warns in 1.13–2.14). `use_device=` (the
fix) exists from 2.6.

## References
- [torch/nn/_reduction.py](https://github.com/pytorch/pytorch/blob/main/torch/nn/_reduction.py) (`legacy_get_string`)
- [torch/profiler/profiler.py](https://github.com/pytorch/pytorch/blob/main/torch/profiler/profiler.py), [torch/autograd/profiler.py](https://github.com/pytorch/pytorch/blob/main/torch/autograd/profiler.py)
- [torch.meshgrid](https://pytorch.org/docs/stable/generated/torch.meshgrid.html)
- [torch.nn.functional.softmax](https://pytorch.org/docs/stable/generated/torch.nn.functional.softmax.html) (`_get_softmax_dim` in `torch/nn/functional.py`)
)md"};

// Softmax-like callables: how many positional arguments come before `dim`.
struct SoftmaxEntry {
  std::string_view name;
  size_t dim_position;
};
constexpr std::array<SoftmaxEntry, 6> kSoftmax{{
    {"torch.nn.functional.softmax", 1},
    {"torch.nn.functional.log_softmax", 1},
    {"torch.nn.functional.softmin", 1},
    {"torch.nn.Softmax", 0},
    {"torch.nn.LogSoftmax", 0},
    {"torch.nn.Softmin", 0},
}};

bool isLoss(std::string_view q) {
  std::string_view last = q.substr(q.rfind('.') + 1);
  bool in_nn = q.starts_with("torch.nn.functional.") || q.starts_with("torch.nn.modules.loss.") ||
               (q.starts_with("torch.nn.") && q.find('.', 9) == std::string_view::npos);
  if (!in_nn) return false;
  return last.ends_with("Loss") || last.ends_with("Loss2d") || last.ends_with("_loss") || last == "cross_entropy" ||
         last == "binary_cross_entropy" || last == "binary_cross_entropy_with_logits" || last == "kl_div";
}

// A literal True/False/None: its truth, with None as the default (True).
std::optional<bool> legacyValue(TSNode value, std::string_view source) {
  if (isTrueLiteral(value)) return true;
  if (isFalseLiteral(value)) return false;
  if (isKind(analysis::unparenthesize(value), kind::none)) return true;
  (void)source;
  return std::nullopt;
}

// The edit that deletes a keyword argument with the comma before it (never the first argument).
std::optional<quickfix::Edit> deleteArgument(TSNode keyword) {
  TSNode previous = ts_node_prev_named_sibling(keyword);
  if (ts_node_is_null(previous)) {
    TSNode next = ts_node_next_named_sibling(keyword);
    if (ts_node_is_null(next)) return quickfix::Edit{startOf(keyword), endOf(keyword), ""};
    return quickfix::Edit{startOf(keyword), startOf(next), ""};
  }
  return quickfix::Edit{endOf(previous), endOf(keyword), ""};
}

// Can a keyword argument inside the bracket opened at `open` of `code` be one this rule reports?
// Only in a call whose callee is a bare name (maybe an alias) or an attribute whose name a loss or
// a profiler has; not in a definition's parameters or a call of a call's result.
bool keywordMayReport(std::string_view code, size_t open) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\' || c == '\f'; };
  if (code[open] != '(') return true;
  size_t e = open;
  while (e > 0 && space(code[e - 1])) --e;
  if (e == 0) return true;
  if (code[e - 1] == ')' || code[e - 1] == ']') return false;
  size_t n = e;
  while (n > 0 && analysis::isIdentifierByte(code[n - 1])) --n;
  if (n == e) return true;
  std::string_view name = code.substr(n, e - n);
  size_t b = n;
  while (b > 0 && space(code[b - 1])) --b;
  for (std::string_view keyword : {"def", "class"})
    if (b >= keyword.size() && code.substr(b - keyword.size(), keyword.size()) == keyword &&
        analysis::isWholeWordAt(code, b - keyword.size(), keyword.size()))
      return false;
  if (b == 0 || code[b - 1] != '.') return true;
  return name == "profile" || name.ends_with("Loss") || name.ends_with("Loss2d") || name.ends_with("_loss") ||
         name == "cross_entropy" || name == "binary_cross_entropy" || name == "binary_cross_entropy_with_logits" ||
         name == "kl_div";
}

// `code` (a code view) with the contents of every string blanked, f-strings too, whose literal
// parts may hold brackets (`rf"\[{lo}\)"`) that would upset a count of the code's own; nothing
// when one of `positions` lies inside a string (a keyword in an f-string's `{...}`) or a string
// does not close. (The code view holds no quote inside an f-string's `{...}`, and a backslash
// escapes the next byte, also in a raw string.)
std::optional<std::string> withoutStrings(std::string_view code, const std::vector<size_t>& positions) {
  std::string out(code);
  auto next = positions.begin();  // sorted
  std::vector<uint32_t> quotes;
  analysis::offsetsOfBytes(code, "\"'", quotes);
  size_t resume = 0;  // past the last string stepped over
  for (uint32_t quote : quotes) {
    if (quote < resume) continue;
    size_t i = quote;
    char c = out[i];
    bool triple = i + 2 < out.size() && out[i + 1] == c && out[i + 2] == c;
    size_t begin = i + (triple ? 3 : 1), j = begin;
    for (; j < out.size(); ++j) {
      if (out[j] == '\\') ++j;
      else if (out[j] == c && (!triple || (j + 2 < out.size() && out[j + 1] == c && out[j + 2] == c))) break;
    }
    if (j >= out.size()) return std::nullopt;
    while (next != positions.end() && *next < begin) ++next;
    if (next != positions.end() && *next < j) return std::nullopt;
    for (size_t k = begin; k < j; ++k)
      if (out[k] != '\n' && out[k] != '\r') out[k] = ' ';
    resume = (triple ? j + 2 : j) + 1;
  }
  return out;
}

class DeprecatedArgument final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDeprecatedArgument; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // Every finding needs one of these shapes in code: a keyword `size_average=`, `reduce=` or
  // `use_cuda=` (`functools.reduce` and `x.softmax(-1)` are everywhere in PyTorch's own code, the
  // keywords are not), or a call of a name spelled `meshgrid` or a softmax (`F.softmax(` with
  // nothing but spaces, line breaks or blanked comments before the parenthesis; `def softmax(` is
  // not a call).
  Prefilter prefilter() const override {
    return {.words = {"size_average", "reduce", "use_cuda", "meshgrid", "softmax", "Softmax", "softmin", "Softmin"},
            .code_names = {{"size_average", "reduce", "use_cuda", "meshgrid", "softmax", "log_softmax", "softmin",
                            "Softmax", "LogSoftmax", "Softmin"}}};
  }
  bool mayReport(const PrefilterInput& input, const Settings&) const override {
    if (input.parsed != nullptr) return true;
    const analysis::PrefilterText& source = input.source;
    const std::string* code = source.code();
    std::string_view text = code != nullptr ? std::string_view(*code) : source.text();
    auto skip = [&](size_t i) {
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r' ||
                                 text[i] == '\\' || text[i] == '\f'))
        ++i;
      return i;
    };
    // A keyword reports only as an argument of a call whose callee is a name or ends in a name
    // that can be a loss or a profiler: not `def __init__(self, size_average=None, reduce=None)`
    // (every loss of `torch.nn` has one), `super().__init__(size_average=None, ...)`,
    // `x.scatter_reduce_(..., reduce=r)` or a statement `reduce = ...` (outside every bracket). A
    // bare name may be an alias (`MSELoss as L`): it lets the file through. Only in the code view,
    // where brackets in strings are blanked, and only when its brackets balance.
    std::vector<size_t> keywords;
    for (std::string_view word : {"size_average", "reduce", "use_cuda"})
      analysis::forEachWholeWord(text, word, [&](size_t at) {
        size_t i = skip(at + word.size());
        if (i < text.size() && text[i] == '=' && (i + 1 == text.size() || text[i + 1] != '=')) keywords.push_back(at);
        return false;
      });
    if (!keywords.empty()) {
      if (code == nullptr) return true;
      std::sort(keywords.begin(), keywords.end());
      std::optional<std::string> bare = withoutStrings(text, keywords);
      if (!bare) return true;
      bool may_report = false;
      bool balanced = analysis::withEnclosingBrackets(*bare, keywords, [&](size_t, const std::vector<size_t>& open) {
        if (!may_report && !open.empty()) may_report = keywordMayReport(*bare, open.back());
      });
      if (may_report || !balanced) return true;
    }
    for (std::string_view word : {"meshgrid", "softmax", "log_softmax", "softmin", "Softmax", "LogSoftmax", "Softmin"})
      if (analysis::forEachWholeWord(text, word, [&](size_t at) {
            size_t i = skip(at + word.size());
            if (i >= text.size() || text[i] != '(') return false;
            // `def softmax(`: a definition, not a call.
            size_t b = at;
            while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t' || text[b - 1] == '\\' ||
                             text[b - 1] == '\n' || text[b - 1] == '\r'))
              --b;
            if (b >= 3 && text.substr(b - 3, 3) == "def" && analysis::isWholeWordAt(text, b - 3, 3)) return false;
            return code == nullptr || callMayReport(text, at, i, word == "meshgrid");
          }))
        return true;
    return false;
  }

  // A call of a softmax or of meshgrid in the code view (the word at `at`, its `(` at `open`):
  // false when it cannot report. `X.softmax(` names torch's only when X is `torch`, `nn`,
  // `functional` or `activation` (what `from torch... import` binds), or a name that may be rebound
  // (`import torch.nn.functional as F`): not `x.softmax(-1)` or `np.meshgrid(...)`. A softmax given
  // `dim=` or two positional arguments, a meshgrid given `indexing=` or nothing, does not report.
  static bool callMayReport(std::string_view code, size_t at, size_t open, bool meshgrid) {
    analysis::Receiver receiver = analysis::receiverOf(code, at);
    if (receiver.kind == analysis::Receiver::Kind::Unresolved) return false;
    if (receiver.kind == analysis::Receiver::Kind::Name && receiver.name != "torch" && receiver.name != "nn" &&
        receiver.name != "functional" && receiver.name != "activation" &&
        !analysis::mayBeRebound(code, receiver.name))
      return false;
    analysis::CallArguments args = analysis::callArguments(code, open, meshgrid ? "indexing" : "dim");
    if (!args.complete) return true;
    if (args.has_keyword) return false;
    return meshgrid ? args.positional > 0 : args.positional < 2;
  }

  // Every call that can report spells one of the words (the keyword, or the callee's own name).
  bool checksWithinRanges() const override { return true; }
  std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel& model,
                                                         const Settings&) const override {
    return wordRanges(analysis::codeOrText(model.file()),
                      {"size_average", "reduce", "use_cuda", "meshgrid", "softmax", "log_softmax", "softmin", "Softmax",
                       "LogSoftmax", "Softmin"});
  }

  void check(TSNode call, Context& ctx) const override {
    TSNode callee = fieldOf(call, "function");
    bool attribute = isKind(callee, kind::attribute);
    if (!attribute && !isKind(callee, kind::identifier)) return;
    TSNode args = argumentList(call);
    if (ts_node_is_null(args)) return;
    // Cheap tests before resolving the callee: a chain must end in a name this rule knows, and a
    // loss must be given one of the legacy keywords (a bare name may be an alias, `MSELoss as L`).
    std::string_view source = ctx.source();
    bool legacy_keywords = !ts_node_is_null(keywordArgumentNode(call, "size_average", source)) ||
                           !ts_node_is_null(keywordArgumentNode(call, "reduce", source));
    // (The same for a bare name: `from torch import meshgrid as mg` is not followed, so that every
    // call that can report spells a word of checkRanges.)
    if (!legacy_keywords && !isKnownName(ctx.text(attribute ? fieldOf(callee, "attribute") : callee))) return;
    if (hasStarArguments(call) || hasDoubleStarArguments(call)) return;
    auto q = ctx.model().qualifiedName(callee);
    if (!q || !q->starts_with("torch.")) return;
    if (isLoss(*q)) return checkLoss(call, *q, ctx);
    if (*q == "torch.profiler.profile" || *q == "torch.profiler.profiler.profile" ||
        *q == "torch.autograd.profiler.profile" || *q == "torch.autograd.profile")
      return checkProfiler(call, *q, ctx);
    if (*q == "torch.meshgrid" || *q == "torch.functional.meshgrid") return checkMeshgrid(call, ctx);
    for (const SoftmaxEntry& e : kSoftmax)
      if (*q == e.name) return checkSoftmax(call, e, ctx);
  }

 private:
  static bool isKnownName(std::string_view last) {
    if (last == "profile" || last == "meshgrid") return true;
    for (const SoftmaxEntry& e : kSoftmax)
      if (e.name.substr(e.name.rfind('.') + 1) == last) return true;
    return false;
  }

  static std::string shortName(std::string_view q) {
    if (q.starts_with("torch.nn.functional.")) return "F." + std::string(q.substr(20));
    if (q.starts_with("torch.nn.modules.loss.")) return "nn." + std::string(q.substr(22));
    if (q.starts_with("torch.nn.")) return "nn." + std::string(q.substr(9));
    return std::string(q);
  }

  void checkLoss(TSNode call, std::string_view q, Context& ctx) const {
    std::string_view source = ctx.source();
    TSNode size_average = keywordArgumentNode(call, "size_average", source);
    TSNode reduce = keywordArgumentNode(call, "reduce", source);
    if (ts_node_is_null(size_average) && ts_node_is_null(reduce)) return;
    std::string given = !ts_node_is_null(size_average) && !ts_node_is_null(reduce) ? "`size_average=` and `reduce=`"
                        : !ts_node_is_null(size_average)                          ? "`size_average=`"
                                                                                  : "`reduce=`";
    bool both = given.find(" and ") != std::string::npos;
    Diagnostic& d = ctx.report(ts_node_is_null(size_average) ? reduce : size_average,
                               "`" + shortName(q) + "`: " + given + (both ? " are" : " is") + " deprecated; use `reduction=`");
    d.help = std::string(both ? "They override" : "It overrides") +
             " `reduction=`; PyTorch warns \"size_average and reduce args will be deprecated\".";
    if (!ts_node_is_null(keywordArgumentNode(call, "reduction", source))) return;
    std::optional<bool> avg = true, red = true;
    if (!ts_node_is_null(size_average)) avg = legacyValue(fieldOf(size_average, "value"), source);
    if (!ts_node_is_null(reduce)) red = legacyValue(fieldOf(reduce, "value"), source);
    if (!avg || !red) return;
    std::string reduction = !*red ? "none" : (*avg ? "mean" : "sum");
    // Replace the first of the two, delete the other.
    TSNode first = size_average, second = reduce;
    if (ts_node_is_null(first) || (!ts_node_is_null(second) && startOf(second) < startOf(first))) std::swap(first, second);
    std::vector<quickfix::Edit> edits{{startOf(first), endOf(first), "reduction=\"" + reduction + "\""}};
    if (!ts_node_is_null(second)) {
      auto deletion = deleteArgument(second);
      if (!deletion) return;
      edits.push_back(*deletion);
    }
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Use `reduction=\"" + reduction + "\"` instead of " + given, std::move(edits)};
  }

  void checkProfiler(TSNode call, std::string_view q, Context& ctx) const {
    std::string_view source = ctx.source();
    TSNode keyword = keywordArgumentNode(call, "use_cuda", source);
    if (ts_node_is_null(keyword)) return;
    bool autograd = q.starts_with("torch.autograd.");
    std::string_view key = autograd ? versions::kAutogradProfilerUseCuda : versions::kProfilerUseCuda;
    bool removed = versions::rangeIncludesFrom(ctx.settings(), versions::removedIn(key));
    std::string name = autograd ? "torch.autograd.profiler.profile" : "torch.profiler.profile";
    std::string instead = autograd ? "`use_device=\"cuda\"`" : "`activities=` with `ProfilerActivity.CUDA`";
    std::string text = "`use_cuda=` to `" + name + "` is " +
                       (removed ? "removed in PyTorch " + versions::removedIn(key).str() : std::string("deprecated"));
    Diagnostic& d = ctx.report(keyword, text + "; use " + instead + versions::judgedFor(ctx.settings()));
    if (removed) d.help = "Deprecated before; PyTorch " + versions::removedIn(key).str() + " raises `TypeError` on it.";
    if (removed) d.severity = Severity::Error;
    TSNode value = fieldOf(keyword, "value");
    bool on = isTrueLiteral(value);
    if (!on && !isFalseLiteral(value)) return;
    if (autograd) {
      if (!on) {
        if (auto deletion = deleteArgument(keyword))
          d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Remove `use_cuda=False` (the default)", {*deletion}};
        return;
      }
      if (!versions::floorAtLeast(ctx.settings(), versions::addedIn(versions::kAutogradProfilerUseDevice))) return;
      if (!ts_node_is_null(keywordArgumentNode(call, "use_device", source))) return;
      d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Use `use_device=\"cuda\"` instead of `use_cuda=True`",
                            {{startOf(keyword), endOf(keyword), "use_device=\"cuda\""}}};
      return;
    }
    if (!ts_node_is_null(keywordArgumentNode(call, "activities", source))) return;
    bool needs_import = false;
    std::string torch = torchModuleName(ctx.model(), call, needs_import);
    if (needs_import || torch.empty()) return;
    std::string activity = torch + ".profiler.ProfilerActivity.";
    std::string list = "[" + activity + "CPU" + (on ? ", " + activity + "CUDA" : std::string()) + "]";
    // Unsafe: without `activities=` the profiler takes every activity the machine supports (an
    // XPU or MTIA build adds its own), which a literal list does not.
    d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, "Use `activities=` instead of `use_cuda=`",
                          {{startOf(keyword), endOf(keyword), "activities=" + list}}};
  }

  void checkMeshgrid(TSNode call, Context& ctx) const {
    if (!ts_node_is_null(keywordArgumentNode(call, "indexing", ctx.source()))) return;
    if (positionalArguments(call).empty()) return;
    Diagnostic& d = ctx.report(call, "`torch.meshgrid` without `indexing=` warns; pass `indexing=\"ij\"` or `\"xy\"`");
    d.help = "A later release will require it; `\"ij\"` is what it does now, `\"xy\"` NumPy's default.";
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Add `indexing=\"ij\"`",
                          {appendArgument(call, "indexing=\"ij\"", ctx.source())}};
  }

  void checkSoftmax(TSNode call, const SoftmaxEntry& e, Context& ctx) const {
    if (!ts_node_is_null(keywordArgumentNode(call, "dim", ctx.source()))) return;
    if (positionalArguments(call).size() > e.dim_position) return;
    // F.softmax() with no input at all is another error, not this one.
    if (e.dim_position == 1 && positionalArguments(call).empty() &&
        ts_node_is_null(keywordArgumentNode(call, "input", ctx.source())))
      return;
    std::string name = shortName(e.name);
    Diagnostic& d = ctx.report(call, "`" + name + "` without `dim` picks a deprecated implicit dimension; pass `dim=`");
    d.help = "Usually `dim=-1`, the last dimension.";
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL113, DeprecatedArgument)

}  // namespace ptlint::rules
