// PTL109 torchvision-pretrained: the `pretrained=` / `pretrained_backbone=` flags of torchvision's
// model builders, deprecated for `weights=` / `weights_backbone=` in torchvision 0.13.
#include <string>
#include <vector>

#include "analysis/name_shapes.h"
#include "analysis/syntax.h"
#include "rules/register.h"
#include "rules/deprecated/call_rewrite.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"
#include "rules/vision/torchvision_weights.h"

namespace ptlint::rules {
namespace {

using analysis::Binding;
using analysis::BindingKind;
using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::sameNode;
using analysis::startOf;

constexpr RuleMeta kTorchvisionPretrained{
    .code = "PTL109",
    .name = "torchvision-pretrained",
    .summary = "torchvision's deprecated `pretrained=` flag; pass `weights=`",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .deprecated_tag = true,
    .since_torch = "1.12",
    .docs = R"md(
## What it does
Reports `pretrained=` and `pretrained_backbone=` passed to a torchvision model builder
(`torchvision.models.resnet50`, `models.detection.fasterrcnn_resnet50_fpn`,
`models.quantization.resnet50`, `models.video.r3d_18`, ... — every builder decorated with
torchvision's `handle_legacy_interface`), and a literal `True` / `False` passed as the first
positional argument (`resnet50(True)`: the old first parameter, which the shim still reads as
`pretrained`), through any import or alias, when the configured
`torch-version` is 1.12 or later (torchvision 0.13, the release that deprecated the flags,
pairs with PyTorch 1.12).

## Why is this bad?
Since torchvision 0.13 the flags are deprecated ("The parameter 'pretrained' is deprecated since
0.13 and may be removed in the future, please use 'weights' instead") and translated at every
call by a compatibility shim. `pretrained=True` hides which weights are loaded: the shim picks
one entry of the builder's weights enum (`IMAGENET1K_V1` for `resnet50`, although
`IMAGENET1K_V2` is more accurate), and the preprocessing that matches those weights
(`weights.transforms()`) is only reachable from the enum.

## Example
```python
from torchvision.models import resnet50
from torchvision.models.detection import fasterrcnn_resnet50_fpn

model = resnet50(pretrained=True)
detector = fasterrcnn_resnet50_fpn(pretrained=False, pretrained_backbone=True)
```

## Use instead
```python
from torchvision.models import ResNet50_Weights, resnet50
from torchvision.models.detection import fasterrcnn_resnet50_fpn

model = resnet50(weights=ResNet50_Weights.IMAGENET1K_V1)
detector = fasterrcnn_resnet50_fpn(weights=None, weights_backbone=ResNet50_Weights.IMAGENET1K_V1)
```

## Fix safety
The fix is safe: it passes exactly the weights the shim substitutes, read from each builder's
`@handle_legacy_interface(weights=("pretrained", ...))` decorator in torchvision's source
(`COCO_V1` for detection, `COCO_WITH_VOC_LABELS_V1` for segmentation, `KINETICS400_V1` for
video, the `*_QuantizedWeights` entry for quantized builders called with `quantize=True`).
`pretrained=False` becomes `weights=None`; a non-literal flag becomes
`weights=<enum> if flag else None`. The weights enum is imported where it is not yet visible.
A positional flag becomes `weights=` only when it is the call's sole positional argument. The
enum is imported at the top of the file when the file's own import of it comes after a
module-level call. No fix is offered when `weights=` is also given, when the builder has no weights for
`pretrained=True` (`vit_h_14`), or when the shim's choice depends on an argument that is not a
literal (`quantize=flag`).

## Releases
A torchvision premise (deprecated in torchvision 0.13, which pairs with PyTorch 1.12): reported
where the range starts at 1.12 or later.

## References
- [torchvision/models/_utils.py: handle_legacy_interface](https://github.com/pytorch/vision/blob/main/torchvision/models/_utils.py)
- [torchvision models: the weights API](https://pytorch.org/vision/stable/models.html)
)md"};

// "torchvision.models.ResNet50_Weights.IMAGENET1K_V1" -> module, class, member.
struct EnumValue {
  std::string_view module, cls, member;
};
EnumValue split(std::string_view q) {
  size_t last = q.rfind('.');
  size_t cls = q.rfind('.', last - 1);
  return {q.substr(0, cls), q.substr(cls + 1, last - cls - 1), q.substr(last + 1)};
}

class TorchvisionPretrained final : public Rule {
 public:
  const RuleMeta& meta() const override { return kTorchvisionPretrained; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // Every finding calls a builder whose qualified name starts with `torchvision`, which only an
  // import spelling it binds (relative imports do not), so the word is in code. And the call has
  // a keyword argument `pretrained=` / `pretrained_backbone=` in code, or `True` or `False` as its
  // first argument (`resnet50(True)`).
  Prefilter prefilter() const override {
    return {.words = {"torchvision"}, .whole_words = true, .words_in_code = true};
  }
  bool mayReport(const PrefilterInput& input, const Settings&) const override {
    if (input.parsed != nullptr) return true;
    const analysis::PrefilterText& source = input.source;
    if (source.codeNamesAny({"pretrained", "pretrained_backbone"})) return true;
    const std::string* code = source.code();
    if (code == nullptr) return true;
    for (std::string_view word : {"True", "False"})
      if (analysis::forEachWholeWord(*code, word, [&](size_t at) {
            size_t before = analysis::skipSpaceBack(*code, at);
            return before > 0 && (*code)[before - 1] == '(';
          }))
        return true;
    return false;
  }

  void check(TSNode call, Context& ctx) const override {
    if (!ctx.torchAtLeast(1, 12)) return;
    std::string_view source = ctx.source();
    TSNode pretrained = keywordArgumentNode(call, "pretrained", source);
    TSNode backbone = keywordArgumentNode(call, "pretrained_backbone", source);
    // `resnet50(True)`: the legacy flag passed by position (the first parameter of every old
    // builder); the shim maps it to `weights=` and treats a bool there as `pretrained`. A value
    // other than a literal bool may as well be a weights enum, and is not reported.
    TSNode positional{};
    if (ts_node_is_null(pretrained)) {
      auto args = positionalArguments(call);
      if (!args.empty() && (isTrueLiteral(args.front()) || isFalseLiteral(args.front()))) positional = args.front();
    }
    if (ts_node_is_null(pretrained) && ts_node_is_null(backbone) && ts_node_is_null(positional)) return;
    auto q = ctx.model().calleeName(call);
    const vision::Builder* builder = q ? vision::findBuilder(*q) : nullptr;
    if (builder == nullptr) return;
    if (!ts_node_is_null(pretrained))
      report(call, pretrained, ctx.text(fieldOf(pretrained, "name")), fieldOf(pretrained, "value"), "weights",
             pickWeights(call, *builder, ctx), ctx);
    if (!ts_node_is_null(positional)) {
      // Only the last positional argument can become a keyword without moving the others.
      bool alone = positionalArguments(call).size() == 1;
      report(call, positional, "pretrained", positional, "weights", pickWeights(call, *builder, ctx), ctx,
             alone);
    }
    if (!ts_node_is_null(backbone))
      report(call, backbone, ctx.text(fieldOf(backbone, "name")), fieldOf(backbone, "value"), "weights_backbone",
             builder->backbone, ctx);
  }

 private:
  // Is `binding` in place when `at` runs? Code in a function runs after the module's imports; at
  // module level (`resnet50(True)` above `from torchvision.models import ResNet50_Weights`) the
  // binding must come first.
  static bool boundInTime(const Binding* binding, TSNode at) {
    if (binding == nullptr) return false;
    if (startOf(binding->statement) < startOf(at)) return true;
    for (TSNode n = ts_node_parent(at); !ts_node_is_null(n); n = ts_node_parent(n)) {
      analysis::NodeKind kind = analysis::kindOf(n);
      if (kind == kind::function_definition || kind == kind::lambda) return true;
    }
    return false;
  }
  static bool isImportOf(const Binding* binding, std::string_view qualified) {
    return binding->kind == BindingKind::Import && binding->qualified_name == qualified;
  }

  // The weights the shim substitutes for `pretrained=True` in this call: "" when unknown.
  static std::string_view pickWeights(TSNode call, const vision::Builder& b, const Context& ctx) {
    if (b.quantized.empty()) return b.weights;
    TSNode quantize = keywordArgument(call, "quantize", ctx.source());
    if (ts_node_is_null(quantize) || isFalseLiteral(quantize)) return b.weights;
    if (isTrueLiteral(quantize)) return b.quantized;
    return {};
  }

  // `keyword` is the argument replaced (`pretrained=True`, or a positional `True`), `value` its value.
  static void report(TSNode call, TSNode keyword, std::string_view old_name, TSNode value, std::string_view new_name,
                     std::string_view weights, Context& ctx, bool fixable = true) {
    bool by_position = sameNode(keyword, value);
    std::string suggestion = std::string(new_name) + "=";
    std::optional<std::string> enum_text;
    std::vector<quickfix::Edit> edits;
    if (!weights.empty() && weights != "None") {
      EnumValue e = split(weights);
      std::string qualified = std::string(e.module) + "." + std::string(e.cls);
      suggestion += std::string(e.cls) + "." + std::string(e.member);
      // The name the code has at this spot (`models.VGG16_Weights` where the function imported
      // `models`), else an import with the file's others — never hoisted out of the function,
      // `try` or `if` that imports torchvision when it may be missing.
      auto visible = quickfix::visibleSpelling(ctx.model(), qualified, call);
      const Binding* cls_binding = ctx.model().resolve(e.cls, call);
      if (visible) {
        enum_text = *visible + "." + std::string(e.member);
      } else if (cls_binding == nullptr || (isImportOf(cls_binding, qualified) && !boundInTime(cls_binding, call))) {
        if (auto edit = quickfix::addImport(ctx.model(), "from " + std::string(e.module) + " import " + std::string(e.cls))) {
          enum_text = std::string(e.cls) + "." + std::string(e.member);
          edits.push_back(std::move(*edit));
        }
      }
    } else {
      suggestion += "<weights enum>";
    }
    std::string what = by_position ? "Positional `" + std::string(old_name) + "` (`" + std::string(ctx.text(value)) + "`)"
                                   : "`" + std::string(old_name) + "=`";
    Diagnostic& d = ctx.report(keyword, what + " is deprecated; pass `" + suggestion + "`" + versions::judgedFor(ctx.settings()));
    d.help = "Deprecated since torchvision 0.13; `" + std::string(new_name) + "=None` loads no pretrained weights.";
    if (!fixable) return;
    if (!ts_node_is_null(keywordArgumentNode(call, new_name, ctx.source())) || hasDoubleStarArguments(call)) return;
    std::string replacement;
    if (isFalseLiteral(value)) {
      replacement = "None";
      edits.clear();
    } else if (!enum_text) {
      return;
    } else if (isTrueLiteral(value)) {
      replacement = *enum_text;
    } else {
      replacement = *enum_text + " if " + rewrite::asOperand(analysis::unparenthesize(value), ctx.source()) + " else None";
    }
    edits.push_back({startOf(keyword), endOf(keyword), std::string(new_name) + "=" + replacement});
    if (!quickfix::normalizeEdits(edits)) return;
    std::string written = std::string(new_name) + "=" + replacement;
    std::string title = written.size() <= 60 ? "Use `" + written + "`" : "Use `" + std::string(new_name) + "=`";
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, title + " instead of `" + std::string(old_name) + (by_position ? "`" : "=`"), std::move(edits)};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL109, TorchvisionPretrained)

}  // namespace ptlint::rules
