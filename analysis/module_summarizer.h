// The walk that summarises one module (module_summary.h `summarizeModule`), shared by the files
// that implement it: module_summary.cpp (the walk, functions, calls), module_summary_classes.cpp
// (what classes an expression's instances may be: constructions, factories' returns, registries,
// containers, `self.<attr>` bound in `__init__`) and module_summary_sites.cpp (compile sites and
// decorators, compiler aliases, capture flags, environment writes). Internal to analysis/.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analysis/module_summary.h"
#include "analysis/semantic_model.h"
#include "analysis/syntax.h"

namespace ptlint::analysis {

class ModuleSummarizer {
 public:
  explicit ModuleSummarizer(const SemanticModel& model) : model_(model), source_(model.file().text()) {}

  ModuleSummary run();

 private:
  static constexpr int kMaxDepth = 8;
  // Methods of `nn.Module` that return the module itself: `Model().cuda()` is still a `Model`.
  static bool returnsSelf(std::string_view method);
  // The first positional argument of a call, or the keyword argument `keyword` if given.
  static TSNode firstArgument(TSNode call, std::string_view keyword, std::string_view source);
  // Is `keyword=True` among the call's arguments?
  static bool hasTrueKeyword(TSNode call, std::string_view keyword, std::string_view source);

  struct Def {
    TSNode def;
    TSNode cls;          // null for a top-level function
    size_t index;        // into out_.functions, or into out_.classes
    size_t method;       // into the class's methods; SIZE_MAX for a top-level function
  };

  FunctionSummary& summaryOf(const Def& d);

  SourcePos pos(TSNode node) const { return sourcePosOf(model_.file(), startOf(node), endOf(node)); }

  FunctionSummary functionHeader(TSNode def);

  // A name the module can refer to: an import, a top-level def or class, `Cls.method`.
  std::optional<NameRef> nameRef(TSNode expr) const;

  // Is `expr` the instance parameter (`self`) of the method `d`?
  bool isSelf(TSNode expr, const Def* d) const;

  // `self.<attr>` -> attr, else empty.
  std::string_view selfAttribute(TSNode expr, const Def* d) const;

  // Is `ident` a parameter of `__init__` `d` (not `self`)? Its name and position after `self`
  // (-1 when keyword-only).
  bool initParameter(TSNode ident, const Def* d, std::string& name, int& index) const;

  // `ident` is a parameter of the top-level function `d` (`def maybe_compile(m)`).
  bool functionParameter(TSNode ident, const Def* d, std::string& name, int& index) const;

  // A parameter of `d`: its name and position (after `self` in a method; -1 keyword-only).
  bool parameterOf(TSNode ident, const Def* d, std::string& name, int& index) const;

  // The class a parameter is annotated with (`model: GPT`, `model: "GPT"` aside), as the module
  // names it; nullopt for anything else.
  std::optional<NameRef> annotatedClass(TSNode ident) const;

  // `Trainer(model, opt)`, `Trainer(model=UNet())`: the arguments that are module instances.
  void noteConstruction(TSNode call, TSNode callee);

  // `self.a` -> "a", `self.a.b` -> "a.b", `self.a["b"]` -> "a.b", `self.a[i]` -> "a"; else empty.
  std::string selfPath(TSNode expr, const Def* d) const;
  bool isCompileCall(TSNode call) const;

  // The classes whose instance `expr` may evaluate to: `Cls(...)`, `Cls(...).to(device)`, a
  // factory's result (`build(cfg)`, `Cls.from_pretrained(...)`: the linker follows what it
  // returns), a name every binding of which is one of those (wrappers `torch.compile(name)`
  // aside; `model = GPT(cfg)` in one branch and `model = GPT.from_pretrained(...)` in another give
  // both). False when some alternative cannot be named.
  bool instanceClasses(TSNode expr, int depth, std::vector<NameRef>& out) const;

  // `cls` in a classmethod of a top-level class: that class (`model = cls(**kwargs)`).
  std::optional<NameRef> clsParameterClass(TSNode ident) const;

  // `return <value>` in `d`: what a factory returns, for the linker.
  void noteReturn(TSNode statement, const Def& d);

  // The module-level name `expr` subscripts (`REGISTRY[name]`, `REGISTRY.get(name)`), when that
  // name is bound once, to a dict display or `dict()`.
  std::string moduleDictLookup(TSNode expr) const;

  // `REGISTRY[key] = fn` in a function whose parameter `fn` is: the decorator registers into it.
  void noteRegistration(TSNode assignment, const Def& d);

  // The element classes of a module container built by `value`, or of a plain module.
  bool containerClasses(TSNode value, std::vector<NameRef>& out, int depth = 0) const;

  // A local list of modules: `blocks = []` (or a list display) bound once in a function, grown
  // only by `blocks.append(...)` / `blocks.extend([...])` there.
  bool localListClasses(TSNode ident, std::vector<NameRef>& out, int depth) const;

  // The named elements of `nn.ModuleDict(dict(a=...))` / `nn.ModuleDict({"a": ...})`.
  std::vector<std::pair<std::string, TSNode>> moduleDictElements(TSNode value) const;

  // Adds `classes` to the attribute `key` of the class (poisoned attributes stay unknown).
  void addAttribute(size_t class_index, const std::string& key, std::vector<NameRef> classes);
  void poisonAttribute(size_t class_index, const std::string& key);

  // `self.<attr>.append(Block())`, `.extend([...])`, `.add_module("x", Block())` in `__init__`.
  void noteInitContainerGrowth(TSNode call, TSNode callee, const Def& d);
  void noteInitStore(TSNode assignment, const Def& d);

  // `block` bound by `for block in self.<attr>` (or `.values()`, `enumerate(...)` aside): attr.
  std::string loopOverSelfAttribute(TSNode ident, const Def* d) const;

  // What a `for` target walks over: `self.h` for `block` in `for block in self.h`,
  // `enumerate(self.h)`, `self.heads.values()` / `.items()`; null when `ident` is no such target.
  TSNode loopIterable(TSNode ident) const;
  // The classes an `if isinstance(ident, C):` (or `(C, D)`) around `ident` names; false when none.
  bool isinstanceClasses(TSNode ident, std::vector<NameRef>& out) const;
  void noteCall(TSNode call, const Def* d);

  // `fn(x)` where `fn` is a parameter, a loop variable or a local bound to a value: unknown code
  // (a module-level name bound to `torch.compile(...)` runs what it compiles, not unknown code).
  bool callsUnknownValue(TSNode ident) const;
  void noteCompileSite(TSNode call, TSNode callee, const Def* d);

  // A module-level function rebound to its compiled self (`decode = torch.compile(decode)`,
  // also under `global decode` in a function): every binding of the name is the one def or
  // such a wrapper of it.
  std::optional<NameRef> compiledInPlace(TSNode target) const;

  // Can what `torch.compile(target)` compiles be told without a summary of it? A lambda or a
  // `functools.partial` of torch's own functions only runs torch code; so does a torch function.
  bool compiledValueIsKnown(TSNode target) const;
  void noteDecoratorSites(const Def& d);

  // `torch._dynamo.config.capture_scalar_outputs = True` as a statement of the module, or under
  // `if __name__ == "__main__":` (see ModuleSummary::captures_scalars).
  void noteCaptureFlag(TSNode assignment);

  // `compiler = functools.partial(torch.compile, mode=...)`, `optimize = torch._dynamo.optimize("inductor")`
  // at module level, the name bound once: calling it compiles its first argument.
  void noteCompilerAlias(TSNode assignment);
  static std::optional<std::string> stringLiteral(TSNode node, std::string_view source);
  void noteEnvironment(TSNode call, TSNode callee);
  void noteAssignment(TSNode assignment);
  void walk();

  // `self.<helper>(x)` in a method of the helper's class, the result kept: `x` is compiled, as
  // a SelfAttr site for `self.<attr>`, an Instance site for an instance the summary can name
  // (module_summary_helpers.cpp).
  void noteMethodHelperCalls();
  struct MethodHelper {
    const Def* def;
    std::string name;
    int index;
  };
  std::vector<MethodHelper> method_helpers_;

  const SemanticModel& model_;
  // instanceClasses of a name, by scope and name (nullopt: cannot be named, or being followed).
  mutable std::unordered_map<const void*, std::map<std::string, std::optional<std::vector<NameRef>>>> name_classes_;
  std::string_view source_;
  ModuleSummary out_;
  std::vector<Def> defs_;
  std::unordered_map<const void*, size_t> index_by_def_;
  std::unordered_map<size_t, std::unordered_set<std::string>> poisoned_;  // class -> attrs bound to unknowns
  std::vector<NameRef> classes_of_owner_;  // scratch for noteCompileSite
};

}  // namespace ptlint::analysis
