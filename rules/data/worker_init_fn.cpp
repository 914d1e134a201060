#include "rules/data/worker_init_fn.h"

#include <algorithm>
#include <set>

#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::BindingKind;
using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;

// Libraries whose functions cannot reach a dataset object they are not handed.
bool isKnownLibrary(std::string_view qualified) {
  std::string_view top = qualified.substr(0, qualified.find('.'));
  for (std::string_view known : {"torch", "numpy", "random", "os", "math", "time", "logging", "warnings", "hashlib",
                                 "sys", "secrets", "builtins", "datetime", "socket", "platform"})
    if (top == known) return true;
  return false;
}

class Reader {
 public:
  Reader(const analysis::SemanticModel& model, const std::vector<std::string>& names) : model_(model), names_(names) {}

  // The code `fn` runs when called, or false when it cannot tell.
  bool value(TSNode fn, int depth = 0) {
    if (depth > 8) return false;
    fn = analysis::resolveValue(model_, fn);
    analysis::NodeKind kind = kindOf(fn);
    if (kind == kind::none) return true;  // a branch that passes no function
    if (kind == kind::lambda) return body(fieldOf(fn, "body"));
    if (kind == kind::conditional_expression && ts_node_named_child_count(fn) == 3)
      return value(ts_node_named_child(fn, 0), depth + 1) && value(ts_node_named_child(fn, 2), depth + 1);
    if (kind == kind::call) {
      // `functools.partial(worker_init_fn, rank=rank, seed=seed)`
      auto q = model_.calleeName(fn);
      if (!q || *q != "functools.partial") return false;
      auto args = positionalArguments(fn);
      if (args.empty() || !boundArguments(fieldOf(fn, "arguments"))) return false;
      return value(args[0], depth + 1);
    }
    if (kind == kind::identifier) return function(fn);
    return false;
  }

 private:
  // A name bound to a def of the file: its body.
  bool function(TSNode name) {
    const analysis::Binding* b = model_.resolve(model_.text(name), name);
    if (b == nullptr || b->kind != BindingKind::Function) return false;
    const auto* all = model_.bindingsOf(*b->scope, b->name);
    if (all == nullptr || all->size() != 1 || !isKind(b->statement, kind::function_definition)) return false;
    if (!seen_.insert(b->statement.id).second) return true;  // read already (or being read)
    if (seen_.size() > 32) return false;
    return body(fieldOf(b->statement, "body"));
  }

  // The arguments a partial binds: the function's locals and parameters, literals and module
  // functions, never a module-level object (it may be the dataset) nor one of `names_`.
  bool boundArguments(TSNode arguments) {
    if (!body(arguments)) return false;
    bool ok = true;
    analysis::walkTree(
        arguments,
        [&](TSNode node) {
          if (!ok || isKind(node, kind::string) || isKind(node, kind::comment)) return false;
          if (!isKind(node, kind::identifier)) return true;
          TSNode parent = ts_node_parent(node);
          if ((isKind(parent, kind::keyword_argument) && analysis::sameNode(fieldOf(parent, "name"), node)) ||
              (isKind(parent, kind::attribute) && analysis::sameNode(fieldOf(parent, "attribute"), node)))
            return false;
          const analysis::Binding* b = model_.resolve(model_.text(node), node);
          if (b != nullptr && b->scope == &model_.moduleScope() && b->kind != BindingKind::Import &&
              b->kind != BindingKind::Function)
            ok = false;
          return ok;
        },
        [](TSNode) {});
    return ok;
  }

  bool body(TSNode root) {
    if (ts_node_is_null(root)) return false;
    bodies_.push_back(root);
    bool ok = true;
    analysis::walkTree(
        root,
        [&](TSNode node) {
          if (!ok) return false;
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::comment || kind == kind::string) return false;
          if (kind == kind::identifier) {
            std::string_view text = model_.text(node);
            if (text == "dataset" || std::find(names_.begin(), names_.end(), text) != names_.end()) ok = false;
          } else if (kind == kind::global_statement || kind == kind::nonlocal_statement) {
            ok = false;  // rebinds what the function does not own
          } else if (kind == kind::call) {
            ok = call(node);
          }
          return ok;
        },
        [](TSNode) {});
    return ok;
  }

  bool call(TSNode call) {
    TSNode callee = analysis::unparenthesize(fieldOf(call, "function"));
    if (auto q = model_.qualifiedName(callee)) return isKnownLibrary(*q);
    TSNode root = callee;
    while (isKind(root, kind::attribute) || isKind(root, kind::call) || isKind(root, kind::subscript))
      root = analysis::unparenthesize(isKind(root, kind::attribute) ? fieldOf(root, "object")
                                      : isKind(root, kind::call)    ? fieldOf(root, "function")
                                                                : fieldOf(root, "value"));
    if (!isKind(root, kind::identifier)) return false;
    const analysis::Binding* b = model_.resolve(model_.text(root), root);
    if (b == nullptr) return true;  // a builtin: `int(...)`, `hash(...)`, `print(...)`
    if (b->kind == BindingKind::Function && analysis::sameNode(root, callee)) return function(root);
    if (b->kind == BindingKind::Import) return isKnownLibrary(b->qualified_name);
    // A method of a value the code read here made (`rng = np.random.default_rng(s);
    // rng.integers(...)`, `info = get_worker_info(); info.seed`): how it was made is read above.
    // A parameter, a closure's or a module-level object may be anything, the dataset included.
    if (analysis::sameNode(root, callee) || b->kind == BindingKind::Parameter) return false;
    return std::any_of(bodies_.begin(), bodies_.end(), [&](TSNode body) { return analysis::contains(body, b->statement); });
  }

  const analysis::SemanticModel& model_;
  const std::vector<std::string>& names_;
  std::set<const void*> seen_;
  std::vector<TSNode> bodies_;  // the code read so far
};

}  // namespace

bool reseedsOnlyGlobals(const analysis::SemanticModel& model, TSNode fn, const std::vector<std::string>& names) {
  return Reader(model, names).value(fn);
}

}  // namespace ptlint::rules
