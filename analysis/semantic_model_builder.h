// The walk that builds a SemanticModel (semantic_model.h): scopes, bindings and imports, and the
// bodies and expressions a lazily built model leaves for later. Internal to analysis/.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/semantic_model.h"
#include "analysis/syntax.h"

namespace ptlint::analysis {

class ModelBuilder {
 public:
  ModelBuilder(SemanticModel& model) : model_(model), source_(model.file().text()) {}

  // `visit` (optional) sees every node; the model itself skips the subtrees `enter` declines.
  void build(const std::function<void(TSNode)>* visit = nullptr);

  // Walks the children of `node` as the first walk would have, inside `innermost` and the scopes
  // around it: a deferred def's (its parameters' defaults and annotations, its return
  // annotation, its body) inside its own scope, a pending expression's inside the scope it stands
  // in. Expressions that may wait are left for later again.
  void buildChildren(TSNode node, Scope* innermost);

  // Scopes in order of start; of two starting together, the outer first, so that the last scope
  // starting at a position is the innermost.
  static bool startsBefore(const std::unique_ptr<Scope>& a, const std::unique_ptr<Scope>& b);

 private:
  // May the body of this def be walked later? Not when it can bind names outside its own scope
  // (`global`, `nonlocal`), holds an import (imports() is complete from the first walk), or a
  // syntax error.
  bool deferrable(TSNode def) const;
  Scope* openScope(Scope::Kind kind, TSNode node, uint32_t start, uint32_t end);

  Scope* current() { return stack_.back(); }

  // The scope a new binding of `name` goes to, honouring `global` / `nonlocal`.
  Scope* targetScope(const std::string& name);
  Binding& bind(BindingKind kind, TSNode name_node, TSNode statement, std::string name = {});

  // Binds every identifier of an assignment/for/with target pattern.
  void bindTargets(TSNode target, TSNode statement);
  void bindParameters(TSNode parameters, TSNode owner);
  void bindImport(TSNode statement);

  // What `enter` does with a node, decided once per grammar symbol: most nodes are Passive and
  // pass without their kind's name being read.
  enum class Role : uint8_t {
    Passive, Opaque, Import, Function, Class, Lambda, Comprehension, Declaration,
    Assignment, NamedExpression, AugmentedAssignment, LoopTarget, AsPattern, ExceptClause,
  };

  static Role roleOf(TSSymbol symbol);

  // Returns false for subtrees the model has no use for (comments, literals, imports).
  bool enter(TSNode node);

  // Inside an expression only a lambda, a comprehension, a `:=` or an `as` pattern (a
  // parenthesised `with` item) binds a name: an expression whose bytes hold none of `lambda`,
  // `for`, `:=`, `as` adds nothing to the model, and neither do its subexpressions. Statements are
  // entered (but `return`, `assert`, `raise` and `del`, which hold expressions only), and so is
  // anything holding a syntax error (error recovery can put a statement inside an expression).
  void noteBinderWords();
  static bool isExpressionKind(TSSymbol symbol);
  bool skippable(TSNode node) const;

  // An expression that skippable() keeps (it holds a lambda or a comprehension) but that binds
  // no name where it stands (no `:=` or `as` of its code) is left for later: recorded with its
  // scope, not entered (see SemanticModel::completeExpression).
  bool deferExpression(TSNode node);

  // Is the `as` or `:=` at assigning_words_[i] code (not in a string or a comment)? The token
  // there says: the smallest node at a keyword or operator is that token. Cached: nested
  // expressions ask again.
  bool assigningWordIsCode(size_t i);

  SemanticModel& model_;
  std::string_view source_;
  std::vector<Scope*> stack_;
  std::vector<uint32_t>& binder_words_ = model_.binder_words_;  // kept for the deferred bodies
  bool lazy_ = false;  // defer the bodies of defs (no visitor)
};

}  // namespace ptlint::analysis
