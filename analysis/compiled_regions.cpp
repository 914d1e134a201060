#include "analysis/compiled_regions.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "analysis/code_text.h"
#include "analysis/name_shapes.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {

bool isTorchCompile(std::string_view qualified) {
  return qualified == "torch.compile" || qualified == "torch.compiler.compile";
}

bool isDynamoOptimize(std::string_view qualified) {
  return qualified == "torch._dynamo.optimize" || qualified == "torch._dynamo.eval_frame.optimize" ||
         qualified == "torch._dynamo.optimize_assert" || qualified == "torch._dynamo.eval_frame.optimize_assert";
}

bool isDynamoDisable(std::string_view qualified) {
  return qualified == "torch.compiler.disable" || qualified == "torch._dynamo.disable" ||
         qualified == "torch._dynamo.eval_frame.disable" || qualified == "torch._disable_dynamo";
}

bool namesDynamoDisable(std::string_view spelled) {
  size_t dot = spelled.rfind('.');
  std::string_view name = dot == std::string_view::npos ? spelled : spelled.substr(dot + 1);
  return name.find("disable") != std::string_view::npos &&
         (name.find("compile") != std::string_view::npos || name.find("dynamo") != std::string_view::npos);
}

bool isCompilingPredicate(std::string_view qualified) {
  return qualified == "torch.compiler.is_compiling" || qualified == "torch.compiler.is_dynamo_compiling" ||
         qualified == "torch._dynamo.is_compiling" || qualified == "torch._dynamo.external_utils.is_compiling" ||
         qualified == "torch._utils.is_compiling";
}

namespace {

constexpr int kMaxDepth = 8;  // alias chains, base classes, `self.x = ...` indirections

// Methods of `nn.Module` that return the module itself: `Model().cuda()` is still a `Model`.
bool returnsSelf(std::string_view method) {
  static constexpr std::string_view kSelfReturning[] = {"to",    "cuda",     "cpu",    "eval",   "train",
                                                        "half",  "float",    "double", "bfloat16",
                                                        "requires_grad_", "to_empty", "share_memory"};
  return std::find(std::begin(kSelfReturning), std::end(kSelfReturning), method) != std::end(kSelfReturning);
}

// The first positional argument of a call, or the keyword argument `keyword` if given; null if
// neither.
TSNode targetArgument(TSNode call, std::string_view keyword, std::string_view source) {
  TSNode args = fieldOf(call, "arguments");
  if (!isKind(args, kind::argument_list)) return {};
  TSNode positional{}, by_keyword{};
  forEachNamedChild(args, [&](TSNode arg) {
    analysis::NodeKind kind = kindOf(arg);
    if (kind == kind::keyword_argument) {
      if (!keyword.empty() && textOf(fieldOf(arg, "name"), source) == keyword) by_keyword = fieldOf(arg, "value");
    } else if (kind != kind::comment && kind != kind::list_splat && kind != kind::dictionary_splat &&
               ts_node_is_null(positional)) {
      positional = arg;
    }
  });
  return ts_node_is_null(positional) ? by_keyword : positional;
}

// `torch.compile(fn, disable=True)` compiles nothing.
bool disablesItself(TSNode call, std::string_view source) {
  TSNode args = fieldOf(call, "arguments");
  if (!isKind(args, kind::argument_list)) return false;
  bool disabled = false;
  forEachNamedChild(args, [&](TSNode arg) {
    if (isKind(arg, kind::keyword_argument) && textOf(fieldOf(arg, "name"), source) == "disable" &&
        isKind(unparenthesize(fieldOf(arg, "value")), kind::true_))
      disabled = true;
  });
  return disabled;
}

// "a.b.c" for an identifier/attribute chain, empty for anything else.
std::string dottedText(TSNode expr, std::string_view source) {
  std::vector<std::string_view> parts;
  expr = unparenthesize(expr);
  while (isKind(expr, kind::attribute)) {
    parts.push_back(textOf(fieldOf(expr, "attribute"), source));
    expr = unparenthesize(fieldOf(expr, "object"));
  }
  if (!isKind(expr, kind::identifier)) return {};
  std::string out(textOf(expr, source));
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    out += '.';
    out += *it;
  }
  return out;
}

// `torch.compile(model)` as a statement of its own: the compiled wrapper it returns is thrown
// away and the model still runs eagerly (PyTorch 2.6: no frame compiled); only
// `model.compile()` compiles in place.
bool resultDiscarded(TSNode call) {
  TSNode parent = ts_node_parent(call);
  while (isKind(parent, kind::parenthesized_expression)) parent = ts_node_parent(parent);
  return isKind(parent, kind::expression_statement);
}

std::string_view lastSegment(std::string_view dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

}  // namespace

class CompiledRegions::Builder {
 public:
  Builder(CompiledRegions& out) : out_(out), model_(out.model_), source_(out.model_.file().text()) {}

  void run() {
    // No root can exist: nothing is compiled (the capture flag is still read where it is set).
    bool external = out_.project_ != nullptr && !out_.project_->empty();
    if (!external && !CompiledRegions::mayCompileAnything(model_.file(), out_.extra_decorators_) &&
        source_.find("capture_scalar_outputs") == std::string_view::npos)
      return;
    collect();
    addPartialCalls();
    findRoots();
    grow();
    // What other files compile, after what this file reaches itself (whose chains are shorter).
    if (out_.project_ != nullptr) {
      addExternalRoots(*out_.project_);
      grow();
    }
  }

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
  void collect() {
    std::vector<uint32_t> anchors = anchorOffsets();
    auto holdsAnchor = [&](TSNode node) {
      auto it = std::lower_bound(anchors.begin(), anchors.end(), startOf(node));
      return it != anchors.end() && *it < endOf(node);
    };
    walkTree(
        model_.file().root(),
        [&](TSNode node) {
          if (!holdsAnchor(node)) return false;
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::comment) return false;
          if (kind == kind::call) {
            if (mayCompileOrDisable(node)) site_calls_.push_back(node);
          } else if (kind == kind::decorated_definition) {
            TSNode def = fieldOf(node, "definition");
            if (isKind(def, kind::function_definition)) decorated_.push_back(functionIndex(def));
          } else if (kind == kind::assignment) {
            noteCaptureAssignment(node);
            notePartialOfCompile(node);
          } else if (kind == kind::keyword_argument) {
            if (textOf(fieldOf(node, "name"), source_) == "capture_scalar_outputs" &&
                isKind(unparenthesize(fieldOf(node, "value")), kind::true_))
              out_.captures_scalars_ = true;
          }
          return true;
        },
        [](TSNode) {});
  }

  // Sorted offsets of the bytes that let `collect` enter a subtree (a superset is harmless).
  std::vector<uint32_t> anchorOffsets() const {
    std::vector<uint32_t> out;
    auto add = [&](std::string_view word) {
      if (!word.empty()) forEachOccurrence(source_, word, [&](size_t at) { out.push_back(static_cast<uint32_t>(at)); });
    };
    add("compile");
    add("optimize");  // `torch._dynamo.optimize(...)`
    add("disable");  // also `_disable_dynamo`
    add("@");
    add("capture_scalar_outputs");
    for (const auto& extra : out_.extra_decorators_) add(lastSegment(extra));
    // `f(...)(...)`: a `)` followed, past blanks, line continuations and comments, by `(`.
    for (size_t at = source_.find(')'); at != std::string_view::npos; at = source_.find(')', at + 1)) {
      size_t i = at + 1;
      while (i < source_.size()) {
        char c = source_[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\\') {
          ++i;
        } else if (c == '#') {
          while (i < source_.size() && source_[i] != '\n' && source_[i] != '\r') ++i;
        } else {
          break;
        }
      }
      if (i < source_.size() && source_[i] == '(') out.push_back(static_cast<uint32_t>(i));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // The function of `def` (a function_definition), added on first use.
  int functionIndex(TSNode def) const {
    if (auto it = index_by_def_.find(def.id); it != index_by_def_.end()) return it->second;
    FunctionInfo info;
    info.def = def;
    info.body = fieldOf(def, "body");
    info.name = textOf(fieldOf(def, "name"), source_);
    TSNode holder = ts_node_parent(def);
    if (isKind(holder, kind::decorated_definition)) {
      forEachNamedChild(holder, [&](TSNode child) {
        if (isKind(child, kind::decorator) && ts_node_named_child_count(child) > 0)
          info.decorators.push_back(unparenthesize(ts_node_named_child(child, 0)));
      });
      holder = ts_node_parent(holder);
    }
    if (isKind(holder, kind::block) && isKind(ts_node_parent(holder), kind::class_definition)) info.cls = ts_node_parent(holder);
    for (TSNode decorator : info.decorators) {
      std::string_view text = textOf(decorator, source_);
      if ((text == "staticmethod") && model_.resolve(text, decorator) == nullptr) info.first_param_is_instance = false;
    }
    int index = static_cast<int>(functions_.size());
    index_by_def_[def.id] = index;
    functions_.push_back(std::move(info));
    return index;
  }

  // The function of a binding's or scope's node when it is a def, else -1.
  int functionIndexIfDef(TSNode node) const {
    return isKind(node, kind::function_definition) ? functionIndex(node) : -1;
  }

  // The methods of a class (defs directly in its body, decorated or not): name -> function; the
  // last def of a name wins.
  const std::unordered_map<std::string, int>& methodsOf(TSNode cls) const {
    auto [it, added] = methods_.try_emplace(cls.id);
    if (!added) return it->second;
    std::unordered_map<std::string, int> methods;
    TSNode body = fieldOf(cls, "body");
    if (isKind(body, kind::block)) {
      forEachNamedChild(body, [&](TSNode child) {
        TSNode def = isKind(child, kind::decorated_definition) ? fieldOf(child, "definition") : child;
        if (!isKind(def, kind::function_definition)) return;
        int index = functionIndex(def);
        if (sameNode(functions_[index].cls, cls)) methods[std::string(functions_[index].name)] = index;
      });
    }
    auto& slot = methods_[cls.id];  // functionIndex may have rehashed the map
    slot = std::move(methods);
    return slot;
  }

  // The function with its calls and `self.<attr>` stores read: those of its body, not of the
  // defs and classes nested in it (a nested def's decorators, defaults and annotations run here).
  FunctionInfo& scanned(int index) const {
    FunctionInfo& info = functions_[index];
    if (info.scanned) return info;
    info.scanned = true;
    if (ts_node_is_null(info.body)) return info;
    walkTree(
        info.body,
        [&](TSNode node) {
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::comment || kind == kind::class_definition) return false;
          if (kind == kind::block && !sameNode(node, info.body)) {
            TSNode parent = ts_node_parent(node);
            if (isKind(parent, kind::function_definition) && sameNode(node, fieldOf(parent, "body"))) return false;
          } else if (kind == kind::call) {
            info.calls.push_back(node);
          } else if (kind == kind::assignment) {
            noteAttributeStore(node, info);
          }
          return true;
        },
        [](TSNode) {});
    return info;
  }

  // A cheap filter before resolving names: the callee's last segment is `compile`, `disable`,
  // `_disable_dynamo` or a configured decorator's, or the callee is itself a call
  // (`torch.compile(mode=...)(fn)`).
  bool mayCompileOrDisable(TSNode call) const {
    TSNode callee = unparenthesize(fieldOf(call, "function"));
    if (isKind(callee, kind::call)) return true;
    TSNode name = isKind(callee, kind::attribute) ? fieldOf(callee, "attribute") : callee;
    if (!isKind(name, kind::identifier)) return false;
    std::string_view text = textOf(name, source_);
    if (text == "compile" || text == "disable" || text == "_disable_dynamo") return true;
    if (partial_names_.count(text)) return true;
    for (const auto& extra : out_.extra_decorators_)
      if (lastSegment(extra) == text) return true;
    return false;
  }

  // `<...>.capture_scalar_outputs = True` (torch's dynamo config).
  void noteCaptureAssignment(TSNode assignment) {
    TSNode left = unparenthesize(fieldOf(assignment, "left"));
    TSNode right = fieldOf(assignment, "right");
    if (!isKind(left, kind::attribute) || ts_node_is_null(right)) return;
    std::string_view attr = textOf(fieldOf(left, "attribute"), source_);
    if (attr == "capture_scalar_outputs" && isKind(unparenthesize(right), kind::true_)) {
      auto q = model_.qualifiedName(left);
      if (q && q->starts_with("torch.")) out_.captures_scalars_ = true;
    }
  }

  // `compiler = functools.partial(torch.compile, ...)`: the name's calls compile (found again by
  // `addPartialCalls`, as the calls of it hold none of the anchor words).
  void notePartialOfCompile(TSNode assignment) {
    TSNode left = unparenthesize(fieldOf(assignment, "left"));
    if (isKind(left, kind::identifier) && isPartialOfCompile(fieldOf(assignment, "right")))
      partial_names_.insert(textOf(left, source_));
  }

  // The calls and decorators naming a partial of torch.compile, in tree order with the others.
  void addPartialCalls() {
    if (partial_names_.empty()) return;
    for (std::string_view name : partial_names_) {
      forEachWholeWord(source_, name, [&](size_t at) {
        TSNode node = ts_node_descendant_for_byte_range(model_.file().root(), static_cast<uint32_t>(at),
                                                        static_cast<uint32_t>(at + name.size()));
        if (!isKind(node, kind::identifier)) return false;
        TSNode parent = ts_node_parent(node);
        if (isKind(parent, kind::call) && sameNode(fieldOf(parent, "function"), node)) {
          site_calls_.push_back(parent);
        } else if (isKind(parent, kind::decorator)) {
          TSNode def = fieldOf(ts_node_parent(parent), "definition");
          if (isKind(def, kind::function_definition)) decorated_.push_back(functionIndex(def));
        }
        return false;
      });
    }
    auto byPosition = [](TSNode a, TSNode b) {
      return startOf(a) != startOf(b) ? startOf(a) < startOf(b) : endOf(a) > endOf(b);
    };
    std::sort(site_calls_.begin(), site_calls_.end(), byPosition);
    site_calls_.erase(std::unique(site_calls_.begin(), site_calls_.end(), [](TSNode a, TSNode b) { return sameNode(a, b); }),
                      site_calls_.end());
    std::sort(decorated_.begin(), decorated_.end(),
              [&](int a, int b) { return startOf(functions_[a].def) < startOf(functions_[b].def); });
    decorated_.erase(std::unique(decorated_.begin(), decorated_.end()), decorated_.end());
  }

  // `<name>.<attr> = value` in a function's body.
  void noteAttributeStore(TSNode assignment, FunctionInfo& info) const {
    TSNode left = unparenthesize(fieldOf(assignment, "left"));
    TSNode right = fieldOf(assignment, "right");
    if (!isKind(left, kind::attribute) || ts_node_is_null(right)) return;
    std::string_view attr = textOf(fieldOf(left, "attribute"), source_);
    while (isKind(right, kind::assignment)) right = fieldOf(right, "right");
    TSNode object = unparenthesize(fieldOf(left, "object"));
    if (isKind(object, kind::identifier)) info.attribute_stores.emplace_back(object, attr, right);
  }

  // ---- Names ----

  // Does `callee` (with qualified name `q`, if it resolves) name torch.compile or a configured
  // compile decorator?
  bool isCompileName(TSNode callee, const std::optional<std::string>& q) const {
    if (q && isTorchCompile(*q)) return true;
    if (out_.extra_decorators_.empty()) return false;
    std::string dotted = q ? std::string{} : dottedText(callee, source_);
    for (const auto& extra : out_.extra_decorators_) {
      if (q) {
        if (*q == extra) return true;
        // A relative import (`from .utils import compiled`) matches by its trailing segments.
        if (q->starts_with('.')) {
          std::string_view rel = std::string_view(*q).substr(q->find_first_not_of('.'));
          if (!rel.empty() && extra.size() > rel.size() && std::string_view(extra).ends_with(rel) &&
              extra[extra.size() - rel.size() - 1] == '.')
            return true;
        }
      } else if (!dotted.empty() && dotted == extra) {
        return true;  // a decorator defined in this file, named as configured
      }
    }
    return false;
  }

  // `functools.partial(torch.compile, ...)`: calling it compiles its first argument.
  bool isPartialOfCompile(TSNode call) const {
    call = unparenthesize(call);
    if (!isKind(call, kind::call) || disablesItself(call, source_)) return false;
    auto q = model_.qualifiedName(unparenthesize(fieldOf(call, "function")));
    if (!q || *q != "functools.partial") return false;
    TSNode func = unparenthesize(targetArgument(call, "func", source_));
    return !ts_node_is_null(func) && isCompileName(func, model_.qualifiedName(func));
  }

  // A name every binding of which is such a partial (`compiler = partial(torch.compile, ...)`).
  bool namesPartialOfCompile(TSNode ident) const {
    if (!isKind(ident, kind::identifier)) return false;
    const Binding* b = model_.resolve(textOf(ident, source_), ident);
    const auto* all = b != nullptr ? model_.bindingsOf(*b->scope, b->name) : nullptr;
    if (all == nullptr || all->empty()) return false;
    for (const Binding* c : *all)
      if (c->kind != BindingKind::Assignment || !isPartialOfCompile(c->value)) return false;
    return true;
  }

  // The binding `name` refers to at `ident`, skipping the statement that contains it
  // (`model = torch.compile(model)` reads the previous `model`).
  const Binding* bindingFor(TSNode ident) const {
    std::string_view name = textOf(ident, source_);
    const Binding* b = model_.resolve(name, ident);
    if (b == nullptr) return nullptr;
    auto self_referential = [&](const Binding* c) {
      return (c->kind == BindingKind::Assignment || c->kind == BindingKind::Other) && contains(c->statement, ident);
    };
    if (!self_referential(b)) return b;
    const Binding* best = nullptr;
    if (const auto* all = model_.bindingsOf(*b->scope, name))
      for (const Binding* c : *all)
        if (!c->is_fallback && startOf(c->name_node) < startOf(ident) && !self_referential(c)) best = c;
    return best;
  }

  // `f = wrap(f, ...)`, `model = model.to(device).eval()`: an assignment that rebinds a name to a
  // wrapper of its previous value (torch.compile, torch.compiler.disable, DDP, ...).
  bool wrapsItself(const Binding* c) const {
    if (c->kind != BindingKind::Assignment || ts_node_is_null(c->value)) return false;
    TSNode v = unparenthesize(c->value);
    while (isKind(v, kind::call)) {
      TSNode callee = unparenthesize(fieldOf(v, "function"));
      TSNode first = unparenthesize(targetArgument(v, {}, source_));
      if (isKind(first, kind::identifier) && textOf(first, source_) == c->name) return true;
      if (!isKind(callee, kind::attribute) || !returnsSelf(textOf(fieldOf(callee, "attribute"), source_))) return false;
      v = unparenthesize(fieldOf(callee, "object"));
    }
    return isKind(v, kind::identifier) && textOf(v, source_) == c->name;
  }

  // The class_definition of a same-file class that `ident` names, or null.
  TSNode classNamed(TSNode ident) const {
    if (!isKind(ident, kind::identifier)) return {};
    const Binding* b = bindingFor(ident);
    return b != nullptr && b->kind == BindingKind::Class ? b->statement : TSNode{};
  }

  // The def enclosing `node` (innermost function_definition whose body holds it), or -1.
  int enclosingFunction(TSNode node) const {
    for (const Scope* scope = &model_.scopeAt(node); scope != nullptr; scope = scope->parent) {
      if (scope->kind == Scope::Kind::Class || scope->kind == Scope::Kind::Module) return -1;
      if (scope->kind != Scope::Kind::Function) continue;
      int index = functionIndexIfDef(scope->node);
      if (index < 0) return -1;
      if (contains(functions_[index].body, node)) return index;
    }
    return -1;
  }

  // Method `name` of a same-file class, looking through same-file base classes (depth first,
  // left to right); -1 if none. Each class is visited once per lookup, and lookups are
  // memoised: a lattice of W classes on D levels costs W*D, not W^D.
  int methodOf(TSNode cls, std::string_view name, bool skip_own = false) const {
    if (ts_node_is_null(cls)) return -1;
    std::string key = std::to_string(reinterpret_cast<uintptr_t>(cls.id)) + (skip_own ? "^" : ".") + std::string(name);
    if (auto it = method_of_.find(key); it != method_of_.end()) return it->second;
    int found = -1;
    std::unordered_set<const void*> seen;
    std::vector<TSNode> stack;
    auto pushBases = [&](TSNode c) {
      std::vector<TSNode> bases;
      forEachBase(c, [&](TSNode base) { bases.push_back(base); });
      for (auto it = bases.rbegin(); it != bases.rend(); ++it) stack.push_back(*it);
    };
    if (skip_own) {
      seen.insert(cls.id);
      pushBases(cls);
    } else {
      stack.push_back(cls);
    }
    while (!stack.empty() && found < 0) {
      TSNode c = stack.back();
      stack.pop_back();
      if (!seen.insert(c.id).second) continue;
      const auto& methods = methodsOf(c);
      if (auto m = methods.find(std::string(name)); m != methods.end()) {
        found = m->second;
        break;
      }
      pushBases(c);
    }
    method_of_[key] = found;
    return found;
  }

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
  TSNode instanceClass(TSNode expr, int depth = 0) const {
    expr = unparenthesize(expr);
    if (depth > kMaxDepth) return {};
    if (isKind(expr, kind::call)) {
      TSNode callee = unparenthesize(fieldOf(expr, "function"));
      if (isKind(callee, kind::identifier)) return classNamed(callee);
      if (isKind(callee, kind::attribute) && returnsSelf(textOf(fieldOf(callee, "attribute"), source_)))
        return instanceClass(fieldOf(callee, "object"), depth + 1);
      return {};
    }
    if (isKind(expr, kind::identifier)) {
      const Binding* b = bindingFor(expr);
      if (b == nullptr) return {};
      if (b->kind == BindingKind::Parameter) {
        TSNode cls = selfClass(b);
        return ts_node_is_null(cls) ? annotatedClass(b) : cls;
      }
      // Memoised per identifier: names bound from names bound from names (each several times)
      // are followed once each; a name reached again while resolved is unknown.
      if (auto it = instance_class_.find(expr.id); it != instance_class_.end()) return it->second;
      instance_class_[expr.id] = TSNode{};
      // Every binding of the name in its scope must build the same class (`model = Model()` and
      // `model = torch.compile(model)` agree; a parameter or another value does not).
      TSNode found{};
      for (const Binding* c : *model_.bindingsOf(*b->scope, b->name)) {
        if (wrapsItself(c)) continue;
        if (c->kind != BindingKind::Assignment || ts_node_is_null(c->value)) return {};
        TSNode vc = instanceClass(c->value, depth + 1);
        if (ts_node_is_null(vc) || (!ts_node_is_null(found) && !sameNode(found, vc))) return {};
        found = vc;
      }
      return instance_class_[expr.id] = found;
    }
    if (isKind(expr, kind::attribute)) {
      TSNode owner_cls = instanceClass(fieldOf(expr, "object"), depth + 1);
      if (ts_node_is_null(owner_cls)) return {};
      return attributeClass(owner_cls, textOf(fieldOf(expr, "attribute"), source_), depth + 1);
    }
    return {};
  }

  // The same-file class a parameter is annotated with (`def generate(model: GPT)`), or null.
  TSNode annotatedClass(const Binding* param) const {
    TSNode holder = ts_node_parent(param->name_node);
    if (!isKind(holder, kind::typed_parameter) && !isKind(holder, kind::typed_default_parameter)) return {};
    TSNode type = fieldOf(holder, "type");
    if (isKind(type, kind::type) && ts_node_named_child_count(type) == 1) type = ts_node_named_child(type, 0);
    type = unparenthesize(type);
    if (isKind(type, kind::string)) {
      // A forward reference, `model: "GPT"`: the class of that name at module level.
      std::string_view text = textOf(type, source_);
      if (text.size() < 3 || (text.front() != '"' && text.front() != '\'') || text.back() != text.front()) return {};
      std::string_view name = text.substr(1, text.size() - 2);
      const auto* all = model_.bindingsOf(model_.moduleScope(), name);
      if (all == nullptr || all->size() != 1 || (*all)[0]->kind != BindingKind::Class) return {};
      return (*all)[0]->statement;
    }
    return classNamed(type);
  }

  // The class of a method's first parameter (`self`), or null for any other parameter.
  TSNode selfClass(const Binding* param) const {
    int index = functionIndexIfDef(param->statement);
    if (index < 0) return {};
    const FunctionInfo& fn = functions_[index];
    if (ts_node_is_null(fn.cls) || !fn.first_param_is_instance) return {};
    TSNode params = fieldOf(fn.def, "parameters");
    if (ts_node_named_child_count(params) == 0) return {};
    TSNode first = ts_node_named_child(params, 0);
    if (isKind(first, kind::typed_parameter)) first = ts_node_named_child(first, 0);
    return isKind(first, kind::identifier) && sameNode(first, param->name_node) ? fn.cls : TSNode{};
  }

  // The class of `self.<attr>` in `cls`: every `self.<attr> = value` in its methods (and its
  // same-file bases') must build the same same-file class; `torch.compile(...)` wrappers of it
  // are ignored. Null when any assignment is unknown.
  TSNode attributeClass(TSNode cls, std::string_view attr, int depth) const {
    std::string key = std::to_string(reinterpret_cast<uintptr_t>(cls.id)) + "." + std::string(attr);
    if (auto it = attribute_class_.find(key); it != attribute_class_.end()) return it->second;
    attribute_class_[key] = TSNode{};  // in progress: cycles resolve to unknown
    TSNode found{};
    bool unknown = false, any = false;
    std::vector<TSNode> classes{cls};
    forEachBase(cls, [&](TSNode base) { classes.push_back(base); });
    for (TSNode c : classes) {
      for (const auto& [name, index] : methodsOf(c)) {
        for (const auto& [object, stored_attr, value] : scanned(index).attribute_stores) {
          if (stored_attr != attr) continue;
          const Binding* b = bindingFor(object);
          if (b == nullptr || b->kind != BindingKind::Parameter || ts_node_is_null(selfClass(b))) continue;
          TSNode v = unparenthesize(value);
          if (isKind(v, kind::call)) {
            TSNode callee = unparenthesize(fieldOf(v, "function"));
            if (isCompileName(callee, model_.qualifiedName(callee))) continue;
          }
          any = true;
          TSNode vc = instanceClass(v, depth + 1);
          if (ts_node_is_null(vc) || (!ts_node_is_null(found) && !sameNode(found, vc))) unknown = true;
          else found = vc;
        }
      }
    }
    TSNode result = any && !unknown ? found : TSNode{};
    attribute_class_[key] = result;
    return result;
  }

  // The same-file function a callee expression names: `helper`, `self.helper`, `Cls.method`,
  // `obj.method` for an instance of a same-file class, `super().method`. -1 if none.
  int functionOf(TSNode expr, int depth = 0) const {
    expr = unparenthesize(expr);
    if (depth > kMaxDepth) return -1;
    if (isKind(expr, kind::identifier)) {
      const Binding* b = bindingFor(expr);
      if (b == nullptr) return -1;
      const auto& all = *model_.bindingsOf(*b->scope, b->name);
      if (b->kind == BindingKind::Assignment && !ts_node_is_null(b->value) && all.size() == 1) {
        TSNode v = unparenthesize(b->value);
        if (isKind(v, kind::identifier) || isKind(v, kind::attribute)) return functionOf(v, depth + 1);  // `step = train_step`
        return -1;
      }
      // One def, and no other value for the name than wrappers of it (`f = torch.compile(f)`).
      int fn = -1;
      for (const Binding* c : all) {
        if (wrapsItself(c)) continue;
        if (c->kind != BindingKind::Function) return -1;
        int index = functionIndexIfDef(c->statement);
        if (index < 0 || (fn >= 0 && fn != index)) return -1;
        fn = index;
      }
      return fn;
    }
    if (!isKind(expr, kind::attribute)) return -1;
    std::string_view name = textOf(fieldOf(expr, "attribute"), source_);
    TSNode object = unparenthesize(fieldOf(expr, "object"));
    if (TSNode cls = classNamed(object); !ts_node_is_null(cls)) return methodOf(cls, name);
    if (isKind(object, kind::call) && ts_node_named_child_count(fieldOf(object, "arguments")) == 0) {
      TSNode callee = unparenthesize(fieldOf(object, "function"));
      if (isKind(callee, kind::identifier) && textOf(callee, source_) == "super" &&
          model_.resolve("super", callee) == nullptr) {
        int method = enclosingFunction(object);
        if (method < 0 || ts_node_is_null(functions_[method].cls)) return -1;
        return methodOf(functions_[method].cls, name, /*skip_own=*/true);
      }
    }
    TSNode cls = instanceClass(object, depth + 1);
    return ts_node_is_null(cls) ? -1 : methodOf(cls, name);
  }

  // What calling (or compiling) `expr` runs: a same-file function, or the `forward` (else
  // `__call__`) of a same-file class instance. -1 if unknown.
  int runTarget(TSNode expr) const {
    int fn = functionOf(expr);
    if (fn >= 0) return fn;
    TSNode cls = instanceClass(expr);
    if (ts_node_is_null(cls)) return -1;
    int forward = methodOf(cls, "forward");
    return forward >= 0 ? forward : methodOf(cls, "__call__");
  }

  // ---- Pass 2: roots and disabled functions. ----
  void findRoots() {
    for (int i : decorated_) {
      FunctionInfo& fn = functions_[i];
      for (TSNode decorator : fn.decorators) {
        TSNode callee = isKind(decorator, kind::call) ? unparenthesize(fieldOf(decorator, "function")) : decorator;
        auto q = model_.qualifiedName(callee);
        if (q ? isDynamoDisable(*q) || (!q->starts_with("torch.") && namesDynamoDisable(*q))
              : namesDynamoDisable(textOf(callee, source_)))
          fn.disabled = true;
      }
    }
    // Call forms first mark what they disable: `helper = torch.compiler.disable(helper)`.
    std::vector<std::pair<int, TSNode>> roots;
    for (TSNode call : site_calls_) {
      TSNode callee = unparenthesize(fieldOf(call, "function"));
      TSNode target{};
      if (isKind(callee, kind::call)) {
        // `torch.compile(mode="max-autotune")(fn)`, `torch._dynamo.optimize("eager")(fn)`,
        // `functools.partial(torch.compile, mode=...)(fn)`
        TSNode inner = unparenthesize(fieldOf(callee, "function"));
        auto qi = model_.qualifiedName(inner);
        if (qi && isDynamoOptimize(*qi)) {
          if (!disablesItself(callee, source_)) target = targetArgument(call, {}, source_);
        } else if (isPartialOfCompile(callee)) {
          target = targetArgument(call, {}, source_);
        } else {
          if (!isCompileName(inner, qi) || disablesItself(callee, source_)) continue;
          if (ts_node_is_null(targetArgument(callee, "model", source_))) target = targetArgument(call, {}, source_);
        }
      } else if (namesPartialOfCompile(callee)) {
        target = targetArgument(call, {}, source_);  // `compiler(fn)` for `compiler = partial(torch.compile)`
      } else {
        auto q = model_.qualifiedName(callee);
        if (q && isDynamoDisable(*q)) {
          int fn = runTarget(targetArgument(call, "fn", source_));
          if (fn >= 0) functions_[fn].disabled = true;
          continue;
        }
        if (!isCompileName(callee, q) || disablesItself(call, source_)) continue;
        target = targetArgument(call, q && isTorchCompile(*q) ? "model" : "", source_);
      }
      if (ts_node_is_null(target)) continue;  // a decorator factory: `@torch.compile(mode=...)`
      if (resultDiscarded(call)) continue;
      int fn = runTarget(target);
      if (fn >= 0) roots.emplace_back(fn, call);
      else noteParameterCompile(target, call);
    }
    addHelperCallRoots(roots);
    for (int i : decorated_) {
      for (TSNode decorator : functions_[i].decorators) {
        TSNode callee = isKind(decorator, kind::call) ? unparenthesize(fieldOf(decorator, "function")) : decorator;
        if (isKind(decorator, kind::call) && (disablesItself(decorator, source_) || isKind(callee, kind::call))) continue;
        auto q = model_.qualifiedName(callee);
        // `@torch._dynamo.optimize("eager")`, `@partial(torch.compile, mode=...)`, `@compiler`.
        bool factory = isKind(decorator, kind::call) && ((q && isDynamoOptimize(*q)) || isPartialOfCompile(decorator));
        if (factory || namesPartialOfCompile(decorator) || isCompileName(callee, q)) {
          addCompiled(i, decorator, nullptr);
          break;
        }
      }
    }
    for (auto& [fn, site] : roots) addCompiled(fn, site, nullptr);
  }

  // `def maybe_compile(m): return torch.compile(m)`: a top-level function that compiles its
  // parameter compiles what each call of it in the file passes there.
  struct ParameterCompile {
    int function = -1;
    int position = -1;  // -1: keyword-only
    std::string_view name;
  };
  std::vector<ParameterCompile> parameter_compiles_;

  void noteParameterCompile(TSNode target, TSNode call) {
    target = unparenthesize(target);
    if (!isKind(target, kind::identifier)) return;
    const Binding* b = bindingFor(target);
    if (b == nullptr || b->kind != BindingKind::Parameter) return;
    int owner = functionIndexIfDef(b->statement);
    if (owner < 0 || enclosingFunction(call) != owner || !ts_node_is_null(functions_[owner].cls)) return;
    int position = 0, found = -1;
    bool keyword_only = false;
    forEachNamedChild(fieldOf(functions_[owner].def, "parameters"), [&](TSNode param) {
      analysis::NodeKind kind = kindOf(param);
      TSNode id{};
      if (kind == kind::identifier) id = param;
      else if (kind == kind::default_parameter || kind == kind::typed_default_parameter) id = fieldOf(param, "name");
      else if (kind == kind::typed_parameter) id = ts_node_named_child(param, 0);
      else if (kind == kind::list_splat_pattern || kind == kind::keyword_separator || kind == kind::dictionary_splat_pattern) keyword_only = true;
      if (isKind(id, kind::identifier) && sameNode(id, b->name_node)) found = keyword_only ? -1 : position;
      if (isKind(id, kind::identifier)) ++position;
    });
    parameter_compiles_.push_back({owner, found, b->name});
  }

  // The calls of those functions (found by their name's whole-word occurrences, not a walk).
  void addHelperCallRoots(std::vector<std::pair<int, TSNode>>& roots) {
    for (const ParameterCompile& pc : parameter_compiles_) {
      std::string_view name = functions_[pc.function].name;
      forEachWholeWord(source_, name, [&](size_t at) {
        TSNode node = ts_node_descendant_for_byte_range(model_.file().root(), static_cast<uint32_t>(at),
                                                        static_cast<uint32_t>(at + name.size()));
        TSNode call = ts_node_parent(node);
        if (!isKind(node, kind::identifier) || !isKind(call, kind::call) || !sameNode(fieldOf(call, "function"), node)) return false;
        if (functionOf(node) != pc.function) return false;
        TSNode arg{};
        int position = 0;
        forEachNamedChild(fieldOf(call, "arguments"), [&](TSNode a) {
          if (isKind(a, kind::keyword_argument)) {
            if (textOf(fieldOf(a, "name"), source_) == pc.name) arg = fieldOf(a, "value");
          } else if (!isKind(a, kind::comment) && !isKind(a, kind::list_splat) && !isKind(a, kind::dictionary_splat)) {
            if (position++ == pc.position && pc.position >= 0) arg = a;
          }
        });
        if (ts_node_is_null(arg) || resultDiscarded(call)) return false;
        int fn = runTarget(arg);
        if (fn >= 0) roots.emplace_back(fn, call);
        return false;
      });
    }
  }

  // Functions other files compile: top-level functions and methods of top-level classes, by name.
  void addExternalRoots(const ProjectFacts& project) {
    // Top-level defs and the defs directly in top-level classes' bodies, in source order.
    std::vector<int> top_level;
    auto definition = [](TSNode node) { return isKind(node, kind::decorated_definition) ? fieldOf(node, "definition") : node; };
    forEachNamedChild(model_.file().root(), [&](TSNode child) {
      TSNode def = definition(child);
      if (isKind(def, kind::function_definition)) {
        top_level.push_back(functionIndex(def));
      } else if (isKind(def, kind::class_definition) && isKind(fieldOf(def, "body"), kind::block)) {
        forEachNamedChild(fieldOf(def, "body"), [&](TSNode member) {
          TSNode method = definition(member);
          if (isKind(method, kind::function_definition)) top_level.push_back(functionIndex(method));
        });
      }
    });
    for (const ExternalCompileRoot& external : project.compiled) {
      for (int i : top_level) {
        const FunctionInfo& info = functions_[i];
        std::string name(info.name);
        if (!ts_node_is_null(info.cls)) name = std::string(textOf(fieldOf(info.cls, "name"), source_)) + "." + name;
        if (name != external.function) continue;
        if (!out_.by_def_.count(info.def.id)) {
          addCompiled(i, fieldOf(info.def, "name"), nullptr);
          if (out_.by_def_.count(info.def.id)) out_.compiled_.back()->external = &external;
        }
        break;
      }
    }
  }

  void addCompiled(int index, TSNode site, const Function* caller) {
    FunctionInfo& info = functions_[index];
    if (info.disabled || out_.by_def_.count(info.def.id)) return;
    auto fn = std::make_unique<Function>();
    fn->def = info.def;
    fn->name = info.name;
    fn->display_name = std::string(info.name);
    if (!ts_node_is_null(info.cls))
      fn->display_name = std::string(textOf(fieldOf(info.cls, "name"), source_)) + "." + fn->display_name;
    fn->site = site;
    fn->caller = caller;
    fn->root = caller != nullptr ? caller->root : fn.get();
    out_.by_def_[info.def.id] = fn.get();
    queue_.emplace_back(index, fn.get());
    out_.compiled_.push_back(std::move(fn));
  }

  // ---- Pass 3: grow the region along direct calls, breadth first. ----
  void grow() {
    while (!queue_.empty()) {
      auto [index, fn] = queue_.front();
      queue_.pop_front();
      for (TSNode call : scanned(index).calls) {
        int target = runTarget(fieldOf(call, "function"));
        if (target >= 0 && target != index) addCompiled(target, call, fn);
      }
    }
  }

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

CompiledRegions::CompiledRegions(const SemanticModel& model, std::vector<std::string> extra_decorators,
                                 std::shared_ptr<const ProjectFacts> project)
    : model_(model), extra_decorators_(std::move(extra_decorators)), project_(std::move(project)) {
  Builder(*this).run();
}

CompiledRegions::~CompiledRegions() = default;

// Every root is reached through an identifier spelled `compile` (`torch.compile`, `from torch
// import compile as c`, `torch.compiler.compile`) or spelled as a configured decorator's last
// segment. When no such identifier occurs (the word in comments and strings does not count),
// the file compiles nothing.
bool CompiledRegions::mayCompileAnything(const ParsedFile& file, const std::vector<std::string>& extra_decorators) {
  std::string_view source = file.text();
  std::vector<std::string_view> words{"compile", "optimize"};
  for (const auto& extra : extra_decorators) words.push_back(lastSegment(extra));
  for (std::string_view word : words) {
    if (word.empty()) continue;
    bool named = forEachWholeWord(source, word, [&](size_t at) {
      auto start = static_cast<uint32_t>(at), end = static_cast<uint32_t>(at + word.size());
      TSNode node = ts_node_descendant_for_byte_range(file.root(), start, end);
      return isKind(node, kind::identifier) && startOf(node) == start && endOf(node) == end;
    });
    if (named) return true;
  }
  return false;
}

namespace {

// Can this occurrence of `compile` / `optimize` (a whole word of `code`, at `at`) be part of a
// name that resolves to torch's? `X.compile` cannot when `X` is a bare name other than `torch`,
// `compiler`, `_dynamo` or `eval_frame` that nothing rebinds (`re.compile`: only the module `re`);
// a bare `compile(...)` call reads a binding whose own occurrence is looked at.
bool mayNameCompilerAt(std::string_view code, size_t at, size_t size) {
  Receiver receiver = receiverOf(code, at);
  if (receiver.kind == Receiver::Kind::None) {
    size_t after = skipSpaceForward(code, at + size);
    return after >= code.size() || code[after] != '(';
  }
  if (receiver.kind == Receiver::Kind::Unresolved) return false;
  if (receiver.kind == Receiver::Kind::Other) return true;
  // `from torch import compiler` binds `torch.compiler`: these names are taken as torch's.
  std::string_view object = receiver.name;
  if (object == "torch" || object == "compiler" || object == "_dynamo" || object == "eval_frame") return true;
  return mayBeRebound(code, object);
}

}  // namespace

bool CompiledRegions::mayCompileAnythingInCode(const PrefilterText& source, std::span<const std::string_view> words,
                                               const std::vector<std::string>& extra_decorators) {
  // A configured decorator spelled `compile` is named as it is configured, not as torch's.
  bool configured = std::any_of(extra_decorators.begin(), extra_decorators.end(), [](const std::string& extra) {
    return lastSegment(extra) == "compile" || lastSegment(extra) == "optimize";
  });
  const std::string* code = source.code();
  if (code == nullptr) return true;
  for (std::string_view word : words) {
    if (word.empty()) continue;
    bool torchs = !configured && (word == "compile" || word == "optimize");
    if (forEachWholeWord(*code, word, [&](size_t at) { return !torchs || mayNameCompilerAt(*code, at, word.size()); }))
      return true;
  }
  return false;
}

const CompiledRegions& CompiledRegions::of(const SemanticModel& model,
                                           const std::vector<std::string>& extra_decorators,
                                           const std::shared_ptr<const ProjectFacts>& project) {
  // One slot per model; several decorator sets are possible in principle (never in one lint
  // run), so the slot keeps a short list.
  struct Slot {
    mutable std::mutex mutex;
    mutable std::vector<std::unique_ptr<CompiledRegions>> built;
  };
  static const char kTag = 0;
  const Slot& slot = model.perFileAnalysis<Slot>(&kTag, [] { return std::make_shared<const Slot>(); });
  std::lock_guard<std::mutex> lock(slot.mutex);
  for (const auto& regions : slot.built)
    if (regions->extra_decorators_ == extra_decorators && regions->project_ == project) return *regions;
  slot.built.push_back(std::make_unique<CompiledRegions>(model, extra_decorators, project));
  return *slot.built.back();
}

namespace {

// +1: `condition` is true while compiling (`is_compiling()`), -1: false while compiling
// (`not is_compiling()`), 0: neither.
int compilingPolarity(const SemanticModel& model, TSNode condition) {
  condition = unparenthesize(condition);
  int polarity = 1;
  while (isKind(condition, kind::not_operator)) {
    polarity = -polarity;
    condition = unparenthesize(fieldOf(condition, "argument"));
  }
  if (!isKind(condition, kind::call)) return 0;
  auto q = model.qualifiedName(fieldOf(condition, "function"));
  return q && isCompilingPredicate(*q) ? polarity : 0;
}

// Does a block always leave the enclosing code (its last statement returns or raises)?
bool leaves(TSNode block) {
  uint32_t count = ts_node_named_child_count(block);
  for (uint32_t i = count; i-- > 0;) {
    TSNode last = ts_node_named_child(block, i);
    if (isKind(last, kind::comment)) continue;
    return isKind(last, kind::return_statement) || isKind(last, kind::raise_statement);
  }
  return false;
}

}  // namespace

bool CompiledRegions::isSkippedWhileCompiling(TSNode node) const {
  TSNode child = node;
  for (TSNode cur = ts_node_parent(node); !ts_node_is_null(cur); child = cur, cur = ts_node_parent(cur)) {
    analysis::NodeKind kind = kindOf(cur);
    if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::lambda) return false;
    if (kind == kind::if_statement || kind == kind::elif_clause) {
      int polarity = compilingPolarity(model_, fieldOf(cur, "condition"));
      TSNode consequence = fieldOf(cur, "consequence");
      if (polarity < 0 && sameNode(child, consequence)) return true;
      if (polarity > 0 && !sameNode(child, consequence) && !isKind(child, kind::comment) &&
          !sameNode(child, fieldOf(cur, "condition")))
        return true;  // an `elif` or `else` after `if is_compiling():`
    } else if (kind == kind::conditional_expression && ts_node_named_child_count(cur) == 3) {
      // `a if cond else b`
      int polarity = compilingPolarity(model_, ts_node_named_child(cur, 1));
      if (polarity < 0 && sameNode(child, ts_node_named_child(cur, 0))) return true;
      if (polarity > 0 && sameNode(child, ts_node_named_child(cur, 2))) return true;
    } else if (kind == kind::block || kind == kind::module) {
      // `if is_compiling(): return ...` earlier in the same block.
      int budget = 512;  // statements looked at per block: bounded on generated code
      for (TSNode prev = ts_node_prev_named_sibling(child); !ts_node_is_null(prev) && budget-- > 0;
           prev = ts_node_prev_named_sibling(prev)) {
        if (isKind(prev, kind::if_statement) && compilingPolarity(model_, fieldOf(prev, "condition")) > 0 &&
            leaves(fieldOf(prev, "consequence")))
          return true;
      }
    }
  }
  return false;
}

const CompiledRegions::Function* CompiledRegions::functionAt(TSNode node) const {
  if (compiled_.empty()) return nullptr;
  for (const Scope* scope = &model_.scopeAt(node); scope != nullptr; scope = scope->parent) {
    if (scope->kind == Scope::Kind::Class || scope->kind == Scope::Kind::Module) return nullptr;
    if (scope->kind != Scope::Kind::Function) continue;  // lambdas, comprehensions
    if (!contains(fieldOf(scope->node, "body"), node)) continue;  // a default value or annotation
    auto it = by_def_.find(scope->node.id);
    return it == by_def_.end() ? nullptr : it->second;
  }
  return nullptr;
}

}  // namespace ptlint::analysis
