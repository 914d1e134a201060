#include "analysis/semantic_model_builder.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/node_access.h"
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {
namespace {

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

}  // namespace

bool ModelBuilder::startsBefore(const std::unique_ptr<Scope>& a, const std::unique_ptr<Scope>& b) {
  return a->start < b->start || (a->start == b->start && a->end > b->end);
}

void ModelBuilder::build(const std::function<void(TSNode)>* visit) {
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

void ModelBuilder::buildChildren(TSNode node, Scope* innermost) {
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

bool ModelBuilder::deferrable(TSNode def) const {
  if (!lazy_ || ts_node_has_error(def)) return false;
  const auto& words = model_.eager_words_;
  auto it = std::lower_bound(words.begin(), words.end(), startOf(def));
  return it == words.end() || *it >= endOf(def);
}

Scope* ModelBuilder::openScope(Scope::Kind kind, TSNode node, uint32_t start, uint32_t end) {
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

Scope* ModelBuilder::targetScope(const std::string& name) {
  Scope* scope = current();
  if (std::find(scope->globals.begin(), scope->globals.end(), name) != scope->globals.end())
    return stack_.front();
  return scope;
}

Binding& ModelBuilder::bind(BindingKind kind, TSNode name_node, TSNode statement, std::string name) {
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

void ModelBuilder::bindTargets(TSNode target, TSNode statement) {
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

void ModelBuilder::bindParameters(TSNode parameters, TSNode owner) {
  forEachNamedChildInOnePass(parameters, [&](TSNode param) {
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

void ModelBuilder::bindImport(TSNode statement) {
  bool fallback = isImportFallback(statement, source_);
  if (isKind(statement, kind::import_statement)) {
    forEachFieldChild(statement, "name", [&](TSNode name) {
      if (isKind(name, kind::aliased_import)) {
        Binding& b = bind(BindingKind::Import, fieldOf(name, "alias"), statement);
        b.qualified_name = dottedNameText(fieldOf(name, "name"), source_);
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
                                                               : dottedNameText(module_node, source_);
  forEachFieldChild(statement, "name", [&](TSNode name) {
    TSNode imported = isKind(name, kind::aliased_import) ? fieldOf(name, "name") : name;
    TSNode bound = isKind(name, kind::aliased_import) ? fieldOf(name, "alias") : name;
    std::string member = dottedNameText(imported, source_);
    Binding& b = bind(BindingKind::Import, bound, statement, std::string(textOf(bound, source_)));
    b.qualified_name = module.empty() || module.back() == '.' ? module + member : module + "." + member;
    b.is_fallback = fallback;
  });
}

auto ModelBuilder::roleOf(TSSymbol symbol) -> Role {
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

bool ModelBuilder::enter(TSNode node) {
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

void ModelBuilder::noteBinderWords() {
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

bool ModelBuilder::isExpressionKind(TSSymbol symbol) {
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

bool ModelBuilder::skippable(TSNode node) const {
  if (!isExpressionKind(ts_node_symbol(node)) || ts_node_has_error(node)) return false;
  auto it = std::lower_bound(binder_words_.begin(), binder_words_.end(), startOf(node));
  return it == binder_words_.end() || *it >= endOf(node);
}

bool ModelBuilder::deferExpression(TSNode node) {
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

bool ModelBuilder::assigningWordIsCode(size_t i) {
  auto& verdicts = model_.assigning_word_is_code_;
  if (verdicts[i] < 0) {
    uint32_t at = model_.assigning_words_[i];  // `:=` and `as` are two bytes each
    TSNode token = ts_node_descendant_for_byte_range(model_.file().root(), at, at + 2);
    verdicts[i] = textOf(token, source_) == source_.substr(at, 2) && !isKind(token, kind::comment) &&
                  !isKind(token, kind::string_content);
  }
  return verdicts[i] != 0;
}

}  // namespace ptlint::analysis
