// What torch.compile reaches in one file: the functions Dynamo traces, so that rules can ask
// "is this node compiled code?" (PTL501 `.item()`, PTL502 `print`).
//
// Roots: functions that other files of the project compile (given by the project index as
// `ProjectFacts`: `Cls.forward` of a class another file passes to torch.compile, reaches through
// a submodule or a call); functions decorated with `torch.compile` (bare or called, any alias) or with a configured
// compile decorator; functions, bound methods and module instances passed to `torch.compile(...)`
// (an instance of a class defined in the file stands for its `forward`). From the roots the
// region grows along direct calls to functions of the same file: `helper(x)`, `self.helper(x)`,
// `Cls.method(x)`, `super().method(x)`, and calls of same-file module instances
// (`self.block(x)` -> `Block.forward`). Functions under `torch.compiler.disable` /
// `torch._dynamo.disable` are never compiled, and the region does not grow through them.
//
// Invariants: the analysis is syntactic and per file; anything it cannot resolve (a parameter, an
// import, a value built in another file) is not compiled. Precision over recall. Built once per
// SemanticModel and read-only afterwards; never recurses on tree depth.
#pragma once

#include <tree_sitter/api.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/module_summary.h"
#include "analysis/semantic_model.h"

namespace ptlint::analysis {

class PrefilterText;

class CompiledRegions {
 public:
  // One compiled function (a `function_definition`).
  struct Function {
    TSNode def{};           // the function_definition
    std::string_view name;     // its name, pointing into the source
    std::string display_name;  // `name`, or `Class.name` for a method
    // Roots: the decorator or `torch.compile(...)` call that compiles it. Reached functions: the
    // call in `caller` that reaches it.
    TSNode site{};
    const Function* caller = nullptr;  // nullptr for roots
    // The root this function was first reached from (itself for a root).
    const Function* root = nullptr;
    // Set for a root compiled from another file (the project index's facts): how it is reached.
    const ExternalCompileRoot* external = nullptr;
  };

  // Builds the analysis. `extra_decorators` are qualified names (config `compile-decorators`)
  // that compile the function they decorate, like `torch.compile`.
  // `project` (may be null) adds the functions other files compile as roots.
  CompiledRegions(const SemanticModel& model, std::vector<std::string> extra_decorators,
                  std::shared_ptr<const ProjectFacts> project = nullptr);
  ~CompiledRegions();
  CompiledRegions(const CompiledRegions&) = delete;
  CompiledRegions& operator=(const CompiledRegions&) = delete;

  // False when no identifier in `file` can name torch.compile or one of `extra_decorators`: then
  // nothing is compiled, and no model is needed to know it.
  static bool mayCompileAnything(const ParsedFile& file, const std::vector<std::string>& extra_decorators);
  // Before parsing, on the code (strings and comments blanked): does it name one of `words` (a
  // rule's trigger words: `compile`, `optimize`, the configured decorators' last segments) as
  // an identifier that can be a compiler? `compile` and `optimize` count only where they can
  // name torch's: not in `re.compile(...)` where `re` is never bound by `as re`, `re = ...` or
  // `re: ...` (`import re` binds the module `re`). Errs towards true.
  static bool mayCompileAnythingInCode(const PrefilterText& source, std::span<const std::string_view> words,
                                       const std::vector<std::string>& extra_decorators);

  // The analysis for `model`, built on first use and cached for the model's lifetime (one per
  // set of extra decorators). Thread-safe.
  static const CompiledRegions& of(const SemanticModel& model, const std::vector<std::string>& extra_decorators,
                                   const std::shared_ptr<const ProjectFacts>& project = nullptr);

  // The compiled function whose body contains `node` (the innermost enclosing def; lambdas and
  // comprehensions belong to the def around them), or nullptr when `node` is not compiled code.
  const Function* functionAt(TSNode node) const;
  bool isCompiled(TSNode node) const { return functionAt(node) != nullptr; }

  // True when `node` only runs eagerly: Dynamo resolves `torch.compiler.is_compiling()` while
  // tracing and drops the branch it guards (`if not torch.compiler.is_compiling(): ...`, the `else`
  // of `if is_compiling():`, code after `if is_compiling(): return`).
  bool isSkippedWhileCompiling(TSNode node) const;

  // Every compiled function, roots first, then in the order they were reached.
  const std::vector<std::unique_ptr<Function>>& functions() const { return compiled_; }
  const std::vector<std::string>& extraDecorators() const { return extra_decorators_; }

  // True when the file turns on `torch._dynamo.config.capture_scalar_outputs`, under which
  // Dynamo captures `.item()` in the graph instead of breaking it.
  bool capturesScalarOutputs() const { return captures_scalars_; }

 private:
  class Builder;
  const SemanticModel& model_;
  std::vector<std::string> extra_decorators_;
  std::shared_ptr<const ProjectFacts> project_;
  std::vector<std::unique_ptr<Function>> compiled_;
  std::unordered_map<const void*, const Function*> by_def_;  // def node id -> compiled function
  bool captures_scalars_ = false;
};

// Is `qualified` torch's compile entry point (`torch.compile`, `torch.compiler.compile`)?
bool isTorchCompile(std::string_view qualified);
// Is `qualified` Dynamo's older compile entry point, a decorator factory
// (`torch._dynamo.optimize("inductor")(fn)`)?
bool isDynamoOptimize(std::string_view qualified);
// Is `qualified` a predicate that is true while Dynamo traces (`torch.compiler.is_compiling`, ...)?
bool isCompilingPredicate(std::string_view qualified);
// Is `qualified` a decorator that keeps Dynamo out of a function (`torch.compiler.disable`,
// `torch._dynamo.disable`, ...)?
bool isDynamoDisable(std::string_view qualified);
// Is `spelled` (a decorator as the code names it: `disable_compiler`, `utils.dynamo_disable`) a
// project's own alias of such a decorator, which the analysis cannot follow
// (`disable_compiler = getattr(torch.compiler, "disable", None) or nullwrap` in timm)? Its name
// says so: what it decorates is taken as not compiled.
bool namesDynamoDisable(std::string_view spelled);

}  // namespace ptlint::analysis
