// PTL707 eval-with-grad: a function that calls `model.eval()` and then runs `model(...)` with
// grad mode on, building autograd graphs it never uses.
#include <array>
#include <string>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
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
gradients itself), and no call of the function in the file is under such a block. A call
inside an assertion (`assert`, `self.assertEqual(model(x), ...)`: a test comparing outputs) is
not reported, nor are test functions (`test_*`). A function
that the file never calls, whose callers may be in other files, is still checked only
when its name says it evaluates or predicts (`evaluate`, `validate`, `test_epoch`,
`predict`, `inference`, ...). One finding per function, on the first call.

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

constexpr std::array<std::string_view, 8> kGradWords{"no_grad",  "inference_mode", "set_grad_enabled", "enable_grad",
                                                     "requires_grad_", "backward", "autograd", "grad"};

bool isGradModeCall(const analysis::SemanticModel& model, TSNode expr) {
  expr = analysis::unparenthesize(expr);
  if (isKind(expr, "call")) expr = fieldOf(expr, "function");
  auto name = model.qualifiedName(expr);
  if (!name) return false;
  return *name == "torch.no_grad" || *name == "torch.inference_mode" || *name == "torch.set_grad_enabled" ||
         *name == "torch.autograd.grad_mode.no_grad" || *name == "torch.autograd.grad_mode.inference_mode" ||
         *name == "torch.autograd.no_grad" || *name == "torch.autograd.grad_mode.set_grad_enabled";
}

bool underGradModeBlock(const analysis::SemanticModel& model, TSNode node) {
  for (TSNode item : enclosingWithItems(node))
    if (isGradModeCall(model, item)) return true;
  return false;
}

bool evaluationName(std::string_view name) {
  for (std::string_view word : {"eval", "valid", "test", "predict", "infer", "score", "sample", "generate"})
    if (name.find(word) != std::string_view::npos) return true;
  return false;
}

bool spellsAny(TSNode node, std::string_view source) {
  bool found = false;
  analysis::walkTree(
      node,
      [&](TSNode n) {
        if (found) return false;
        if (isKind(n, "identifier")) {
          std::string_view text = analysis::textOf(n, source);
          for (std::string_view word : kGradWords) found = found || text == word;
        }
        return !found;
      },
      [](TSNode) {});
  return found;
}

class EvalWithGrad final : public Rule {
 public:
  const RuleMeta& meta() const override { return kEvalWithGrad; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> triggers() const override { return {"eval"}; }
  bool triggersAreWholeWords() const override { return true; }
  bool mayMatchSource(const analysis::PrefilterText& source, const Settings&) const override {
    // Some `R.eval()` whose receiver `R` is called further on (`R(`).
    if (!source.codeNamesAny({"torch"})) return false;
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
  bool mayReportIn(const analysis::ParsedFile& file, const Settings&) const override {
    return callsNamed(file, "eval") && namesIdentifier(file, "torch");
  }
  // Every finding is reported from a `.eval()` call, which spells the word.
  bool checksWithinRanges() const override { return true; }
  std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel& model,
                                                         const Settings&) const override {
    return wordRanges(model.file().text(), {"eval"});
  }

  void check(TSNode call, Context& ctx) const override {
    std::string_view source = ctx.source();
    if (methodName(call, source) != "eval" || ts_node_named_child_count(argumentList(call)) != 0) return;
    TSNode statement = enclosingStatement(call);
    if (!isKind(statement, "expression_statement")) return;  // `model.eval()` as a statement
    TSNode function = enclosingFunctionOrModule(call);
    if (!isKind(function, "function_definition")) return;
    const auto& model = ctx.model();
    if (!model.importsModule("torch")) return;
    TSNode receiver = fieldOf(fieldOf(call, "function"), "object");
    std::string_view name = ctx.text(receiver);
    if (!isKind(receiver, "identifier") && !isKind(receiver, "attribute")) return;
    TSNode body = fieldOf(function, "body");
    if (spellsAny(body, source)) return;
    // Decorated with a grad mode.
    if (TSNode decorated = ts_node_parent(function); isKind(decorated, "decorated_definition")) {
      bool grad_mode = false;
      analysis::forEachNamedChild(decorated, [&](TSNode child) {
        if (isKind(child, "decorator") && isGradModeCall(model, ts_node_named_child(child, 0))) grad_mode = true;
      });
      if (grad_mode) return;
    }
    // The first call of the receiver after `.eval()`, outside grad-mode blocks and nested defs.
    TSNode first{};
    analysis::walkTree(
        body,
        [&](TSNode n) {
          if (!ts_node_is_null(first) || isCodeBoundary(n)) return false;
          if (isKind(n, "call") && analysis::startOf(n) > analysis::endOf(call) &&
              ctx.text(fieldOf(n, "function")) == name && !underGradModeBlock(model, n) &&
              !insideAssertion(n, source))
            first = n;
          return ts_node_is_null(first);
        },
        [](TSNode) {});
    if (ts_node_is_null(first)) return;
    // Its callers in this file: any under a grad-mode block decides.
    std::string_view function_name = ctx.text(fieldOf(function, "name"));
    if (function_name.starts_with("test")) return;  // a test checks outputs; its graphs are its own
    bool called = false, called_without_grad = false;
    analysis::forEachWholeWord(source, function_name, [&](size_t at) {
      TSNode node = ts_node_descendant_for_byte_range(ctx.file().root(), static_cast<uint32_t>(at),
                                                      static_cast<uint32_t>(at + function_name.size()));
      TSNode parent = ts_node_parent(node);
      if (isKind(parent, "attribute") && analysis::sameNode(fieldOf(parent, "attribute"), node)) {
        node = parent;
        parent = ts_node_parent(node);
      }
      if (!isKind(parent, "call") || !analysis::sameNode(fieldOf(parent, "function"), node)) {
        // Passed as a value (a callback, a hook): its caller is unknown.
        if (!analysis::contains(fieldOf(function, "name"), node)) called_without_grad = true;
        return false;
      }
      called = true;
      if (underGradModeBlock(model, parent)) called_without_grad = true;
      TSNode caller = enclosingFunctionOrModule(parent);
      if (isKind(caller, "function_definition") && spellsAny(fieldOf(caller, "body"), source)) called_without_grad = true;
      return false;
    });
    if (called_without_grad) return;
    if (!called && !evaluationName(function_name)) return;

    Diagnostic& d = ctx.report(
        first, fmt::format("`{}` runs after `{}.eval()` with grad mode on: `eval()` does not disable autograd, so "
                           "every forward records a graph; run it under `torch.no_grad()` or `torch.inference_mode()`",
                           name, name));
    d.related.push_back({analysis::startOf(call), analysis::endOf(call), "evaluation mode is set here"});
    bool needs_import = false;
    std::string torch = torchModuleName(model, function, needs_import);
    if (needs_import) return;
    TSNode anchor = isKind(ts_node_parent(function), "decorated_definition") ? ts_node_parent(function) : function;
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
