// Where torch.compile's roots are in one file, and the region grown from them along direct
// calls (compiled_regions_builder.h): decorators, `torch.compile(...)` calls, helpers and
// partials that compile their argument, and the functions other files compile.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/compiled_regions_builder.h"
#include "analysis/dynamo_config.h"
#include "analysis/name_shapes.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {

namespace {

// `torch.compile(model)` as a statement of its own: the compiled wrapper it returns is thrown
// away and the model still runs eagerly (PyTorch 2.6: no frame compiled); only
// `model.compile()` compiles in place.
bool resultDiscarded(TSNode call) {
  TSNode parent = ts_node_parent(call);
  while (isKind(parent, kind::parenthesized_expression)) parent = ts_node_parent(parent);
  return isKind(parent, kind::expression_statement);
}

}  // namespace

void CompiledRegions::Builder::run() {
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

void CompiledRegions::Builder::collect() {
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
              mayTurnCaptureOn(fieldOf(node, "value"), source_) && !patchRunsNoCompiledCode(node))
            out_.captures_scalars_ = true;
        }
        return true;
      },
      [](TSNode) {});
}

std::vector<uint32_t> CompiledRegions::Builder::anchorOffsets() const {
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

bool CompiledRegions::Builder::patchRunsNoCompiledCode(TSNode keyword_argument) const {
  TSNode call = ts_node_parent(ts_node_parent(keyword_argument));
  if (!isKind(call, kind::call)) return false;
  auto callee = model_.qualifiedName(fieldOf(call, "function"));
  if (!callee || *callee != "torch._dynamo.config.patch") return false;
  // What the patch wraps: the `with` body, or the decorated function's.
  TSNode up = ts_node_parent(call), region{};
  if (isKind(up, kind::with_item)) {
    TSNode statement = ts_node_parent(ts_node_parent(up));
    if (isKind(statement, kind::with_statement)) region = fieldOf(statement, "body");
  } else if (isKind(up, kind::decorator)) {
    TSNode def = fieldOf(ts_node_parent(up), "definition");
    if (isKind(def, kind::function_definition)) region = fieldOf(def, "body");
  }
  if (ts_node_is_null(region)) return false;
  bool library_only = true;
  walkTree(
      region,
      [&](TSNode node) {
        if (!library_only) return false;
        if (!isKind(node, kind::call)) return true;
        TSNode function = unparenthesize(fieldOf(node, "function"));
        if (isKind(function, kind::identifier)) {
          // A builtin the file does not rebind (`print`); any other name may be compiled code.
          static constexpr std::string_view kBuiltins[] = {"print", "len",   "range", "str",  "repr",   "int",
                                                           "float", "bool",  "list",  "dict", "tuple",  "set",
                                                           "isinstance", "getattr", "hasattr", "type", "format", "sorted"};
          std::string_view name = model_.text(function);
          library_only = std::find(std::begin(kBuiltins), std::end(kBuiltins), name) != std::end(kBuiltins) &&
                         model_.resolve(name, function) == nullptr;
        } else {
          auto q = isKind(function, kind::attribute) ? model_.qualifiedName(function) : std::nullopt;
          library_only = q && q->starts_with("torch.") && q->find("compile") == std::string::npos &&
                         q->find("_dynamo") == std::string::npos && q->find("export") == std::string::npos &&
                         q->find("jit") == std::string::npos;
        }
        return library_only;
      },
      [](TSNode) {});
  return library_only;
}

void CompiledRegions::Builder::noteCaptureAssignment(TSNode assignment) {
  TSNode left = unparenthesize(fieldOf(assignment, "left"));
  TSNode right = fieldOf(assignment, "right");
  if (!isKind(left, kind::attribute) || ts_node_is_null(right)) return;
  std::string_view attr = textOf(fieldOf(left, "attribute"), source_);
  if (attr == "capture_scalar_outputs" && mayTurnCaptureOn(right, source_)) {
    auto q = model_.qualifiedName(left);
    if (q && q->starts_with("torch.")) out_.captures_scalars_ = true;
  }
}

void CompiledRegions::Builder::notePartialOfCompile(TSNode assignment) {
  TSNode left = unparenthesize(fieldOf(assignment, "left"));
  if (isKind(left, kind::identifier) && isPartialOfCompile(fieldOf(assignment, "right")))
    partial_names_.insert(textOf(left, source_));
}

void CompiledRegions::Builder::addPartialCalls() {
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

void CompiledRegions::Builder::noteAttributeStore(TSNode assignment, FunctionInfo& info) const {
  TSNode left = unparenthesize(fieldOf(assignment, "left"));
  TSNode right = fieldOf(assignment, "right");
  if (!isKind(left, kind::attribute) || ts_node_is_null(right)) return;
  std::string_view attr = textOf(fieldOf(left, "attribute"), source_);
  while (isKind(right, kind::assignment)) right = fieldOf(right, "right");
  TSNode object = unparenthesize(fieldOf(left, "object"));
  if (isKind(object, kind::identifier)) info.attribute_stores.emplace_back(object, attr, right);
}

void CompiledRegions::Builder::findRoots() {
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

void CompiledRegions::Builder::noteParameterCompile(TSNode target, TSNode call) {
  target = unparenthesize(target);
  if (!isKind(target, kind::identifier)) return;
  const Binding* b = bindingFor(target);
  if (b == nullptr || b->kind != BindingKind::Parameter) return;
  int owner = functionIndexIfDef(b->statement);
  if (owner < 0 || enclosingFunction(call) != owner) return;
  // A method's calls (`self.maybe_compile(self.encoder)`) pass nothing for `self` / `cls`.
  int skip = !ts_node_is_null(functions_[owner].cls) && functions_[owner].first_param_is_instance ? 1 : 0;
  int position = -skip, found = -1;
  bool keyword_only = false, instance = false;
  forEachNamedChild(fieldOf(functions_[owner].def, "parameters"), [&](TSNode param) {
    analysis::NodeKind kind = kindOf(param);
    TSNode id{};
    if (kind == kind::identifier) id = param;
    else if (kind == kind::default_parameter || kind == kind::typed_default_parameter) id = fieldOf(param, "name");
    else if (kind == kind::typed_parameter) id = ts_node_named_child(param, 0);
    else if (kind == kind::list_splat_pattern || kind == kind::keyword_separator || kind == kind::dictionary_splat_pattern) keyword_only = true;
    if (isKind(id, kind::identifier) && sameNode(id, b->name_node)) {
      found = keyword_only ? -1 : position;
      instance = position < 0;
    }
    if (isKind(id, kind::identifier)) ++position;
  });
  if (instance) return;  // `torch.compile(self)` is not a helper
  parameter_compiles_.push_back({owner, found, b->name});
}

void CompiledRegions::Builder::addHelperCallRoots(std::vector<std::pair<int, TSNode>>& roots) {
  for (const ParameterCompile& pc : parameter_compiles_) {
    std::string_view name = functions_[pc.function].name;
    forEachWholeWord(source_, name, [&](size_t at) {
      TSNode node = ts_node_descendant_for_byte_range(model_.file().root(), static_cast<uint32_t>(at),
                                                      static_cast<uint32_t>(at + name.size()));
      TSNode callee = node, call = ts_node_parent(node);
      // `obj.maybe_compile(x)`, `self.maybe_compile(x)` for a method.
      if (isKind(call, kind::attribute) && sameNode(fieldOf(call, "attribute"), node)) {
        callee = call;
        call = ts_node_parent(call);
      }
      if (!isKind(node, kind::identifier) || !isKind(call, kind::call) || !sameNode(fieldOf(call, "function"), callee)) return false;
      if (functionOf(callee) != pc.function) return false;
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

void CompiledRegions::Builder::addExternalRoots(const ProjectFacts& project) {
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

void CompiledRegions::Builder::addCompiled(int index, TSNode site, const Function* caller) {
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

void CompiledRegions::Builder::grow() {
  while (!queue_.empty()) {
    auto [index, fn] = queue_.front();
    queue_.pop_front();
    for (TSNode call : scanned(index).calls) {
      int target = runTarget(fieldOf(call, "function"));
      if (target >= 0 && target != index) addCompiled(target, call, fn);
    }
  }
}

}  // namespace ptlint::analysis
