#include "analysis/semantic_model.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {
namespace {

// "a . b" -> "a.b": dotted names are joined from their identifiers.
std::string dottedName(TSNode node, std::string_view source) {
  if (!isKind(node, kind::dotted_name)) return std::string(textOf(node, source));
  std::string out;
  forEachNamedChild(node, [&](TSNode part) {
    if (!out.empty()) out += '.';
    out += textOf(part, source);
  });
  return out;
}

// True when `node` sits in an `except` handler that catches import failures.
bool isImportFallback(TSNode node, std::string_view source) {
  for (TSNode cur = ts_node_parent(node); !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
    analysis::NodeKind kind = kindOf(cur);
    if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::module) return false;
    if (kind == kind::except_clause) {
      TSNode caught = fieldOf(cur, "value");
      if (ts_node_is_null(caught)) {
        // Older grammars put the caught type as the first named child.
        TSNode first = ts_node_named_child(cur, 0);
        if (!isKind(first, kind::block)) caught = first;
      }
      if (ts_node_is_null(caught)) return true;  // bare `except:`
      std::string_view text = textOf(caught, source);
      return text.find("ImportError") != std::string_view::npos ||
             text.find("ModuleNotFoundError") != std::string_view::npos ||
             text.find("Exception") != std::string_view::npos;
    }
  }
  return false;
}

// The fields the model's walk reads, by id: ts_node_child_by_field_name compares the name with
// the grammar's field names on every call.
enum class Field : uint8_t { Name, Body, Parameters, ReturnType, Value, Type, Left, Right, Alias, Count };

TSNode field(TSNode node, Field which) {
  static const std::array<TSFieldId, static_cast<size_t>(Field::Count)> ids = [] {
    constexpr std::array<std::string_view, static_cast<size_t>(Field::Count)> kNames{
        "name", "body", "parameters", "return_type", "value", "type", "left", "right", "alias"};
    std::array<TSFieldId, static_cast<size_t>(Field::Count)> out{};
    for (size_t i = 0; i < kNames.size(); ++i)
      out[i] = ts_language_field_id_for_name(pythonLanguage(), kNames[i].data(), static_cast<uint32_t>(kNames[i].size()));
    return out;
  }();
  return ts_node_child_by_field_id(node, ids[static_cast<size_t>(which)]);
}

// Scopes in order of start; of two starting together, the outer first, so that the last scope
// starting at a position is the innermost.
bool startsBefore(const std::unique_ptr<Scope>& a, const std::unique_ptr<Scope>& b) {
  return a->start < b->start || (a->start == b->start && a->end > b->end);
}

}  // namespace

class ModelBuilder {
 public:
  ModelBuilder(SemanticModel& model) : model_(model), source_(model.file().text()) {}

  // `visit` (optional) sees every node; the model itself skips the subtrees `enter` declines.
  void build(const std::function<void(TSNode)>* visit = nullptr) {
    TSNode root = model_.file().root();
    Scope* module = openScope(Scope::Kind::Module, root, startOf(root), endOf(root));
    stack_.push_back(module);
    bool muted = false;  // inside a subtree the model declined, walked for `visit` only
    TSNode muted_root{};
    // Without a visitor, expressions that cannot bind a name are not entered (see `skippable`),
    // and the bodies of defs are left for later (see SemanticModel).
    if (visit == nullptr) {
      noteBinderWords();
      lazy_ = true;
    }
    walkTree(
        root,
        [&](TSNode node) {
          if (visit != nullptr) (*visit)(node);
          if (muted) return true;
          if (visit == nullptr && (skippable(node) || deferExpression(node))) return false;
          if (enter(node)) return true;
          if (visit == nullptr) return false;
          muted = true;
          muted_root = node;
          return true;
        },
        [&](TSNode node) {
          if (muted) {
            if (sameNode(node, muted_root)) muted = false;  // declined nodes open no scope
            return;
          }
          if (!stack_.empty() && stack_.size() > 1 && sameNode(stack_.back()->node, node)) stack_.pop_back();
        });
    std::sort(model_.scopes_.begin() + 1, model_.scopes_.end(), startsBefore);
    // Bindings by position (the walk binds a def's parameters before what their defaults hold).
    std::stable_sort(model_.bindings_.begin(), model_.bindings_.end(), SemanticModel::bindsBefore);
  }

  // Walks the children of `node` as the first walk would have, inside `innermost` and the scopes
  // around it: a deferred def's (its parameters' defaults and annotations, its return
  // annotation, its body) inside its own scope, a pending expression's inside the scope it stands
  // in. Expressions that may wait are left for later again.
  void buildChildren(TSNode node, Scope* innermost) {
    lazy_ = true;
    stack_.clear();
    for (Scope* s = innermost; s != nullptr; s = const_cast<Scope*>(s->parent)) stack_.push_back(s);
    std::reverse(stack_.begin(), stack_.end());
    TSTreeCursor cursor = ts_tree_cursor_new(node);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      do {
        walkTree(
            ts_tree_cursor_current_node(&cursor),
            [&](TSNode n) { return !skippable(n) && !deferExpression(n) && enter(n); },
            [&](TSNode n) {
              if (stack_.size() > 1 && sameNode(stack_.back()->node, n)) stack_.pop_back();
            });
      } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
  }

 private:
  // May the body of this def be walked later? Not when it can bind names outside its own scope
  // (`global`, `nonlocal`), holds an import (imports() is complete from the first walk), or a
  // syntax error.
  bool deferrable(TSNode def) const {
    if (!lazy_ || ts_node_has_error(def)) return false;
    const auto& words = model_.eager_words_;
    auto it = std::lower_bound(words.begin(), words.end(), startOf(def));
    return it == words.end() || *it >= endOf(def);
  }

  Scope* openScope(Scope::Kind kind, TSNode node, uint32_t start, uint32_t end) {
    auto scope = std::make_unique<Scope>();
    scope->kind = kind;
    scope->node = node;
    scope->start = start;
    scope->end = end;
    scope->parent = stack_.empty() ? nullptr : stack_.back();
    Scope* raw = scope.get();
    model_.scopes_.push_back(std::move(scope));
    return raw;
  }

  Scope* current() { return stack_.back(); }

  // The scope a new binding of `name` goes to, honouring `global` / `nonlocal`.
  Scope* targetScope(const std::string& name) {
    Scope* scope = current();
    if (std::find(scope->globals.begin(), scope->globals.end(), name) != scope->globals.end())
      return stack_.front();
    return scope;
  }

  Binding& bind(BindingKind kind, TSNode name_node, TSNode statement, std::string name = {}) {
    auto binding = std::make_unique<Binding>();
    binding->kind = kind;
    binding->name = name.empty() ? std::string(textOf(name_node, source_)) : std::move(name);
    binding->name_node = name_node;
    binding->statement = statement;
    Scope* scope = targetScope(binding->name);
    binding->scope = scope;
    Binding& ref = *binding;
    scope->bindings[ref.name].push_back(binding.get());
    if (kind == BindingKind::Import) model_.imports_.push_back(binding.get());
    model_.bindings_.push_back(std::move(binding));
    return ref;
  }

  // Binds every identifier of an assignment/for/with target pattern.
  void bindTargets(TSNode target, TSNode statement) {
    std::vector<TSNode> work{target};
    while (!work.empty()) {
      TSNode node = work.back();
      work.pop_back();
      analysis::NodeKind kind = kindOf(node);
      if (kind == kind::identifier) {
        bind(BindingKind::Other, node, statement);
      } else if (kind == kind::pattern_list || kind == kind::tuple_pattern || kind == kind::list_pattern ||
                 kind == kind::list_splat_pattern || kind == kind::parenthesized_expression ||
                 kind == kind::tuple || kind == kind::list || kind == kind::expression_list ||
                 kind == kind::as_pattern_target) {
        forEachNamedChild(node, [&](TSNode child) { work.push_back(child); });
      }
      // attribute / subscript targets bind no name.
    }
  }

  void bindParameters(TSNode parameters, TSNode owner) {
    forEachNamedChild(parameters, [&](TSNode param) {
      analysis::NodeKind kind = kindOf(param);
      for (Field evaluated_outside : {Field::Value, Field::Type}) {
        TSNode part = field(param, evaluated_outside);
        if (!ts_node_is_null(part)) current()->evaluated_outside.emplace_back(startOf(part), endOf(part));
      }
      TSNode name{};
      if (kind == kind::identifier) name = param;
      else if (kind == kind::default_parameter || kind == kind::typed_default_parameter) name = field(param, Field::Name);
      else if (kind == kind::typed_parameter || kind == kind::list_splat_pattern || kind == kind::dictionary_splat_pattern) {
        TSNode inner = ts_node_named_child(param, 0);
        if (isKind(inner, kind::list_splat_pattern) || isKind(inner, kind::dictionary_splat_pattern))
          inner = ts_node_named_child(inner, 0);
        name = inner;
      }
      if (isKind(name, kind::identifier)) bind(BindingKind::Parameter, name, owner);
      else if (!ts_node_is_null(name)) bindTargets(name, owner);
    });
  }

  void bindImport(TSNode statement) {
    bool fallback = isImportFallback(statement, source_);
    if (isKind(statement, kind::import_statement)) {
      forEachFieldChild(statement, "name", [&](TSNode name) {
        if (isKind(name, kind::aliased_import)) {
          Binding& b = bind(BindingKind::Import, fieldOf(name, "alias"), statement);
          b.qualified_name = dottedName(fieldOf(name, "name"), source_);
          b.is_fallback = fallback;
        } else {
          // `import a.b.c` binds `a` to the package `a`.
          TSNode first = ts_node_named_child(name, 0);
          Binding& b = bind(BindingKind::Import, first, statement);
          b.qualified_name = b.name;
          b.is_fallback = fallback;
        }
      });
      return;
    }
    TSNode module_node = fieldOf(statement, "module_name");
    std::string module = isKind(module_node, kind::relative_import) ? std::string(textOf(module_node, source_))
                                                                 : dottedName(module_node, source_);
    forEachFieldChild(statement, "name", [&](TSNode name) {
      TSNode imported = isKind(name, kind::aliased_import) ? fieldOf(name, "name") : name;
      TSNode bound = isKind(name, kind::aliased_import) ? fieldOf(name, "alias") : name;
      std::string member = dottedName(imported, source_);
      Binding& b = bind(BindingKind::Import, bound, statement, std::string(textOf(bound, source_)));
      b.qualified_name = module.empty() || module.back() == '.' ? module + member : module + "." + member;
      b.is_fallback = fallback;
    });
  }

  // What `enter` does with a node, decided once per grammar symbol: most nodes are Passive and
  // pass without their kind's name being read.
  enum class Role : uint8_t {
    Passive, Opaque, Import, Function, Class, Lambda, Comprehension, Declaration,
    Assignment, NamedExpression, AugmentedAssignment, LoopTarget, AsPattern, ExceptClause,
  };

  static Role roleOf(TSSymbol symbol) {
    static const std::vector<Role> table = [] {
      static constexpr std::pair<NodeKind, Role> kRoles[] = {
          {kind::comment, Role::Opaque}, {kind::string, Role::Opaque}, {kind::integer, Role::Opaque}, {kind::float_, Role::Opaque},
          {kind::import_statement, Role::Import}, {kind::import_from_statement, Role::Import},
          {kind::function_definition, Role::Function}, {kind::class_definition, Role::Class}, {kind::lambda, Role::Lambda},
          {kind::list_comprehension, Role::Comprehension}, {kind::set_comprehension, Role::Comprehension},
          {kind::dictionary_comprehension, Role::Comprehension}, {kind::generator_expression, Role::Comprehension},
          {kind::global_statement, Role::Declaration}, {kind::nonlocal_statement, Role::Declaration},
          {kind::assignment, Role::Assignment}, {kind::named_expression, Role::NamedExpression},
          {kind::augmented_assignment, Role::AugmentedAssignment}, {kind::for_statement, Role::LoopTarget},
          {kind::for_in_clause, Role::LoopTarget}, {kind::as_pattern, Role::AsPattern}, {kind::except_clause, Role::ExceptClause},
      };
      const TSLanguage* language = pythonLanguage();
      std::vector<Role> roles(ts_language_symbol_count(language), Role::Passive);
      for (TSSymbol id = 0; id < roles.size(); ++id) {
        const char* name = ts_language_symbol_name(language, id);
        if (name == nullptr) continue;
        for (const auto& [kind, role] : kRoles)
          if (kind.name() == name) roles[id] = role;
      }
      return roles;
    }();
    return symbol < table.size() ? table[symbol] : Role::Passive;
  }

  // Returns false for subtrees the model has no use for (comments, literals, imports).
  bool enter(TSNode node) {
    switch (roleOf(ts_node_symbol(node))) {
      case Role::Passive:
        return true;
      case Role::Opaque:
        return false;
      case Role::Import:
        bindImport(node);
        return false;
      case Role::Function:
      case Role::Class: {
        bool is_class = roleOf(ts_node_symbol(node)) == Role::Class;
        TSNode name = field(node, Field::Name);
        if (!ts_node_is_null(name)) bind(is_class ? BindingKind::Class : BindingKind::Function, name, node);
        TSNode body = field(node, Field::Body);
        TSNode params = field(node, Field::Parameters);
        TSNode first = ts_node_is_null(params) ? body : params;
        if (ts_node_is_null(first)) first = node;
        uint32_t start = is_class && !ts_node_is_null(body) ? startOf(body) : startOf(first);
        Scope* scope = openScope(is_class ? Scope::Kind::Class : Scope::Kind::Function, node, start, endOf(node));
        stack_.push_back(scope);
        if (!ts_node_is_null(params)) bindParameters(params, node);
        TSNode return_type = field(node, Field::ReturnType);
        if (!ts_node_is_null(return_type)) scope->evaluated_outside.emplace_back(startOf(return_type), endOf(return_type));
        if (!is_class && deferrable(node)) {
          scope->body_pending = true;
          model_.pending_.push_back(scope);
          stack_.pop_back();
          return false;
        }
        return true;
      }
      case Role::Lambda: {
        Scope* scope = openScope(Scope::Kind::Lambda, node, startOf(node), endOf(node));
        stack_.push_back(scope);
        TSNode params = field(node, Field::Parameters);
        if (!ts_node_is_null(params)) bindParameters(params, node);
        return true;
      }
      case Role::Comprehension:
        stack_.push_back(openScope(Scope::Kind::Comprehension, node, startOf(node), endOf(node)));
        return true;
      case Role::Declaration:
        forEachNamedChild(node, [&](TSNode name) {
          if (isKind(name, kind::identifier)) current()->globals.emplace_back(textOf(name, source_));
        });
        return false;
      case Role::Assignment: {
        TSNode left = field(node, Field::Left);
        TSNode right = field(node, Field::Right);
        while (isKind(right, kind::assignment)) right = field(right, Field::Right);
        if (isKind(left, kind::identifier)) {
          Binding& b = bind(BindingKind::Assignment, left, node);
          b.value = right;
        } else if (!ts_node_is_null(left)) {
          bindTargets(left, node);
        }
        return true;
      }
      case Role::NamedExpression: {
        Binding& b = bind(BindingKind::Assignment, field(node, Field::Name), node);
        b.value = field(node, Field::Value);
        return true;
      }
      case Role::AugmentedAssignment: {
        TSNode left = field(node, Field::Left);
        if (isKind(left, kind::identifier)) bind(BindingKind::Other, left, node);
        return true;
      }
      case Role::LoopTarget: {
        TSNode left = field(node, Field::Left);
        if (!ts_node_is_null(left)) bindTargets(left, node);
        return true;
      }
      case Role::AsPattern: {
        TSNode alias = field(node, Field::Alias);
        if (!ts_node_is_null(alias)) bindTargets(alias, node);
        return true;
      }
      case Role::ExceptClause: {
        TSNode alias = field(node, Field::Alias);
        if (isKind(alias, kind::identifier)) bind(BindingKind::Other, alias, node);
        return true;
      }
    }
    return true;
  }

  // Inside an expression only a lambda, a comprehension, a `:=` or an `as` pattern (a
  // parenthesised `with` item) binds a name: an expression whose bytes hold none of `lambda`,
  // `for`, `:=`, `as` adds nothing to the model, and neither do its subexpressions. Statements are
  // entered (but `return`, `assert`, `raise` and `del`, which hold expressions only), and so is
  // anything holding a syntax error (error recovery can put a statement inside an expression).
  void noteBinderWords() {
    // One pass over the text for all the words; a whole word is an identifier that equals it.
    static constexpr std::string_view kWords[] = {"lambda", "for", "as", "global", "nonlocal", "import", ":="};
    enum { kLambda, kFor, kAs, kGlobal, kNonlocal, kImport, kWalrus };
    static const WordSet words(kWords);
    std::string_view text = source_;
    words.forEachMatchUnordered(text, [&](size_t id, size_t at) {
      if (id != kWalrus && !isWholeWordAt(text, at, kWords[id].size())) return;
      auto offset = static_cast<uint32_t>(at);
      switch (id) {
        case kLambda:
        case kFor: binder_words_.push_back(offset); break;
        case kAs:
        case kWalrus:
          binder_words_.push_back(offset);
          model_.assigning_words_.push_back(offset);
          break;
        default: model_.eager_words_.push_back(offset); break;
      }
    });
    std::sort(binder_words_.begin(), binder_words_.end());
    std::sort(model_.assigning_words_.begin(), model_.assigning_words_.end());
    std::sort(model_.eager_words_.begin(), model_.eager_words_.end());
    model_.assigning_word_is_code_.assign(model_.assigning_words_.size(), -1);
  }

  static bool isExpressionKind(TSSymbol symbol) {
    static const std::vector<bool> expression = [] {
      static constexpr NodeKind kExpressions[] = {
          kind::call, kind::argument_list, kind::keyword_argument, kind::list, kind::tuple, kind::dictionary, kind::set, kind::pair,
          kind::attribute, kind::subscript, kind::slice, kind::binary_operator, kind::boolean_operator, kind::comparison_operator,
          kind::unary_operator, kind::not_operator, kind::conditional_expression, kind::parenthesized_expression,
          kind::concatenated_string, kind::await, kind::list_splat, kind::dictionary_splat, kind::expression_list, kind::yield, kind::type,
          kind::decorator,
          // Statements that hold expressions only.
          kind::return_statement, kind::assert_statement, kind::raise_statement, kind::delete_statement,
      };
      const TSLanguage* language = pythonLanguage();
      std::vector<bool> table(ts_language_symbol_count(language), false);
      for (TSSymbol id = 0; id < table.size(); ++id) {
        const char* name = ts_language_symbol_name(language, id);
        if (name == nullptr || ts_language_symbol_type(language, id) != TSSymbolTypeRegular) continue;
        for (NodeKind kind : kExpressions)
          if (kind.name() == name) table[id] = true;
      }
      return table;
    }();
    return symbol < expression.size() && expression[symbol];
  }

  bool skippable(TSNode node) const {
    if (!isExpressionKind(ts_node_symbol(node)) || ts_node_has_error(node)) return false;
    auto it = std::lower_bound(binder_words_.begin(), binder_words_.end(), startOf(node));
    return it == binder_words_.end() || *it >= endOf(node);
  }

  // An expression that skippable() keeps (it holds a lambda or a comprehension) but that binds
  // no name where it stands (no `:=` or `as` of its code) is left for later: recorded with its
  // scope, not entered (see SemanticModel::completeExpression).
  bool deferExpression(TSNode node) {
    if (!lazy_) return false;
    TSSymbol symbol = ts_node_symbol(node);
    if (!isExpressionKind(symbol) || ts_node_has_error(node)) return false;
    uint32_t start = startOf(node), end = endOf(node);
    const auto& words = model_.assigning_words_;
    for (auto it = std::lower_bound(words.begin(), words.end(), start); it != words.end() && *it < end; ++it)
      if (assigningWordIsCode(static_cast<size_t>(it - words.begin()))) return false;
    model_.pending_expressions_.push_back({node, current(), start, end});
    return true;
  }

  // Is the `as` or `:=` at assigning_words_[i] code (not in a string or a comment)? The token
  // there says: the smallest node at a keyword or operator is that token. Cached: nested
  // expressions ask again.
  bool assigningWordIsCode(size_t i) {
    auto& verdicts = model_.assigning_word_is_code_;
    if (verdicts[i] < 0) {
      uint32_t at = model_.assigning_words_[i];  // `:=` and `as` are two bytes each
      TSNode token = ts_node_descendant_for_byte_range(model_.file().root(), at, at + 2);
      verdicts[i] = textOf(token, source_) == source_.substr(at, 2) && !isKind(token, kind::comment) &&
                    !isKind(token, kind::string_content);
    }
    return verdicts[i] != 0;
  }

  SemanticModel& model_;
  std::string_view source_;
  std::vector<Scope*> stack_;
  std::vector<uint32_t>& binder_words_ = model_.binder_words_;  // kept for the deferred bodies
  bool lazy_ = false;  // defer the bodies of defs (no visitor)
};

SemanticModel::SemanticModel(const ParsedFile& file) : file_(file) {
  ModelBuilder(*this).build();
}

SemanticModel::SemanticModel(const ParsedFile& file, const std::function<void(TSNode)>& visit) : file_(file) {
  ModelBuilder(*this).build(&visit);
}

std::string_view SemanticModel::text(TSNode node) const { return textOf(node, file_.text()); }

bool SemanticModel::bindsBefore(const std::unique_ptr<Binding>& a, const std::unique_ptr<Binding>& b) {
  return startOf(a->name_node) < startOf(b->name_node);
}

void SemanticModel::mergeGrowth(size_t scopes_before, size_t bindings_before, size_t expressions_before) const {
  // What a walk added joins the orders: scopes by start, bindings by position, pending
  // expressions by start (they lie inside what was walked, apart from all the others).
  auto scopes_mid = scopes_.begin() + static_cast<long>(scopes_before);
  std::sort(scopes_mid, scopes_.end(), startsBefore);
  std::inplace_merge(scopes_.begin() + 1, scopes_mid, scopes_.end(), startsBefore);
  auto bindings_mid = bindings_.begin() + static_cast<long>(bindings_before);
  std::stable_sort(bindings_mid, bindings_.end(), bindsBefore);
  std::inplace_merge(bindings_.begin(), bindings_mid, bindings_.end(), bindsBefore);
  auto by_start = [](const PendingExpression& a, const PendingExpression& b) { return a.start < b.start; };
  auto expressions_mid = pending_expressions_.begin() + static_cast<long>(expressions_before);
  std::sort(expressions_mid, pending_expressions_.end(), by_start);
  std::inplace_merge(pending_expressions_.begin(), expressions_mid, pending_expressions_.end(), by_start);
}

void SemanticModel::completeScope(Scope& scope, bool reorder) const {
  if (!scope.body_pending) return;
  scope.body_pending = false;
  size_t scopes_before = scopes_.size(), bindings_before = bindings_.size();
  size_t expressions_before = pending_expressions_.size();
  ModelBuilder(const_cast<SemanticModel&>(*this)).buildChildren(scope.node, &scope);
  if (reorder) mergeGrowth(scopes_before, bindings_before, expressions_before);
}

void SemanticModel::completeExpression(size_t index, bool reorder) const {
  PendingExpression expression = pending_expressions_[index];
  pending_expressions_.erase(pending_expressions_.begin() + static_cast<long>(index));
  size_t scopes_before = scopes_.size(), bindings_before = bindings_.size();
  size_t expressions_before = pending_expressions_.size();
  ModelBuilder(const_cast<SemanticModel&>(*this)).buildChildren(expression.node, expression.parent);
  if (reorder) mergeGrowth(scopes_before, bindings_before, expressions_before);
}

void SemanticModel::completeAll() const {
  if (pending_.empty() && pending_expressions_.empty()) return;
  // Completing a body or an expression may leave what it holds for later: repeat until nothing
  // is left, then order everything once.
  while (!pending_.empty() || !pending_expressions_.empty()) {
    std::vector<Scope*> batch;
    batch.swap(pending_);
    for (Scope* scope : batch) completeScope(*scope, false);
    while (!pending_expressions_.empty()) completeExpression(pending_expressions_.size() - 1, false);
  }
  std::sort(scopes_.begin() + 1, scopes_.end(), startsBefore);
  std::stable_sort(bindings_.begin(), bindings_.end(), bindsBefore);
}

const std::vector<std::unique_ptr<Scope>>& SemanticModel::scopes() const {
  std::lock_guard lock(lazy_mutex_);
  completeAll();
  return scopes_;
}

const std::vector<std::unique_ptr<Binding>>& SemanticModel::bindings() const {
  std::lock_guard lock(lazy_mutex_);
  completeAll();
  return bindings_;
}

const Scope& SemanticModel::scopeAtLocked(uint32_t pos) const {
  for (;;) {
    // Scopes [1..] are sorted by start; the last one starting at or before `pos`, then out
    // until one contains it. A pending def around `pos` is walked first (its body, defaults
    // and annotations hold the scopes that may be the answer).
    auto it = std::upper_bound(scopes_.begin() + 1, scopes_.end(), pos,
                               [](uint32_t p, const auto& scope) { return p < scope->start; });
    // A pending expression around `pos` is walked a level down first (it may hold the answer).
    auto expression = std::upper_bound(pending_expressions_.begin(), pending_expressions_.end(), pos,
                                       [](uint32_t p, const PendingExpression& e) { return p < e.start; });
    if (expression != pending_expressions_.begin() && pos < std::prev(expression)->end) {
      completeExpression(static_cast<size_t>(std::prev(expression) - pending_expressions_.begin()));
      continue;
    }
    if (it == scopes_.begin() + 1) return *scopes_.front();
    Scope* candidate = std::prev(it)->get();
    Scope* pending = nullptr;
    for (Scope* s = candidate; s != nullptr; s = const_cast<Scope*>(s->parent))
      if (s->body_pending && s->start <= pos && pos < s->end) pending = s;
    if (pending != nullptr) {
      completeScope(*pending);
      continue;
    }
    const Scope* scope = candidate;
    while (scope->parent != nullptr && !scope->owns(pos)) scope = scope->parent;
    return *scope;
  }
}

const Scope& SemanticModel::scopeAt(TSNode node) const {
  std::lock_guard lock(lazy_mutex_);
  return scopeAtLocked(startOf(node));
}

const std::vector<const Binding*>* SemanticModel::bindingsOf(const Scope& scope, std::string_view name) const {
  {
    std::lock_guard lock(lazy_mutex_);
    if (scope.body_pending) completeScope(const_cast<Scope&>(scope));
  }
  auto it = scope.bindings.find(std::string(name));
  return it == scope.bindings.end() ? nullptr : &it->second;
}

const Binding* SemanticModel::resolve(std::string_view name, TSNode at) const {
  const Scope* start = &scopeAt(at);
  uint32_t pos = startOf(at);
  // `from`: where the lookup stands in `scope` — the use, then the start of the scope it came
  // out of. A scope that does not own that point evaluates it outside (a lambda in a default).
  uint32_t from = pos;
  for (const Scope* scope = start; scope != nullptr; from = scope->start, scope = scope->parent) {
    if (!scope->owns(from) && scope->parent != nullptr) continue;
    // A class body's names are not visible inside the functions nested in it.
    if (scope->kind == Scope::Kind::Class && scope != start) continue;
    const auto* found = bindingsOf(*scope, name);
    if (found == nullptr || found->empty()) continue;
    const Binding* before = nullptr;
    const Binding* first = nullptr;
    const Binding* fallback_only = nullptr;
    for (const Binding* b : *found) {
      if (b->is_fallback) {
        if (fallback_only == nullptr) fallback_only = b;
        continue;
      }
      if (first == nullptr) first = b;
      if (startOf(b->name_node) <= pos) before = b;
    }
    if (before != nullptr) return before;
    if (first != nullptr) return first;
    return fallback_only;
  }
  return nullptr;
}

std::optional<std::string> SemanticModel::qualifiedName(TSNode expr) const {
  return qualifiedNameImpl(expr, 0);
}

std::optional<std::string> SemanticModel::qualifiedNameImpl(TSNode expr, int depth) const {
  if (depth > 8) return std::nullopt;
  expr = unparenthesize(expr);
  // Collect the attribute chain iteratively: a.b.c -> base `a`, members [c, b].
  std::vector<std::string_view> members;
  while (isKind(expr, kind::attribute)) {
    members.push_back(text(fieldOf(expr, "attribute")));
    expr = unparenthesize(fieldOf(expr, "object"));
    if (members.size() > 64) return std::nullopt;
  }
  if (!isKind(expr, kind::identifier)) return std::nullopt;
  const Binding* binding = resolve(text(expr), expr);
  if (binding == nullptr) return std::nullopt;
  std::string base;
  if (binding->kind == BindingKind::Import) {
    base = binding->qualified_name;
  } else if (binding->kind == BindingKind::Assignment && !ts_node_is_null(binding->value)) {
    // `ac = torch.cuda.amp.autocast`: an alias, if the name is bound only here.
    const auto* all = bindingsOf(*binding->scope, binding->name);
    if (all == nullptr || all->size() != 1) return std::nullopt;
    TSNode value = unparenthesize(binding->value);
    if (!isKind(value, kind::identifier) && !isKind(value, kind::attribute)) return std::nullopt;
    auto resolved = qualifiedNameImpl(value, depth + 1);
    if (!resolved) return std::nullopt;
    base = *resolved;
  } else {
    return std::nullopt;
  }
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    base += '.';
    base += *it;
  }
  return canonicalQualifiedName(std::move(base));
}

bool SemanticModel::refersTo(TSNode expr, std::string_view qualified) const {
  auto name = qualifiedName(expr);
  return name && *name == qualified;
}

std::optional<std::string> SemanticModel::calleeName(TSNode call) const {
  if (!isKind(call, kind::call)) return std::nullopt;
  return qualifiedName(fieldOf(call, "function"));
}

bool SemanticModel::importsModule(std::string_view module) const {
  for (const Binding* b : imports_) {
    std::string_view q = b->qualified_name;
    if (q == module || (q.size() > module.size() && q.substr(0, module.size()) == module && q[module.size()] == '.'))
      return true;
  }
  return false;
}

std::optional<std::string> SemanticModel::visibleNameFor(std::string_view qualified, TSNode at) const {
  // Prefer the conventional spelling, then any alias bound at module level.
  std::string last_segment(qualified.substr(qualified.rfind('.') == std::string_view::npos ? 0 : qualified.rfind('.') + 1));
  const Binding* b = resolve(last_segment, at);
  if (b != nullptr && b->kind == BindingKind::Import && b->qualified_name == qualified) return last_segment;
  for (const Binding* binding : imports_) {
    if (binding->qualified_name != qualified) continue;
    const Binding* seen = resolve(binding->name, at);
    if (seen == binding) return binding->name;
  }
  return std::nullopt;
}

std::string canonicalQualifiedName(std::string name) {
  // Re-exports that PyTorch documents under a shorter public path. Prefix match on whole
  // segments; the first match wins.
  static const std::array<std::pair<std::string_view, std::string_view>, 15> kReexports{{
      {"torch.autocast", "torch.amp.autocast"},
      {"torch.GradScaler", "torch.amp.GradScaler"},
      {"torch.amp.autocast_mode.autocast", "torch.amp.autocast"},
      {"torch.amp.grad_scaler.GradScaler", "torch.amp.GradScaler"},
      {"torch.cuda.amp.autocast_mode", "torch.cuda.amp"},
      {"torch.cuda.amp.grad_scaler", "torch.cuda.amp"},
      {"torch.cpu.amp.autocast_mode", "torch.cpu.amp"},
      {"torch.cpu.amp.grad_scaler", "torch.cpu.amp"},
      {"torch.nn.parallel.distributed.DistributedDataParallel", "torch.nn.parallel.DistributedDataParallel"},
      {"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.DistributedDataParallel"},
      {"torch.utils.data.dataloader.DataLoader", "torch.utils.data.DataLoader"},
      {"torch.nn.modules.activation.Softmax", "torch.nn.Softmax"},
      {"torch.nn.modules.dropout.Dropout", "torch.nn.Dropout"},
      {"torch.functional.einsum", "torch.einsum"},
      {"torch._C._nn.scaled_dot_product_attention", "torch.nn.functional.scaled_dot_product_attention"},
  }};
  for (const auto& [from, to] : kReexports) {
    if (name.size() >= from.size() && name.compare(0, from.size(), from) == 0 &&
        (name.size() == from.size() || name[from.size()] == '.')) {
      return std::string(to) + name.substr(from.size());
    }
  }
  return name;
}

}  // namespace ptlint::analysis
