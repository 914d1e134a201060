// The semantic model: scopes, bindings and qualified names. Rules ask "what does this name refer
// to" (`torch.cuda.amp.autocast`), never "what does the text say". Built once per file, read-only
// afterwards, so rules may share it.
#pragma once

#include <tree_sitter/api.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/analysis_cache.h"
#include "analysis/parse.h"

namespace ptlint::analysis {

enum class BindingKind {
  Import,      // import a.b / import a.b as c / from a import b [as c]
  Assignment,  // name = value (single target), name := value
  Parameter,   // a function or lambda parameter
  Function,    // def name
  Class,       // class name
  Other,       // for-targets, with-as, unpacking, augmented assignment, except-as, ...
};

struct Scope;

struct Binding {
  BindingKind kind = BindingKind::Other;
  std::string name;
  TSNode name_node{};   // where the name is bound (identifier or alias)
  TSNode statement{};   // import statement, def, class, assignment, ...
  TSNode value{};       // Assignment: the right-hand side
  std::string qualified_name;  // Import: what the name refers to ("torch.cuda.amp")
  bool is_fallback = false;    // an import in an `except ImportError:` handler
  const Scope* scope = nullptr;
};

struct Scope {
  enum class Kind { Module, Class, Function, Lambda, Comprehension };
  Kind kind = Kind::Module;
  TSNode node{};                   // the module, def, class, lambda or comprehension node
  uint32_t start = 0, end = 0;     // the byte range whose names live in this scope
  // Inside that range but evaluated in the enclosing scope: a def's or lambda's default values
  // and annotations (`def f(amp=amp.autocast) -> amp.GradScaler` reads the outer `amp`).
  std::vector<std::pair<uint32_t, uint32_t>> evaluated_outside;
  // A def whose body the model has not walked yet (see SemanticModel): its name and parameters
  // are bound, its body's names and nested scopes come on first use.
  bool body_pending = false;
  bool owns(uint32_t pos) const {
    if (pos < start || pos >= end) return false;
    for (auto [from, to] : evaluated_outside)
      if (from <= pos && pos < to) return false;
    return true;
  }
  const Scope* parent = nullptr;
  std::unordered_map<std::string, std::vector<const Binding*>> bindings;
  std::vector<std::string> globals;  // names declared `global`/`nonlocal` here
};

// Built without a visitor, the model leaves the bodies of defs for later: a def's name and
// parameters are bound at once, its body is walked the first time a question needs it
// (`scopeAt` or `resolve` inside it, `bindingsOf` its scope, `bindings()` or `scopes()`). A def
// whose bytes spell `global`, `nonlocal` or `import`, or hold a syntax error, is walked at once:
// its body can bind names outside its own scope. So is an expression that holds scopes (lambdas,
// comprehensions) but binds nothing where it stands (no `:=`, no `as`): the tables of lambdas
// that test suites and registries keep at module level are walked, one level at a time, only
// down to where a question lands. Answers are those of the complete model; an edit of a large
// file then costs the module level and the defs and expressions its rules look into.
class SemanticModel {
 public:
  explicit SemanticModel(const ParsedFile& file);
  // The same, calling `visit(node)` for every node of the tree in pre-order (as walkTree from
  // the root would) during the one walk that builds the model: the linter collects the nodes its
  // rules asked for here instead of walking the tree a second time.
  SemanticModel(const ParsedFile& file, const std::function<void(TSNode)>& visit);
  SemanticModel(const SemanticModel&) = delete;
  SemanticModel& operator=(const SemanticModel&) = delete;

  const ParsedFile& file() const { return file_; }
  std::string_view text(TSNode node) const;

  const Scope& moduleScope() const { return *scopes_.front(); }
  // Every scope, in order of start (the module first). Completes the model (see below).
  const std::vector<std::unique_ptr<Scope>>& scopes() const;
  // The innermost scope whose names are visible at `node`.
  const Scope& scopeAt(TSNode node) const;

  // Python name resolution (LEGB, class scopes invisible to nested functions). Picks the last
  // binding before `at`, else the first; `except ImportError` fallbacks only when nothing else.
  const Binding* resolve(std::string_view name, TSNode at) const;
  const std::vector<const Binding*>* bindingsOf(const Scope& scope, std::string_view name) const;

  // The qualified name an identifier or attribute chain refers to, canonicalised for known
  // re-exports (`torch.autocast` -> `torch.amp.autocast`). nullopt when it does not resolve to
  // an import (a local, a parameter, a builtin, a call result, ...). Follows `x = torch.foo`
  // aliases bound exactly once.
  std::optional<std::string> qualifiedName(TSNode expr) const;
  bool refersTo(TSNode expr, std::string_view qualified) const;
  // The qualified name of a call's callee.
  std::optional<std::string> calleeName(TSNode call) const;

  // Every binding, in order of position. Completes the model (see below).
  const std::vector<std::unique_ptr<Binding>>& bindings() const;
  // Every import binding, in source order (without completing the model: a def whose bytes
  // spell `import` is never left for later).
  const std::vector<const Binding*>& imports() const { return imports_; }
  // True when some import in the file brings in `module` or a submodule/member of it
  // (`import numpy as np`, `from random import shuffle`), wherever it is.
  bool importsModule(std::string_view module) const;
  // A name bound to `qualified` (e.g. "torch") visible at `at` and not shadowed there.
  std::optional<std::string> visibleNameFor(std::string_view qualified, TSNode at) const;

  // A per-file analysis that needs this model (e.g. compiled regions), built on first use and
  // freed with the model; see AnalysisCache.
  template <typename T, typename Build>
  const T& perFileAnalysis(const void* key, Build&& build) const {
    return analyses_.get<T>(key, std::forward<Build>(build));
  }

 private:
  friend class ModelBuilder;
  std::optional<std::string> qualifiedNameImpl(TSNode expr, int depth) const;

  // Walks the body of `scope` if it is still pending (then, with `reorder`, puts what it added
  // in order); lazy_mutex_ held.
  void completeScope(Scope& scope, bool reorder = true) const;
  // Walks the pending expression at `index` one level down (the expressions it holds that may
  // be left for later are); lazy_mutex_ held.
  void completeExpression(size_t index, bool reorder = true) const;
  // Puts in order what a walk appended after the given sizes; lazy_mutex_ held.
  void mergeGrowth(size_t scopes_before, size_t bindings_before, size_t expressions_before) const;
  void completeAll() const;
  static bool bindsBefore(const std::unique_ptr<Binding>& a, const std::unique_ptr<Binding>& b);
  const Scope& scopeAtLocked(uint32_t pos) const;

  const ParsedFile& file_;
  mutable std::vector<std::unique_ptr<Scope>> scopes_;      // in order of start; [0] is the module
  mutable std::vector<std::unique_ptr<Binding>> bindings_;  // in order of position
  mutable std::vector<const Binding*> imports_;             // the Import bindings, in source order
  mutable std::vector<Scope*> pending_;                     // scopes whose body_pending may be set
  // An expression not walked yet: it binds no name in `parent`, only in the scopes it holds.
  struct PendingExpression {
    TSNode node;
    Scope* parent;
    uint32_t start, end;
  };
  mutable std::vector<PendingExpression> pending_expressions_;  // disjoint, in order of start
  std::vector<uint32_t> binder_words_;     // sorted offsets of `lambda`, `for`, `as`, `:=`
  std::vector<uint32_t> assigning_words_;  // sorted offsets of `as`, `:=` (they bind where they stand)
  std::vector<int8_t> assigning_word_is_code_;  // per assigning word: -1 not known yet, 0 no, 1 yes
  std::vector<uint32_t> eager_words_;   // sorted offsets of `global`, `nonlocal`, `import`
  mutable std::mutex lazy_mutex_;       // guards the pending bodies and what walking one adds
  AnalysisCache analyses_;
};

// Maps a qualified name through PyTorch's known re-exports to the public spelling.
std::string canonicalQualifiedName(std::string name);

}  // namespace ptlint::analysis
