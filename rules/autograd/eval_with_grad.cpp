// PTL707 eval-with-grad: a function that calls `model.eval()` and then runs `model(...)` with
// grad mode on, building autograd graphs it never uses.
#include <array>
#include <string>
#include <vector>

#include "analysis/module_summary.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/common/grad_mode.h"
#include "rules/common/training_loops.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kEvalWithGrad{
    .code = "PTL707",
    .name = "eval-with-grad",
    .summary = "A model run after `.eval()` with grad mode still on",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Reports a call `model(...)` in a function that called `model.eval()` before it (the same
receiver: `model`, `self.model`, `self`), when grad mode is on there as far as the file shows:
the call is under no `with torch.no_grad():`, `torch.inference_mode()` or
`torch.set_grad_enabled(...)`, the function has no `@torch.no_grad()` or
`@torch.inference_mode()` decorator, it names none of `no_grad`, `inference_mode`,
`set_grad_enabled`, `enable_grad`, `requires_grad_`, `backward` or `autograd` (it manages
gradients itself), and no call of the function is under such a block or in a function that
has such a decorator or manages gradients — in the file, or, for a top-level function, in any
file of the project that imports it (`from .evaluation import evaluate`, `metrics.score(...)`).
A function handed on as a value (a callback) has callers nobody can see and is not reported.
A call inside an assertion (`assert`, `self.assertEqual(model(x), ...)`: a test comparing
outputs) is not reported, nor are test functions (`test_*`). A function that no file calls is
still checked only when its name says it evaluates or predicts (`evaluate`, `validate`,
`test_epoch`, `predict`, `inference`, ...). One finding per function, on the first call.

## Why is this bad?
`model.eval()` switches dropout and batch normalisation to their inference behaviour; it does
not turn off autograd: it "is equivalent with `self.train(False)`" (`torch/nn/modules/module.py`,
PyTorch 2.6), and its documentation points to the autograd notes ("Locally disabling gradient
computation"), which compare it with `torch.no_grad()` and `torch.inference_mode()`, the modes
that stop recording. With grad mode on, every forward records the autograd graph and
keeps the activations it saves for a backward that never comes: evaluation takes more memory
and time, and outputs kept in a list (for metrics) keep their whole graphs alive.

## Example
```python
def evaluate(model, loader):
    model.eval()
    return [model(x).argmax(-1) for x in loader]
```

## Use instead
```python
@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    return [model(x).argmax(-1) for x in loader]
```

## Fix safety
The fix adds `@torch.no_grad()` to the function when `torch` is imported. It is unsafe: code
of the function that needs gradients (a saliency map, an adversarial example) would stop
working, and the analysis cannot see everything the function calls.

## Releases
`Module.eval` (`torch/nn/modules/module.py`) changes no grad mode in 1.13, 2.6 and 2.14; the
premise holds 1.13–2.14.

## References
- [`torch.nn.Module.eval`](https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.eval)
- [Autograd mechanics: locally disabling gradient computation](https://docs.pytorch.org/docs/stable/notes/autograd.html#locally-disabling-gradient-computation)
)md"};

bool evaluationName(std::string_view name) {
  for (std::string_view word : {"eval", "valid", "test", "predict", "infer", "score", "sample", "generate"})
    if (name.find(word) != std::string_view::npos) return true;
  return false;
}

class EvalWithGrad final : public Rule {
 public:
  const RuleMeta& meta() const override { return kEvalWithGrad; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  // How other files use its evaluation functions (ProjectFacts::uses).
  Prefilter prefilter() const override {
    return {.words = {"eval"},
            .whole_words = true,
            .code_names = {{"torch"}},
            .tree_names = {{"torch"}},
            .tree_calls = {{"eval"}},
            .project_words = {"eval"}};
  }
  bool mayReport(const PrefilterInput& input, const Settings&) const override {
    if (input.parsed != nullptr) return true;
    const analysis::PrefilterText& source = input.source;
    // Some `R.eval()` whose receiver `R` is called further on (`R(`).
    const std::string* view = source.code();
    if (view == nullptr) return true;
    std::string_view code = *view;
    return analysis::forEachWholeWord(code, "eval", [&](size_t at) {
      std::string_view args = callArgumentsAt(code, at, 4);
      if (args.data() == nullptr || args.find_first_not_of(" \t\n\\") != std::string_view::npos) return false;
      if (at == 0 || code[at - 1] != '.') return false;
      size_t begin = at - 1;
      while (begin > 0 && (analysis::isIdentifierByte(code[begin - 1]) || code[begin - 1] == '.')) --begin;
      std::string_view receiver = code.substr(begin, at - 1 - begin);
      if (receiver.empty()) return false;
      for (size_t from = at; (from = code.find(receiver, from)) != std::string_view::npos; from += receiver.size()) {
        if (from > 0 && (analysis::isIdentifierByte(code[from - 1]) || code[from - 1] == '.')) continue;
        size_t after = from + receiver.size();
        while (after < code.size() && (code[after] == ' ' || code[after] == '\t')) ++after;
        if (after < code.size() && code[after] == '(') return true;
      }
      return false;
    });
  }
  // Every finding is reported from a `.eval()` call, which spells the word.
  bool checksWithinRanges() const override { return true; }
  std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel& model,
                                                         const Settings&) const override {
    return wordRanges(model.file().text(), {"eval"});
  }

  void check(TSNode call, Context& ctx) const override {
    std::string_view source = ctx.source();
    const auto& model = ctx.model();
    if (!model.importsModule("torch")) return;
    TSNode first = runAfterEvalMode(model, call);
    if (ts_node_is_null(first)) return;
    TSNode function = enclosingFunctionOrModule(call);
    std::string_view name = ctx.text(fieldOf(fieldOf(call, "function"), "object"));
    // Its callers in this file and, for a top-level function, in the other files of the project:
    // any under grad mode off (or unknown, as a value passed on) decides.
    std::string_view function_name = ctx.text(fieldOf(function, "name"));
    bool called = false, called_without_grad = false;
    analysis::forEachWholeWord(source, function_name, [&](size_t at) {
      TSNode node = ts_node_descendant_for_byte_range(ctx.file().root(), static_cast<uint32_t>(at),
                                                      static_cast<uint32_t>(at + function_name.size()));
      if (analysis::contains(fieldOf(function, "name"), node)) return false;
      FunctionUse use = functionUseAt(model, node);
      called = called || use.called;
      called_without_grad = called_without_grad || use.grad_off_or_unknown;
      return false;
    });
    const auto& project = ctx.settings().project;
    const analysis::ExternalUse* external = nullptr;
    if (project != nullptr && isKind(ts_node_parent(isKind(ts_node_parent(function), kind::decorated_definition)
                                                       ? ts_node_parent(function)
                                                       : function),
                                     kind::module))
      external = project->useOf(function_name);
    if (external != nullptr) {
      called = called || external->called;
      called_without_grad = called_without_grad || external->grad_off_or_unknown;
    }
    if (called_without_grad) return;
    if (!called && !evaluationName(function_name)) return;

    Diagnostic& d = ctx.report(
        first, fmt::format("`{}` runs after `{}.eval()` with grad mode on; use `torch.no_grad()`", name, name));
    d.help = "`eval()` does not turn off gradients; `torch.inference_mode()` also works and is faster.";
    d.related.push_back({analysis::startOf(call), analysis::endOf(call), "evaluation mode is set here"});
    if (external != nullptr && !external->where.path.empty()) {
      // Called from another file with grad mode on: where.
      const auto& note = external->where;
      RelatedInfo info{note.at.start, note.at.end, note.message};
      info.path = note.path;
      info.line = note.at.line;
      info.column = note.at.column;
      info.column_utf16 = note.at.column_utf16;
      info.column_bytes = note.at.column_bytes;
      d.related.push_back(std::move(info));
    }
    bool needs_import = false;
    std::string torch = torchModuleName(model, function, needs_import);
    if (needs_import) return;
    TSNode anchor = isKind(ts_node_parent(function), kind::decorated_definition) ? ts_node_parent(function) : function;
    uint32_t start = analysis::startOf(anchor);
    uint32_t line_start = start;
    while (line_start > 0 && source[line_start - 1] != '\n') --line_start;
    std::string_view indent = source.substr(line_start, start - line_start);
    if (indent.find_first_not_of(" \t") != std::string_view::npos) return;
    d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, fmt::format("Decorate with `@{}.no_grad()`", torch),
                          {{start, start, fmt::format("@{}.no_grad()\n{}", torch, indent)}}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL707, EvalWithGrad)

}  // namespace ptlint::rules
