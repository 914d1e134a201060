// PTL111 legacy-tf32-api: the `allow_tf32` switches and `set_float32_matmul_precision`, which
// PyTorch 2.9 replaced with the `fp32_precision` settings.
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

constexpr RuleMeta kLegacyTf32Api{
    .code = "PTL111",
    .name = "legacy-tf32-api",
    .summary = "Legacy TF32 switch where the `fp32_precision` settings exist",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .deprecated_tag = true,
    .since_torch = "2.9",
    .docs = R"md(
## What it does
When every release of the configured `torch-version` range has the `fp32_precision` settings
(2.9 and later), reports the legacy TF32 switches, read or assigned, through any import or
alias: `torch.backends.cuda.matmul.allow_tf32`, `torch.backends.cudnn.allow_tf32` and
`torch.set_float32_matmul_precision(...)`. When the same file also assigns an `fp32_precision`,
the finding is an `error`: the two interfaces are mixed, which raises (below).

## Why is this bad?
PyTorch 2.9 introduced per-backend, per-operation precision settings
(`torch.backends.cuda.matmul.fp32_precision`, `torch.backends.cudnn.conv.fp32_precision`,
`torch.backends.cudnn.rnn.fp32_precision`, `torch.backends.fp32_precision`, with the values
`"ieee"`, `"tf32"`, `"bf16"` and `"none"`) and documents the `allow_tf32` switches and
`set_float32_matmul_precision` as the legacy interface to be deprecated. Both interfaces write
the same state, and the old one cannot express every state of the new: in PyTorch 2.14, after
`torch.backends.cuda.matmul.fp32_precision = "tf32"`, reading
`torch.backends.cuda.matmul.allow_tf32` or calling `torch.get_float32_matmul_precision()` raises
`RuntimeError` ("you have used mix of the legacy and new APIs"), and after
`torch.backends.cudnn.conv.fp32_precision = "ieee"` reading `torch.backends.cudnn.allow_tf32`
raises too (`at::Context::allowTF32CuBLAS` / `allowTF32CuDNN`). PyTorch's own code reads the
legacy switches (Inductor's `torch/_inductor/kernel/conv.py` reads
`torch.backends.cudnn.allow_tf32`), so a program that mixes the two can fail far from either line.

## Example
```python
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
torch.set_float32_matmul_precision("high")
```

## Use instead
```python
torch.backends.cuda.matmul.fp32_precision = "tf32"
torch.backends.cudnn.conv.fp32_precision = torch.backends.cudnn.rnn.fp32_precision = "tf32"
```

## Fix safety
Offered when the whole range has the new settings, for assignments of a literal `True`/`False`
and calls with a literal precision, as statements; safe, with the mapping PyTorch itself applies
(read back from the new settings after each legacy call in PyTorch 2.14):
- `matmul.allow_tf32 = True` / `False` → `matmul.fp32_precision = "tf32"` / `"ieee"`;
- `cudnn.allow_tf32 = True` / `False` → both `cudnn.conv.fp32_precision` and
  `cudnn.rnn.fp32_precision` set to `"tf32"` / `"none"` (the legacy switch sets both, and
  `False` leaves them `"none"`, not `"ieee"`);
- `set_float32_matmul_precision("high")` / `("highest")` → `matmul.fp32_precision = "tf32"` /
  `"ieee"`. `"medium"` also selects bfloat16 for oneDNN (`torch.backends.mkldnn.matmul`) and
  has no fix.
Reads have no fix.

## PyTorch versions
`fp32_precision` exists from PyTorch 2.9 (absent from 2.6's `torch/backends/cuda/__init__.py`,
present in 2.14's); the rule is silent when the range's oldest release is older, since the
migration cannot be made there (in 2.6, `torch.backends.cuda.matmul.fp32_precision = "tf32"`
raises `AttributeError: Unknown attribute fp32_precision`). PyTorch 2.14 accepts the legacy
interface alone without a warning; the deprecation is announced in its documentation. The
mapping of the fix and the errors of mixing were read back from PyTorch 2.14 (CPU build).

## Releases
`torch/backends/cuda/__init__.py` and `torch/backends/cudnn/__init__.py`: `fp32_precision` exists
in 2.14, not in 2.6 (2.9 introduced it); the legacy switches are reported only where the whole
range has it.

## References
- [CUDA semantics: TensorFloat-32](https://pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices)
- [torch/backends/cuda/__init__.py](https://github.com/pytorch/pytorch/blob/main/torch/backends/cuda/__init__.py), [aten/src/ATen/Context.cpp](https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/Context.cpp)
)md"};

enum class Legacy { None, Matmul, Cudnn };

Legacy legacyAttribute(const Context& ctx, TSNode attribute) {
  if (!isKind(attribute, kind::attribute) || ctx.text(fieldOf(attribute, "attribute")) != "allow_tf32") return Legacy::None;
  auto q = ctx.model().qualifiedName(attribute);
  if (!q) return Legacy::None;
  if (*q == "torch.backends.cuda.matmul.allow_tf32") return Legacy::Matmul;
  if (*q == "torch.backends.cudnn.allow_tf32") return Legacy::Cudnn;
  return Legacy::None;
}

// Does the file assign some `...fp32_precision` (in code, not strings or comments)?
bool setsFp32Precision(const Context& ctx) {
  std::string_view code = analysis::codeOrText(ctx.model().file());
  bool found = false;
  analysis::forEachWholeWord(code, "fp32_precision", [&](size_t at) {
    size_t i = at + 14;
    while (i < code.size() && (code[i] == ' ' || code[i] == '\t')) ++i;
    found = i < code.size() && code[i] == '=' && (i + 1 == code.size() || code[i + 1] != '=');
    return found;
  });
  return found;
}

class LegacyTf32Api final : public Rule {
 public:
  const RuleMeta& meta() const override { return kLegacyTf32Api; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::attribute, kind::call}; }
  // Before parsing, so that a range the rule is silent for parses nothing: a finding is an
  // attribute `.allow_tf32` or a call of a name spelled `set_float32_matmul_precision` (in code;
  // `allow_tf32` alone is a parameter of many of PyTorch's own functions).
  Prefilter prefilter() const override {
    return {.words = {"allow_tf32", "set_float32_matmul_precision"},
            .whole_words = true,
            .floor_at_least = versions::addedIn(versions::kFp32Precision)};
  }
  bool mayReport(const PrefilterInput& input, const Settings&) const override {
    if (input.parsed != nullptr) return true;
    const analysis::PrefilterText& source = input.source;
    const std::string* code = source.code();
    std::string_view text = code != nullptr ? std::string_view(*code) : source.text();
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\' || c == '\f'; };
    if (analysis::forEachWholeWord(text, "allow_tf32", [&](size_t at) {
          size_t b = at;
          while (b > 0 && space(text[b - 1])) --b;
          return b > 0 && text[b - 1] == '.';
        }))
      return true;
    return analysis::forEachWholeWord(text, "set_float32_matmul_precision", [&](size_t at) {
      size_t i = at + 28;
      while (i < text.size() && space(text[i])) ++i;
      return i < text.size() && text[i] == '(';
    });
  }

  void check(TSNode node, Context& ctx) const override {
    if (!versions::floorAtLeast(ctx.settings(), versions::addedIn(versions::kFp32Precision))) return;
    if (isKind(node, kind::attribute)) return checkAttribute(node, ctx);
    checkCall(node, ctx);
  }

 private:
  std::string suffix(const Context& ctx) const { return versions::judgedFor(ctx.settings()); }
  static void markMixed(Diagnostic& d, const Context& ctx) {
    if (!setsFp32Precision(ctx)) return;
    d.severity = Severity::Error;
    d.help = "With `fp32_precision` also set here, reading it raises \"mix of the legacy and new APIs\".";
  }

  void checkAttribute(TSNode attribute, Context& ctx) const {
    Legacy kind = legacyAttribute(ctx, attribute);
    if (kind == Legacy::None) return;
    std::string name = kind == Legacy::Matmul ? "torch.backends.cuda.matmul.allow_tf32" : "torch.backends.cudnn.allow_tf32";
    std::string instead = kind == Legacy::Matmul ? "`torch.backends.cuda.matmul.fp32_precision`"
                                                 : "`cudnn.conv.fp32_precision` / `cudnn.rnn.fp32_precision`";
    TSNode assignment = ts_node_parent(attribute);
    bool assigned = isKind(assignment, kind::assignment) && analysis::sameNode(fieldOf(assignment, "left"), attribute);
    TSNode range = assigned ? assignment : attribute;
    Diagnostic& d = ctx.report(range, "`" + name + "` is the legacy TF32 switch; use " + instead + suffix(ctx));
    markMixed(d, ctx);
    if (!assigned || !isKind(ts_node_parent(assignment), kind::expression_statement)) return;
    TSNode value = fieldOf(assignment, "right");
    bool on = isTrueLiteral(value);
    if (!on && !isFalseLiteral(value)) return;
    std::string prefix = std::string(ctx.text(fieldOf(attribute, "object")));  // `torch.backends.cuda.matmul`
    // What PyTorch 2.14 reads back after the legacy assignment: matmul False is "ieee", cuDNN's "none".
    std::string precision = on ? "\"tf32\"" : (kind == Legacy::Matmul ? "\"ieee\"" : "\"none\"");
    std::string text;
    if (kind == Legacy::Matmul) {
      text = prefix + ".fp32_precision = " + precision;
    } else {
      text = prefix + ".conv.fp32_precision = " + prefix + ".rnn.fp32_precision = " + precision;
    }
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Use `" + text + "`",
                          {{startOf(assignment), endOf(assignment), text}}};
  }

  void checkCall(TSNode call, Context& ctx) const {
    TSNode callee = fieldOf(call, "function");
    std::string_view last = isKind(callee, kind::attribute) ? ctx.text(fieldOf(callee, "attribute")) : ctx.text(callee);
    if (last != "set_float32_matmul_precision") return;
    auto q = ctx.model().qualifiedName(callee);
    if (!q || *q != "torch.set_float32_matmul_precision") return;
    Diagnostic& d = ctx.report(call, "`torch.set_float32_matmul_precision` is the legacy TF32 switch; use "
                                         "`torch.backends.cuda.matmul.fp32_precision`" + suffix(ctx));
    markMixed(d, ctx);
    if (!isKind(ts_node_parent(call), kind::expression_statement) || hasStarArguments(call) || hasDoubleStarArguments(call))
      return;
    auto args = positionalArguments(call);
    if (args.size() != 1) return;
    auto value = stringLiteral(args[0], ctx.source());
    if (!value || (*value != "high" && *value != "highest")) return;
    bool needs_import = false;
    std::string torch = torchModuleName(ctx.model(), call, needs_import);
    if (needs_import || torch.empty()) return;
    std::string precision = *value == "high" ? "\"tf32\"" : "\"ieee\"";
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, "Use `fp32_precision = " + precision + "`",
                          {{startOf(call), endOf(call), torch + ".backends.cuda.matmul.fp32_precision = " + precision}}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL111, LegacyTf32Api)

}  // namespace ptlint::rules
