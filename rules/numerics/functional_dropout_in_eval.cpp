// PTL706 functional-dropout-in-eval: `F.dropout(x, p)` in a module's method without `training=`.
#include <algorithm>
#include <array>
#include <span>
#include <string>

#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/common/dropout_values.h"
#include "rules/common/module_methods.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;

constexpr RuleMeta kFunctionalDropoutInEval{
    .code = "PTL706",
    .name = "functional-dropout-in-eval",
    .summary = "Functional dropout without `training=` in a module stays on in `eval()`",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Reports `torch.nn.functional.dropout`, `dropout1d`, `dropout2d` and `dropout3d` (any import or
alias) called in a method of an `nn.Module` subclass without a `training` argument (keyword or third positional). It is not reported when the method
reads `training` anywhere (a call under `if self.training:`, an early
`if not self.training: return x`), when the class overrides `train()` or `eval()`, when the
probability is literally `0`, or when the arguments are passed through `**kwargs`.

## Why is this bad?
The functional forms take the mode as an argument, and its default is `training=True`
(`torch/nn/functional.py`, PyTorch 1.13, 2.6 and 2.14:
`def dropout(input, p=0.5, training=True, inplace=False)`, the same for `dropout1d`, `dropout2d`
and `dropout3d`). Unlike
`nn.Dropout`, they do not read the module's mode: after `model.eval()` activations are still
zeroed at random and scaled by `1 / (1 - p)`, so validation and inference are noisy and not
deterministic.

`alpha_dropout` and `feature_alpha_dropout` are not reported: their default is
`training=False` in the same releases, so without the argument they do nothing, in training too.

## Example
```python
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def forward(self, x):
        return F.dropout(self.fc(x), 0.1)
```

## Use instead
```python
class Block(nn.Module):
    def forward(self, x):
        return F.dropout(self.fc(x), 0.1, training=self.training)
```

Or use an `nn.Dropout` submodule, which follows `train()` and `eval()`.

## Fix safety
The fix adds `training=self.training`. It is unsafe: it changes what the module computes in
evaluation mode (which is the point), and code that relied on dropout at inference (Monte Carlo
dropout) would lose it.

## Releases
`torch/nn/functional.py`: `dropout(input, p=0.5, training=True, ...)` in 1.13, 2.6 and 2.14; the
premise and the fix hold 1.13–2.14.

## References
- [`torch.nn.functional.dropout`](https://docs.pytorch.org/docs/stable/generated/torch.nn.functional.dropout.html)
- [`torch/nn/functional.py` (2.6)](https://github.com/pytorch/pytorch/blob/v2.6.0/torch/nn/functional.py)
)md"};

// Those whose `training` defaults to True (`alpha_dropout`'s and `feature_alpha_dropout`'s is False).
constexpr std::array<std::string_view, 4> kDropouts{"dropout", "dropout1d", "dropout2d", "dropout3d"};

class FunctionalDropoutInEval final : public Rule {
 public:
  const RuleMeta& meta() const override { return kFunctionalDropoutInEval; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // Before parsing, on the code: a class, and a call of one of the names whose arguments do not
  // spell `training` (keyword or third positional, as far as the commas show).
  // Some call of one of the names that passes no `training` (a keyword, a third positional).
  Prefilter prefilter() const override {
    return {.words = {kDropouts.begin(), kDropouts.end()}, .whole_words = true, .code_names = {{"class"}}};
  }
  bool mayReport(const PrefilterInput& input, const Settings&) const override {
    if (input.parsed != nullptr) {
      const analysis::ParsedFile& file = *input.parsed;
      std::string_view source = file.text();
      TSNode root = file.root();
      for (std::string_view name : kDropouts) {
        bool found = analysis::forEachWholeWord(source, name, [&](size_t at) {
          TSNode node = ts_node_descendant_for_byte_range(root, static_cast<uint32_t>(at),
                                                          static_cast<uint32_t>(at + name.size()));
          if (!analysis::isKind(node, kind::identifier)) return false;
          TSNode callee = node, parent = ts_node_parent(node);
          if (analysis::isKind(parent, kind::attribute)) {
            callee = parent;
            parent = ts_node_parent(parent);
          }
          if (!analysis::isKind(parent, kind::call) || !analysis::sameNode(fieldOf(parent, "function"), callee)) return false;
          return ts_node_is_null(keywordArgumentNode(parent, "training", source)) &&
                 positionalArguments(parent).size() < 3;
        });
        if (found) return true;
      }
      return false;
    }
    const analysis::PrefilterText& source = input.source;
    const std::string* view = source.code();
    if (view == nullptr) return true;
    std::string_view code = *view;
    for (std::string_view name : kDropouts) {
      bool found = analysis::forEachWholeWord(code, name, [&](size_t at) {
        std::string_view args = callArgumentsAt(code, at, name.size());
        if (args.data() == nullptr) return false;
        if (args.find("training") == std::string_view::npos) return true;
        // `training` named: report only when it is neither a keyword nor the third argument.
        int depth = 0, commas = 0;
        for (char c : args) {
          if (c == '(' || c == '[' || c == '{') ++depth;
          else if (c == ')' || c == ']' || c == '}') --depth;
          else if (c == ',' && depth == 0) ++commas;
        }
        return commas < 2 && args.find("training=") == std::string_view::npos &&
               args.find("training =") == std::string_view::npos;
      });
      if (found) return true;
    }
    return false;
  }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    TSNode function_node = fieldOf(call, "function");
    if (analysis::isKind(function_node, kind::attribute)) {
      std::string_view attribute = ctx.text(fieldOf(function_node, "attribute"));
      if (std::find(kDropouts.begin(), kDropouts.end(), attribute) == kDropouts.end()) return;
    } else if (!analysis::isKind(function_node, kind::identifier)) {
      return;
    }
    auto callee = model.calleeName(call);
    if (!callee || !callee->starts_with("torch.nn.functional.")) return;
    std::string_view function = std::string_view(*callee).substr(sizeof("torch.nn.functional.") - 1);
    bool known = false;
    for (std::string_view name : kDropouts) known = known || function == name;
    if (!known) return;
    std::string_view source = ctx.source();
    if (!ts_node_is_null(keywordArgumentNode(call, "training", source)) || hasDoubleStarArguments(call) ||
        hasStarArguments(call))
      return;
    auto positional = positionalArguments(call);
    if (positional.size() >= 3) return;
    TSNode p = keywordArgument(call, "p", source);
    if (ts_node_is_null(p) && positional.size() >= 2) p = positional[1];
    if (!ts_node_is_null(p) && isZeroProbability(model, p)) return;
    ModeBlindMethod method;
    if (!modeBlindModuleMethod(model, call, method)) return;

    Diagnostic& d = ctx.report(
        call, fmt::format("`{}` still drops after `eval()`; pass `training={}.training`",
                          function, method.self));
    d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, "Add `training=self.training`",
                          {appendArgument(call, fmt::format("training={}.training", method.self), source)}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL706, FunctionalDropoutInEval)

}  // namespace ptlint::rules
