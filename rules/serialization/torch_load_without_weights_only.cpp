// PTL801 torch-load-without-weights-only: `torch.load` that may unpickle arbitrary objects.
#include "analysis/name_shapes.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/helpers.h"
#include "rules/torch_releases.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::endOf;
using analysis::fieldOf;
using analysis::startOf;
using analysis::isKind;

constexpr RuleMeta kTorchLoadWithoutWeightsOnly{
    .code = "PTL801",
    .name = "torch-load-without-weights-only",
    .summary = "`torch.load` that can run arbitrary code from the file it loads",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "2.6",
    .docs = R"md(
## What it does
Reports `torch.load(...)` (through any import or alias, including `torch.serialization.load`)
called with `weights_only=False`, at any `torch-version`; and, when the configured
`torch-version` is older than 2.6, `torch.load(...)` without `weights_only=` at all. A call
that passes `**kwargs` is not reported when `weights_only=` is absent (it may be in them), except
when each `**name` is a dict literal bound once in the same scope, with string keys other than
`weights_only`, and named nowhere else there (`load_kwargs = {"map_location": loc}`).

## Why is this bad?
With `weights_only=False`, `torch.load` unpickles the file with Python's full `pickle`: a
crafted checkpoint runs any code it names while it is being loaded. `weights_only=True`
restricts the unpickler to tensors, primitive types and the classes registered with
`torch.serialization.add_safe_globals`. Until PyTorch 2.5 the default was `False`; PyTorch 2.6
changed it to `True` (its own error message says "In PyTorch 2.6, we changed the default value
of the `weights_only` argument in `torch.load` from `False` to `True`"), so a call without the
argument is unsafe only for projects that still support older releases.

## Example
```python
state = torch.load(path, map_location="cpu", weights_only=False)
```

## Use instead
```python
state = torch.load(path, map_location="cpu", weights_only=True)
```

## Fix safety
The fix (`weights_only=True`, `weights_only=` exists since 1.13) is unsafe: a checkpoint
holding objects other than tensors, containers and primitive types (an optimizer's custom
class, a `numpy` array in older formats, an `argparse.Namespace`) then fails to load with an
`UnpicklingError` until those classes are allowed with `torch.serialization.add_safe_globals`.

A `pickle_module=` (keyword, or the third positional argument) changes both: PyTorch 1.13, 2.6
and 2.14 raise `RuntimeError: Can not safely load weights when explicit pickle_module is
specified` when it is passed with `weights_only=True`, and from 2.6 `_default_to_weights_only`
in `torch/serialization.py` makes the default `False` whenever it is given. Such a call is
reported without `weights_only=` at every release, and never fixed.

## PyTorch releases
Judged at the oldest release of `torch-version`: the default changed in 2.6
(`torch/serialization.py`: `weights_only: bool = False` in 1.13, `None` meaning `True` in 2.6 and
2.14), so a call without the argument is reported when the range starts below 2.6;
`weights_only=` itself exists from 1.13, the oldest release read (the fix is offered from there).

## Releases
`torch/serialization.py`: `weights_only=` from 1.13 (False by default); the default is True from
2.6, except with `pickle_module=` (2.6 and 2.14 keep False then); `weights_only=True` with
`pickle_module=` raises in 1.13, 2.6 and 2.14. The missing argument is reported where the range
starts below 2.6; the fix is written only where 1.13's argument exists.

## References
- [torch.load](https://pytorch.org/docs/stable/generated/torch.load.html)
- [Serialization semantics: weights_only](https://pytorch.org/docs/stable/notes/serialization.html#weights-only)
- [torch/serialization.py](https://github.com/pytorch/pytorch/blob/main/torch/serialization.py) (`_get_wo_message`)
)md"};

// `torch.load(f, **load_kwargs)` where `load_kwargs = {"map_location": loc}` is bound once, to a
// dict literal whose keys are string literals other than `weights_only`, and named nowhere else
// in its scope (no later `load_kwargs["weights_only"] = True`): the call passes no
// `weights_only`. Any other `**` argument may carry one.
bool splatsKnownWithout(TSNode call, std::string_view key, const Context& ctx) {
  std::string_view source = ctx.source();
  bool ok = true, any = false;
  analysis::forEachNamedChild(argumentList(call), [&](TSNode arg) {
    if (!ok || !isKind(arg, kind::dictionary_splat)) return;
    any = true;
    TSNode value = ts_node_named_child(arg, 0);
    if (!isKind(value, kind::identifier)) {
      ok = false;
      return;
    }
    std::string_view name = ctx.text(value);
    const analysis::Binding* b = ctx.model().resolve(name, call);
    if (b == nullptr || b->kind != analysis::BindingKind::Assignment || b->scope == nullptr ||
        !isKind(b->value, kind::dictionary)) {
      ok = false;
      return;
    }
    analysis::forEachNamedChild(b->value, [&](TSNode pair) {
      if (isKind(pair, kind::comment)) return;
      TSNode k = fieldOf(pair, "key");
      if (!isKind(pair, kind::pair) || !isKind(k, kind::string) || ctx.text(k).find(key) != std::string_view::npos) ok = false;
    });
    TSNode scope = b->scope->node;
    std::string_view text = source.substr(startOf(scope), endOf(scope) - startOf(scope));
    int count = 0;
    analysis::forEachWholeWord(text, name, [&](size_t) { return ++count > 2; });
    if (count != 2) ok = false;  // the assignment and this `**name`
  });
  return any && ok;
}

class TorchLoadWithoutWeightsOnly final : public Rule {
 public:
  const RuleMeta& meta() const override { return kTorchLoadWithoutWeightsOnly; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // Every finding is a call that names `load` in code, or binds it to another name. From 2.6 on
  // only `weights_only=False` and a pickle module are reported: mayReport then asks for
  // `weights_only` or `pickle_module` in code, or a `load(` given three arguments (the module
  // passed by position), or a `load` not called where it stands (an import, an alias).
  Prefilter prefilter() const override {
    return {.words = {"load"},
            .whole_words = true,
            .words_since = TorchVersion{2, 6},
            .words_since_words = {"weights_only", "pickle_module", "load"},
            .words_in_code = true};
  }
  bool mayReport(const PrefilterInput& input, const Settings& settings) const override {
    if (input.parsed != nullptr || !settings.torch_version.atLeast(2, 6)) return true;
    const analysis::PrefilterText& source = input.source;
    if (source.codeNamesAny({"weights_only", "pickle_module"})) return true;
    const std::string* code = source.code();
    return code == nullptr || analysis::mayCallWithPositional(*code, "load", 3);
  }

  void check(TSNode call, Context& ctx) const override {
    TSNode callee = fieldOf(call, "function");
    // An attribute ends with `load` (`torch.load`, `serialization.load`); a bare name may be an
    // alias of any spelling (`from torch import load as L`, `L = torch.load`): resolved, not read.
    if (!isKind(callee, kind::identifier) && !ctx.text(callee).ends_with("load")) return;
    auto q = ctx.model().qualifiedName(callee);
    if (!q || (*q != "torch.load" && *q != "torch.serialization.load")) return;
    TSNode keyword = keywordArgumentNode(call, "weights_only", ctx.source());
    // `pickle_module=` (or a third positional argument): `weights_only=True` beside it raises
    // RuntimeError in every release, and from 2.6 it makes the default False.
    bool pickle_module = !ts_node_is_null(keywordArgumentNode(call, "pickle_module", ctx.source())) ||
                         positionalArguments(call).size() >= 3;
    if (!ts_node_is_null(keyword)) {
      if (!isFalseLiteral(fieldOf(keyword, "value"))) return;
      Diagnostic& d = ctx.report(call,
                                 "`weights_only=False` lets `torch.load` run arbitrary code; use `weights_only=True`" +
                                     std::string(pickle_module ? " without `pickle_module=`" : ""));
      if (pickle_module) d.help = "`weights_only=True` with `pickle_module=` raises.";
      if (!pickle_module)
        d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, "Replace `weights_only=False` with `weights_only=True`",
                              {{startOf(keyword), endOf(keyword), "weights_only=True"}}};
      return;
    }
    if (pickle_module && releases::existsAt("torch.load(weights_only=)", ctx.settings().torch_version)) {
      if (hasDoubleStarArguments(call) && !splatsKnownWithout(call, "weights_only", ctx)) return;
      ctx.report(call, "`torch.load` with `pickle_module=` can run arbitrary code; drop it and pass `weights_only=True`");
      return;
    }
    if (ctx.torchAtLeast(2, 6)) return;
    if (hasDoubleStarArguments(call) && !splatsKnownWithout(call, "weights_only", ctx)) return;
    Diagnostic& d = ctx.report(call,
                               "`torch.load` without `weights_only=` can run arbitrary code; pass `weights_only=True`" +
                                   versions::judgedFor(ctx.settings()));
    d.help = "Before PyTorch 2.6, `weights_only` defaults to `False`.";
    if (ctx.torchAtLeast(1, 13) && !ts_node_is_null(argumentList(call)) && !hasStarArguments(call))
      d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, "Add `weights_only=True`",
                            {appendArgument(call, "weights_only=True", ctx.source())}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL801, TorchLoadWithoutWeightsOnly)

}  // namespace ptlint::rules
