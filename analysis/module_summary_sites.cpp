// The sites a module summary records (module_summarizer.h): compile calls and decorators,
// compiler aliases (`compiler = partial(torch.compile)`), compiles that capture scalar outputs,
// and writes of indexed environment variables.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "analysis/compiled_regions.h"
#include "analysis/environment_writes.h"
#include "analysis/module_summarizer.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {

bool ModuleSummarizer::isCompileCall(TSNode call) const {
  TSNode callee = unparenthesize(fieldOf(call, "function"));
  auto q = model_.qualifiedName(callee);
  return q && isTorchCompile(*q);
}

bool ModuleSummarizer::callsUnknownValue(TSNode ident) const {
  const Binding* b = model_.resolve(textOf(ident, source_), ident);
  if (b == nullptr) return false;  // a builtin
  if (b->kind == BindingKind::Parameter || b->kind == BindingKind::Other) return true;
  if (b->kind != BindingKind::Assignment) return false;
  if (b->scope != &model_.moduleScope()) return true;
  TSNode v = unparenthesize(b->value);
  return !(isKind(v, kind::call) && (isCompileCall(v) || compiledValueIsKnown(v)));
}

void ModuleSummarizer::noteCompileSite(TSNode call, TSNode callee, const Def* d) {
  TSNode name = isKind(callee, kind::attribute) ? fieldOf(callee, "attribute") : callee;
  if (!isKind(name, kind::identifier) || textOf(name, source_) != "compile") return;
  auto q = model_.qualifiedName(callee);
  CompileSite site;
  site.at = pos(call);
  if (q && isTorchCompile(*q)) {
    if (hasTrueKeyword(call, "disable", source_)) return;
    // A statement of its own: the compiled wrapper is thrown away, nothing runs compiled.
    TSNode up = ts_node_parent(call);
    while (isKind(up, kind::parenthesized_expression)) up = ts_node_parent(up);
    if (isKind(up, kind::expression_statement)) return;
    TSNode target = unparenthesize(firstArgument(call, "model", source_));
    if (ts_node_is_null(target)) return;
    if (std::string_view attr = selfAttribute(target, d); !attr.empty()) {
      site.kind = CompileSite::Kind::SelfAttr;
      site.owner = out_.classes[d->index].name;
      site.attr = std::string(attr);
    } else if (std::vector<NameRef> classes; instanceClasses(target, 0, classes)) {
      site.kind = CompileSite::Kind::Instance;
      for (auto& cls : classes) {
        site.target = std::move(cls);
        out_.compile_sites.push_back(site);
      }
      return;
    } else if (auto fn = nameRef(target)) {
      site.kind = CompileSite::Kind::Function;
      site.target = std::move(*fn);
    } else if (auto wrapped = compiledInPlace(target)) {
      site.kind = CompileSite::Kind::Function;  // `global step; step = torch.compile(step)`
      site.target = std::move(*wrapped);
    } else if (initParameter(target, d, site.attr, site.parameter_index)) {
      // `self.model = torch.compile(model)` in `__init__`: what the constructor is given.
      site.kind = CompileSite::Kind::Parameter;
      site.owner = out_.classes[d->index].name;
    } else if (functionParameter(target, d, site.attr, site.parameter_index)) {
      site.kind = CompileSite::Kind::FunctionParameter;  // `def maybe_compile(m): return torch.compile(m)`
      site.owner = out_.functions[d->index].name;
    } else if (d != nullptr && !ts_node_is_null(d->cls) && parameterOf(target, d, site.attr, site.parameter_index)) {
      // `def maybe_compile(self, m)`: what the class's own `self.maybe_compile(x)` pass
      // (noteMethodHelperCalls); a caller elsewhere stays unknown.
      method_helpers_.push_back({d, site.attr, site.parameter_index});
      out_.unknown_compile_sites.push_back(site.at);
      return;
    } else {
      if (!compiledValueIsKnown(target)) out_.unknown_compile_sites.push_back(site.at);
      return;
    }
  } else if (!q && isKind(callee, kind::attribute)) {
    // `model.compile()`: nn.Module.compile compiles the module's forward in place.
    site.method = true;
    TSNode object = fieldOf(callee, "object");
    if (std::string_view attr = selfAttribute(object, d); !attr.empty()) {
      site.kind = CompileSite::Kind::SelfAttr;
      site.owner = out_.classes[d->index].name;
      site.attr = std::string(attr);
    } else if (std::vector<NameRef> classes; instanceClasses(object, 0, classes)) {
      site.kind = CompileSite::Kind::Instance;
      for (auto& cls : classes) {
        site.target = std::move(cls);
        out_.compile_sites.push_back(site);
      }
      return;
    } else if (initParameter(object, d, site.attr, site.parameter_index)) {
      site.kind = CompileSite::Kind::Parameter;
      site.owner = out_.classes[d->index].name;
    } else if (functionParameter(object, d, site.attr, site.parameter_index)) {
      site.kind = CompileSite::Kind::FunctionParameter;  // `def compile_model(m): m.compile()`
      site.owner = out_.functions[d->index].name;
    } else if (std::string looped = isKind(object, kind::identifier) ? loopOverSelfAttribute(object, d) : std::string{};
               !looped.empty() && looped.find('.') == std::string::npos) {
      // `for block in self.blocks: block.compile()`: each element of the container.
      site.kind = CompileSite::Kind::SelfAttr;
      site.owner = out_.classes[d->index].name;
      site.attr = std::move(looped);
    } else if (TSNode over = isKind(object, kind::identifier) ? loopIterable(object) : TSNode{};
               isKind(over, kind::attribute) && instanceClasses(fieldOf(over, "object"), 0, classes_of_owner_)) {
      // `for block in model.blocks: block.compile()`: the elements of a model's container.
      site.kind = CompileSite::Kind::InstanceAttr;
      site.attr = std::string(textOf(fieldOf(over, "attribute"), source_));
      std::vector<NameRef> owners = std::move(classes_of_owner_);
      classes_of_owner_.clear();
      for (auto& cls : owners) {
        site.target = std::move(cls);
        out_.compile_sites.push_back(site);
      }
      return;
    } else if (std::vector<NameRef> narrowed; isinstanceClasses(object, narrowed)) {
      // `for m in model.modules(): if isinstance(m, Block): m.compile()`: the classes tested.
      classes_of_owner_.clear();
      site.kind = CompileSite::Kind::Instance;
      for (auto& cls : narrowed) {
        site.target = std::move(cls);
        out_.compile_sites.push_back(site);
      }
      return;
    } else {
      classes_of_owner_.clear();
      out_.unknown_compile_sites.push_back(site.at);
      return;
    }
  } else {
    return;
  }
  out_.compile_sites.push_back(std::move(site));
}

bool ModuleSummarizer::isinstanceClasses(TSNode object, std::vector<NameRef>& out) const {
  if (!isKind(object, kind::identifier)) return false;
  std::string_view name = textOf(object, source_);
  const Binding* binding = model_.resolve(name, object);
  // The test of an `if` whose body holds the call: `isinstance(m, C)` or `isinstance(m, (C, D))`,
  // alone, in an `and`, or `or`-ed with another such test.
  auto tested = [&](TSNode test, auto& self) -> bool {
    test = unparenthesize(test);
    if (isKind(test, kind::boolean_operator)) {
      // `isinstance(m, A) and m.training`: A. `isinstance(m, A) or isinstance(m, B)`: both.
      bool both = textOf(fieldOf(test, "operator"), source_) == "or";
      size_t before = out.size();
      bool left = self(fieldOf(test, "left"), self);
      if (!both && left) return true;
      bool right = self(fieldOf(test, "right"), self);
      if (both && !(left && right)) out.resize(before);
      return both ? left && right : right;
    }
    if (!isKind(test, kind::call)) return false;
    TSNode callee = fieldOf(test, "function");
    if (!isKind(callee, kind::identifier) || textOf(callee, source_) != "isinstance" ||
        model_.resolve("isinstance", callee) != nullptr)
      return false;
    TSNode args = fieldOf(test, "arguments");
    if (ts_node_named_child_count(args) != 2) return false;
    TSNode subject = ts_node_named_child(args, 0), classes = unparenthesize(ts_node_named_child(args, 1));
    if (!isKind(subject, kind::identifier) || textOf(subject, source_) != name ||
        model_.resolve(name, subject) != binding)
      return false;
    std::vector<NameRef> found;
    bool all = true;
    auto add = [&](TSNode cls) {
      auto ref = isKind(cls, kind::identifier) || isKind(cls, kind::attribute) ? nameRef(cls) : std::nullopt;
      if (ref) found.push_back(std::move(*ref));
      else all = false;
    };
    if (isKind(classes, kind::tuple)) forEachNamedChild(classes, add);
    else add(classes);
    if (!all || found.empty()) return false;
    for (auto& ref : found) out.push_back(std::move(ref));
    return true;
  };
  TSNode child = object;
  for (TSNode up = ts_node_parent(object); !ts_node_is_null(up); child = up, up = ts_node_parent(up)) {
    analysis::NodeKind kind = kindOf(up);
    if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::lambda) break;
    if (kind == kind::if_statement && sameNode(fieldOf(up, "consequence"), child) &&
        tested(fieldOf(up, "condition"), tested))
      return true;
  }
  return false;
}

std::optional<NameRef> ModuleSummarizer::compiledInPlace(TSNode target) const {
  target = unparenthesize(target);
  if (!isKind(target, kind::identifier)) return std::nullopt;
  std::string_view name = textOf(target, source_);
  const auto* all = model_.bindingsOf(model_.moduleScope(), name);
  if (all == nullptr) return std::nullopt;
  int defs = 0;
  for (const Binding* b : *all) {
    if (b->kind == BindingKind::Function) {
      ++defs;
      continue;
    }
    TSNode v = b->kind == BindingKind::Assignment ? unparenthesize(b->value) : TSNode{};
    if (ts_node_is_null(v) || !isKind(v, kind::call) || !isCompileCall(v)) return std::nullopt;
    TSNode first = unparenthesize(firstArgument(v, "model", source_));
    if (!isKind(first, kind::identifier) || textOf(first, source_) != name) return std::nullopt;
  }
  // The name must mean the module's binding where it is compiled (a local of that name does not).
  const Binding* here = model_.resolve(name, target);
  if (defs != 1 || here == nullptr || here->scope != &model_.moduleScope()) return std::nullopt;
  return NameRef{NameRef::Kind::Local, std::string(name)};
}

bool ModuleSummarizer::compiledValueIsKnown(TSNode target) const {
  target = unparenthesize(target);
  if (auto q = model_.qualifiedName(target)) return q->starts_with("torch.");
  if (isKind(target, kind::identifier)) {
    // `flex_attention = torch.compile(flex_attention)`: the name is torch's function, or what
    // compiling it gave.
    const Binding* b = model_.resolve(textOf(target, source_), target);
    const auto* all = b != nullptr ? model_.bindingsOf(*b->scope, b->name) : nullptr;
    if (all == nullptr) return false;
    for (const Binding* c : *all) {
      if (c->kind == BindingKind::Import && c->qualified_name.starts_with("torch.")) continue;
      TSNode v = c->kind == BindingKind::Assignment ? unparenthesize(c->value) : TSNode{};
      if (!ts_node_is_null(v) && isKind(v, kind::call) && isCompileCall(v)) continue;
      return false;
    }
    return true;
  }
  if (isKind(target, kind::call)) {
    auto q = model_.qualifiedName(unparenthesize(fieldOf(target, "function")));
    if (q && *q == "functools.partial") {
      auto inner = model_.qualifiedName(unparenthesize(firstArgument(target, "func", source_)));
      return inner && inner->starts_with("torch.");
    }
  }
  return false;
}

void ModuleSummarizer::noteDecoratorSites(const Def& d) {
  TSNode holder = ts_node_parent(d.def);
  if (!isKind(holder, kind::decorated_definition)) return;
  forEachNamedChild(holder, [&](TSNode child) {
    if (!isKind(child, kind::decorator) || ts_node_named_child_count(child) == 0) return;
    TSNode expr = unparenthesize(ts_node_named_child(child, 0));
    if (isKind(expr, kind::call) && hasTrueKeyword(expr, "disable", source_)) return;
    TSNode callee = isKind(expr, kind::call) ? unparenthesize(fieldOf(expr, "function")) : expr;
    auto q = model_.qualifiedName(callee);
    if (!q || !isTorchCompile(*q)) return;
    CompileSite site;
    site.kind = CompileSite::Kind::Function;
    std::string name(textOf(fieldOf(d.def, "name"), source_));
    site.target = {NameRef::Kind::Local, ts_node_is_null(d.cls) ? name : out_.classes[d.index].name + "." + name};
    site.at = pos(expr);
    out_.compile_sites.push_back(std::move(site));
  });
}

void ModuleSummarizer::noteCaptureFlag(TSNode assignment) {
  TSNode left = unparenthesize(fieldOf(assignment, "left"));
  if (!isKind(left, kind::attribute) || textOf(fieldOf(left, "attribute"), source_) != "capture_scalar_outputs" ||
      !isKind(unparenthesize(fieldOf(assignment, "right")), kind::true_))
    return;
  auto q = model_.qualifiedName(left);
  if (!q || !q->starts_with("torch.")) return;
  TSNode statement = ts_node_parent(assignment);
  if (!isKind(statement, kind::expression_statement)) return;
  TSNode holder = ts_node_parent(statement);
  if (isKind(holder, kind::block)) {
    TSNode test = ts_node_parent(holder);
    if (!isKind(test, kind::if_statement) || !isKind(ts_node_parent(test), kind::module)) return;
    std::string_view condition = textOf(fieldOf(test, "condition"), source_);
    if (condition != "__name__ == \"__main__\"" && condition != "__name__ == '__main__'") return;
  } else if (!isKind(holder, kind::module)) {
    return;
  }
  out_.captures_scalars = true;
}

void ModuleSummarizer::noteCompilerAlias(TSNode assignment) {
  TSNode left = unparenthesize(fieldOf(assignment, "left"));
  TSNode right = unparenthesize(fieldOf(assignment, "right"));
  if (!isKind(left, kind::identifier) || !isKind(right, kind::call)) return;
  const auto* all = model_.bindingsOf(model_.moduleScope(), textOf(left, source_));
  if (all == nullptr || all->size() != 1 || hasTrueKeyword(right, "disable", source_)) return;
  auto q = model_.qualifiedName(unparenthesize(fieldOf(right, "function")));
  if (!q) return;
  bool compiler = isDynamoOptimize(*q);
  if (*q == "functools.partial") {
    auto inner = model_.qualifiedName(unparenthesize(firstArgument(right, "func", source_)));
    compiler = inner && isTorchCompile(*inner);
  }
  if (!compiler) return;
  CompileSite site;
  site.kind = CompileSite::Kind::FunctionParameter;
  site.owner = std::string(textOf(left, source_));
  site.parameter_index = 0;
  site.at = pos(right);
  out_.compile_sites.push_back(std::move(site));
}

void ModuleSummarizer::noteEnvironment(TSNode call, TSNode callee) {
  if (!isKind(callee, kind::attribute)) return;
  std::string_view method = textOf(fieldOf(callee, "attribute"), source_);
  if (method != "setdefault" && method != "putenv" && method != "update") return;
  auto q = model_.qualifiedName(callee);
  if (!q) return;
  if (*q == "os.environ.update") {
    // `os.environ.update({"X": "1"})`, `os.environ.update(X="1")`.
    TSNode args = fieldOf(call, "arguments");
    if (!isKind(args, kind::argument_list)) return;
    forEachNamedChild(args, [&](TSNode arg) {
      if (isKind(arg, kind::keyword_argument)) {
        out_.environment.emplace_back(textOf(fieldOf(arg, "name"), source_));
      } else if (isKind(unparenthesize(arg), kind::dictionary)) {
        forEachNamedChild(unparenthesize(arg), [&](TSNode pair) {
          if (!isKind(pair, kind::pair)) return;
          if (auto key = stringLiteral(fieldOf(pair, "key"), source_)) out_.environment.push_back(*key);
        });
      }
    });
    return;
  }
  if (*q != "os.environ.setdefault" && *q != "os.putenv") return;
  if (auto key = stringLiteral(firstArgument(call, {}, source_), source_)) out_.environment.push_back(*key);
}

}  // namespace ptlint::analysis
