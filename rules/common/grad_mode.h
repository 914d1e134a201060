// Grad mode as the code shows it: the `with` blocks and decorators that turn autograd off, the
// functions that manage gradients themselves, and how a use of a function leaves grad mode for
// the code it runs. PTL707 asks these in its file; the project index asks them of the files that
// call a file's evaluation functions from elsewhere (`ProjectFacts::callers`).
#pragma once

#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <vector>

#include "analysis/semantic_model.h"

namespace ptlint::rules {

// `torch.no_grad()`, `torch.inference_mode()`, `torch.set_grad_enabled(...)` (any import form),
// as a `with` item or a decorator (with or without the call).
bool isGradModeCall(const analysis::SemanticModel& model, TSNode expr);
// Under the body of a `with` of one of those, within its function.
bool underGradModeBlock(const analysis::SemanticModel& model, TSNode node);
// A def decorated with one of those.
bool decoratedWithGradMode(const analysis::SemanticModel& model, TSNode function);
// The subtree spells `no_grad`, `inference_mode`, `set_grad_enabled`, `enable_grad`,
// `requires_grad_`, `backward`, `autograd` or `grad` as an identifier: code that manages
// gradients itself.
bool spellsGradWords(TSNode node, std::string_view source);

// A reference to a function at `name` (an identifier, or the attribute of `mod.f`): whether it
// calls the function, and whether what runs may be under grad mode off — the call is under a
// grad-mode block, in a function decorated with one or managing gradients, or the function is
// passed as a value (to a caller nobody can see).
struct FunctionUse {
  bool called = false;
  bool grad_off_or_unknown = false;
};
FunctionUse functionUseAt(const analysis::SemanticModel& model, TSNode name);

// For `X.eval()` (a statement, no argument) in a def: the first call `X(...)` after it in the
// def's own body, outside grad-mode blocks and assertions — when grad mode is on there as far as
// the def shows (it neither manages gradients nor has a grad-mode decorator, and its name does
// not start with `test`). Null otherwise.
TSNode runAfterEvalMode(const analysis::SemanticModel& model, TSNode eval_call);

// The top-level functions of the file where runAfterEvalMode finds a call: those PTL707 reports
// unless their callers turn grad mode off.
std::vector<std::string> evaluationModeFunctions(const analysis::SemanticModel& model);

// The references of the file to one of `names` through an import (`from .eval import evaluate`
// then `evaluate(...)`, `utils.evaluate(...)`), with the qualified name the import gives (relative
// imports keep their dots) and the use's grad mode. Import statements and definitions are not uses.
struct ImportedUse {
  std::string qualified;
  FunctionUse use;
  uint32_t start = 0, end = 0;
};
std::vector<ImportedUse> importedUses(const analysis::SemanticModel& model, const std::vector<std::string>& names);

}  // namespace ptlint::rules
