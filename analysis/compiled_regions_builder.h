// The builder of a CompiledRegions (compiled_regions.h), shared by the files that implement it:
// compiled_regions_roots.cpp (where roots are, and the region grown from them along calls) and
// compiled_regions_targets.cpp (which same-file function, class or instance an expression
// names). Internal to analysis/.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analysis/compiled_regions.h"
#include "analysis/semantic_model.h"
#include "analysis/syntax.h"

namespace ptlint::analysis {

class CompiledRegions::Builder {
 public:
  // Shared with the prefilters of compiled_regions.cpp.
  // The first positional argument of a call, or the keyword argument `keyword` if given; null if
  // neither.
  static TSNode targetArgument(TSNode call, std::string_view keyword, std::string_view source);
  // `torch.compile(fn, disable=True)` compiles nothing.
  static bool disablesItself(TSNode call, std::string_view source);
  static std::string_view lastSegment(std::string_view dotted);

  Builder(CompiledRegions& out) : out_(out), model_(out.model_), source_(out.model_.file().text()) {}

  void run();

 private:
  struct FunctionInfo {
    TSNode def{};
    TSNode body{};
    TSNode cls{};  // the class_definition whose body holds this def, if any
    std::string_view name;
    std::vector<TSNode> decorators;  // decorator expressions
    std::vector<TSNode> calls;       // calls run by this function's body (not by nested defs)
    // `self.<attr> = <value>` in this function's body: (object, attribute name, value).
    std::vector<std::tuple<TSNode, std::string_view, TSNode>> attribute_stores;
    bool disabled = false;
    bool first_param_is_instance = true;  // false for @staticmethod
    bool scanned = false;                 // `calls` and `attribute_stores` read
  };

  // ---- Pass 1: where roots can be. ----
  // Every call that may compile or disable something holds one of a few words (`compile`,
  // `disable`, a configured decorator's last segment) or is a call of a call's result (a `)`
  // followed by `(`); every decorated def holds an `@`; every capture flag spells
  // `capture_scalar_outputs`. The walk enters only the subtrees holding one of those, in
  // pre-order, so the sites and decorated defs come out in the order of a whole walk. A
  // function's calls and `self.<attr>` stores are read from its body when the region reaches it
  // (`scanned`), so the cost follows what torch.compile reaches, not the size of the file.
  void collect();

  // Sorted offsets of the bytes that let `collect` enter a subtree (a superset is harmless).
  std::vector<uint32_t> anchorOffsets() const;

  // The function of `def` (a function_definition), added on first use.
  int functionIndex(TSNode def) const;

  // The function of a binding's or scope's node when it is a def, else -1.
  int functionIndexIfDef(TSNode node) const;

  // The methods of a class (defs directly in its body, decorated or not): name -> function; the
  // last def of a name wins.
  const std::unordered_map<std::string, int>& methodsOf(TSNode cls) const;

  // The function with its calls and `self.<attr>` stores read: those of its body, not of the
  // defs and classes nested in it (a nested def's decorators, defaults and annotations run here).
  FunctionInfo& scanned(int index) const;

  // A cheap filter before resolving names: the callee's last segment is `compile`, `disable`,
  // `_disable_dynamo` or a configured decorator's, or the callee is itself a call
  // (`torch.compile(mode=...)(fn)`).
  bool mayCompileOrDisable(TSNode call) const;

  // `<...>.capture_scalar_outputs = v` (torch's dynamo config) for a `v` that may be true.
  void noteCaptureAssignment(TSNode assignment);
  // `capture_scalar_outputs=` given to `torch._dynamo.config.patch(...)` as a `with` item or a
  // decorator whose code calls only torch's functions and builtins: it runs no compiled code
  // of the file, so the setting it scopes reaches none.
  bool patchRunsNoCompiledCode(TSNode keyword_argument) const;

  // `compiler = functools.partial(torch.compile, ...)`: the name's calls compile (found again by
  // `addPartialCalls`, as the calls of it hold none of the anchor words).
  void notePartialOfCompile(TSNode assignment);

  // The calls and decorators naming a partial of torch.compile, in tree order with the others.
  void addPartialCalls();

  // `<name>.<attr> = value` in a function's body.
  void noteAttributeStore(TSNode assignment, FunctionInfo& info) const;

  // ---- Names ----

  // Does `callee` (with qualified name `q`, if it resolves) name torch.compile or a configured
  // compile decorator?
  bool isCompileName(TSNode callee, const std::optional<std::string>& q) const;

  // `functools.partial(torch.compile, ...)`: calling it compiles its first argument.
  bool isPartialOfCompile(TSNode call) const;

  // A name every binding of which is such a partial (`compiler = partial(torch.compile, ...)`).
  bool namesPartialOfCompile(TSNode ident) const;

  // The binding `name` refers to at `ident`, skipping the statement that contains it
  // (`model = torch.compile(model)` reads the previous `model`).
  const Binding* bindingFor(TSNode ident) const;

  // `f = wrap(f, ...)`, `model = model.to(device).eval()`: an assignment that rebinds a name to a
  // wrapper of its previous value (torch.compile, torch.compiler.disable, DDP, ...).
  bool wrapsItself(const Binding* c) const;

  // The class_definition of a same-file class that `ident` names, or null.
  TSNode classNamed(TSNode ident) const;

  // The def enclosing `node` (innermost function_definition whose body holds it), or -1.
  int enclosingFunction(TSNode node) const;

  // Method `name` of a same-file class, looking through same-file base classes (depth first,
  // left to right); -1 if none. Each class is visited once per lookup, and lookups are
  // memoised: a lattice of W classes on D levels costs W*D, not W^D.
  int methodOf(TSNode cls, std::string_view name, bool skip_own = false) const;

  template <typename Visit>
  void forEachBase(TSNode cls, Visit&& visit) const {
    TSNode bases = fieldOf(cls, "superclasses");
    if (!isKind(bases, kind::argument_list)) return;
    forEachNamedChild(bases, [&](TSNode base) {
      TSNode base_cls = classNamed(unparenthesize(base));
      if (!ts_node_is_null(base_cls) && !sameNode(base_cls, cls)) visit(base_cls);
    });
  }

  // The same-file class of which `expr` is an instance, or null: `Model(...)`, `Model().cuda()`,
  // a name bound to one, `self` in a method, `self.block` assigned one in the class.
  TSNode instanceClass(TSNode expr, int depth = 0) const;
  // The class an `if isinstance(ident, C):` around `ident` narrows it to, else null.
  TSNode isinstanceClass(TSNode ident, const Binding* binding) const;

  // The same-file class a parameter is annotated with (`def generate(model: GPT)`), or null.
  TSNode annotatedClass(const Binding* param) const;

  // The class of a method's first parameter (`self`), or null for any other parameter.
  TSNode selfClass(const Binding* param) const;

  // The class of `self.<attr>` in `cls`: every `self.<attr> = value` in its methods (and its
  // same-file bases') must build the same same-file class; `torch.compile(...)` wrappers of it
  // are ignored. Null when any assignment is unknown.
  TSNode attributeClass(TSNode cls, std::string_view attr, int depth) const;

  // The same-file function a callee expression names: `helper`, `self.helper`, `Cls.method`,
  // `obj.method` for an instance of a same-file class, `super().method`. -1 if none.
  int functionOf(TSNode expr, int depth = 0) const;

  // What calling (or compiling) `expr` runs: a same-file function, or the `forward` (else
  // `__call__`) of a same-file class instance. -1 if unknown.
  int runTarget(TSNode expr) const;

  // ---- Pass 2: roots and disabled functions. ----
  void findRoots();

  // `def maybe_compile(m): return torch.compile(m)`: a function or method that compiles its
  // parameter compiles what each call of it in the file passes there.
  struct ParameterCompile {
    int function = -1;
    int position = -1;  // -1: keyword-only
    std::string_view name;
  };
  std::vector<ParameterCompile> parameter_compiles_;

  void noteParameterCompile(TSNode target, TSNode call);
  // Is function `index` such a helper (`self.x = self.maybe_compile(self.x)` wraps `self.x` as
  // `torch.compile` does)?
  bool compilesParameter(int index) const {
    for (const ParameterCompile& pc : parameter_compiles_)
      if (pc.function == index && index >= 0) return true;
    return false;
  }

  // The calls of those functions (found by their name's whole-word occurrences, not a walk).
  void addHelperCallRoots(std::vector<std::pair<int, TSNode>>& roots);

  // Functions other files compile: top-level functions and methods of top-level classes, by name.
  void addExternalRoots(const ProjectFacts& project);
  void addCompiled(int index, TSNode site, const Function* caller);

  // ---- Pass 3: grow the region along direct calls, breadth first. ----
  void grow();

  CompiledRegions& out_;
  const SemanticModel& model_;
  std::string_view source_;
  // Functions are added as the analysis meets them (a deque: references stay valid).
  mutable std::deque<FunctionInfo> functions_;
  mutable std::unordered_map<const void*, int> index_by_def_;
  mutable std::unordered_map<const void*, std::unordered_map<std::string, int>> methods_;  // class id -> name -> def
  std::vector<TSNode> site_calls_;  // calls that may compile or disable something, in tree order
  std::vector<int> decorated_;      // decorated defs, in tree order
  std::unordered_set<std::string_view> partial_names_;  // names bound to partial(torch.compile, ...)
  mutable std::unordered_map<std::string, TSNode> attribute_class_;
  mutable std::unordered_map<std::string, int> method_of_;                 // class id, name -> def
  mutable std::unordered_map<const void*, TSNode> instance_class_;         // identifier -> class
  std::deque<std::pair<int, const Function*>> queue_;
};

}  // namespace ptlint::analysis
