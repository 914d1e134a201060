// PTL107 requires-grad-typo: `require_grad` written for `requires_grad`.
#include <array>

#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::startOf;

constexpr RuleMeta kRequiresGradTypo{
    .code = "PTL107",
    .name = "requires-grad-typo",
    .summary = "`require_grad` where PyTorch reads `requires_grad`",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "",
    .docs = R"md(
## What it does
Reports `x.require_grad = ...` (an attribute assignment) and a `require_grad=` keyword passed to
a tensor factory (`torch.tensor`, `torch.zeros`, `torch.ones`, `torch.empty`, `torch.full`,
`torch.rand`, `torch.randn`, `torch.randint`, `torch.arange`, `torch.linspace`, `torch.eye`,
their `*_like` forms, ...) or to `nn.Parameter`. A file that reads `require_grad` anywhere
(`if cfg.require_grad:`, a parameter named so, `getattr(p, "require_grad")`) uses the name on
purpose, and its assignments to that attribute are not reported; a comment or a message that
mentions the word reads nothing.

## Why is this bad?
The attribute PyTorch reads is `requires_grad`. Tensors accept arbitrary Python attributes, so
`p.require_grad = False` raises nothing and changes nothing: the parameter keeps training.
The keyword form raises a `TypeError` at the call (the factories and `Parameter.__new__` have
no `require_grad` parameter), and is reported as an error.

## Example
```python
for p in backbone.parameters():
    p.require_grad = False
w = torch.zeros(3, require_grad=True)
```

## Use instead
```python
for p in backbone.parameters():
    p.requires_grad = False
w = torch.zeros(3, requires_grad=True)
```

## Fix safety
The fix renames the attribute or keyword and is safe: the old spelling had no effect (or
raised), and the rule stays silent in files that read `require_grad` themselves.

## Releases
No version dependence: `requires_grad_` / `requires_grad` are in `torch/_tensor.py` and
`torch/nn/modules/module.py` of 1.13, 2.6 and 2.14; the premise holds 1.13–2.14.

## References
- [torch.Tensor.requires_grad](https://pytorch.org/docs/stable/generated/torch.Tensor.requires_grad.html)
- [Autograd mechanics: locally disabling gradient computation](https://pytorch.org/docs/stable/notes/autograd.html#locally-disabling-gradient-computation)
)md"};

constexpr std::array<std::string_view, 26> kFactories{
    "torch.tensor",      "torch.zeros",      "torch.ones",        "torch.empty",      "torch.full",
    "torch.rand",        "torch.randn",      "torch.randint",     "torch.arange",     "torch.range",
    "torch.linspace",    "torch.logspace",   "torch.eye",         "torch.zeros_like", "torch.ones_like",
    "torch.empty_like",  "torch.full_like",  "torch.rand_like",   "torch.randn_like", "torch.randint_like",
    "torch.randperm",    "torch.empty_strided", "torch.sparse_coo_tensor", "torch.nn.Parameter",
    "torch.nn.parameter.Parameter", "torch.autograd.Variable"};

// Does the code read `require_grad` (`if cfg.require_grad:`, a parameter or variable named so,
// `getattr(p, "require_grad")`, a config key spelled so)? Every other occurrence is a store
// (`.require_grad =`) or a keyword (`require_grad=` in a call), the misspelling this rule looks
// for. Comments and strings that only mention the word are not code and read nothing. Decided
// once per file, from the tree.
struct RequireGradReads {
  bool read = false;
};

bool readsRequireGrad(const analysis::ParsedFile& file) {
  static const char kKey = 0;
  return file
      .treeAnalysis<RequireGradReads>(&kKey, [&] {
        auto out = std::make_shared<RequireGradReads>();
        constexpr std::string_view kWord = "require_grad";
        std::string_view source = file.text();
        analysis::forEachWholeWord(source, kWord, [&](size_t at) {
          TSNode node = ts_node_descendant_for_byte_range(file.root(), static_cast<uint32_t>(at),
                                                          static_cast<uint32_t>(at + kWord.size()));
          analysis::NodeKind kind = analysis::kindOf(node);
          if (kind == kind::comment) return false;
          if (kind == kind::string_content || kind == kind::string) {
            // Only a literal that is exactly the name names it (`getattr(p, "require_grad")`).
            out->read = analysis::textOf(node, source) == kWord;
            return out->read;
          }
          if (kind != kind::identifier) {
            out->read = true;  // broken code, or a token the grammar did not place: assume a read
            return true;
          }
          TSNode parent = ts_node_parent(node);
          if (isKind(parent, kind::keyword_argument) && analysis::sameNode(fieldOf(parent, "name"), node)) return false;
          if (isKind(parent, kind::attribute) && analysis::sameNode(fieldOf(parent, "attribute"), node)) {
            TSNode holder = ts_node_parent(parent);
            if (isKind(holder, kind::assignment) && analysis::sameNode(fieldOf(holder, "left"), parent)) return false;
          }
          out->read = true;
          return true;
        });
        return out;
      })
      .read;
}

class RequiresGradTypo final : public Rule {
 public:
  const RuleMeta& meta() const override { return kRequiresGradTypo; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::assignment, kind::keyword_argument}; }
  // Every finding is an attribute or keyword spelled `require_grad`, in code.
  Prefilter prefilter() const override { return {.words = {"require_grad"}, .whole_words = true, .words_in_code = true}; }

  void check(TSNode node, Context& ctx) const override {
    if (isKind(node, kind::assignment)) {
      TSNode left = fieldOf(node, "left");
      if (!isKind(left, kind::attribute)) return;
      TSNode name = fieldOf(left, "attribute");
      if (ctx.text(name) != "require_grad" || readsRequireGrad(ctx.file())) return;
      Diagnostic& d = ctx.report(left, "`" + std::string(ctx.text(left)) +
                                           "` is a typo PyTorch ignores; use `requires_grad`");
      d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Use `requires_grad` instead of `require_grad`",
                            {{startOf(name), endOf(name), "requires_grad"}}};
      return;
    }
    TSNode name = fieldOf(node, "name");
    if (ctx.text(name) != "require_grad") return;
    TSNode args = ts_node_parent(node);
    TSNode call = isKind(args, kind::argument_list) ? ts_node_parent(args) : TSNode{};
    if (!isKind(call, kind::call)) return;
    auto q = ctx.model().calleeName(call);
    if (!q || std::find(kFactories.begin(), kFactories.end(), *q) == kFactories.end()) return;
    if (!ts_node_is_null(keywordArgumentNode(call, "requires_grad", ctx.source()))) return;
    Diagnostic& d = ctx.report(node, "`require_grad=` raises `TypeError` in `" + *q + "`; use `requires_grad=`");
    d.severity = Severity::Error;
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Use `requires_grad=` instead of `require_grad=`",
                          {{startOf(name), endOf(name), "requires_grad"}}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL107, RequiresGradTypo)

}  // namespace ptlint::rules
