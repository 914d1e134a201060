// The value-flow layer on attributes and subscripts: `self.<attr>` across the methods of a
// class, instances of the file's classes and dataclasses, argparse options read as
// `args.<dest>`, dict literals indexed by a fixed key, and the per-file index they read.
#include <algorithm>
#include <iterator>
#include <memory>
#include <string>

#include "analysis/syntax.h"
#include "analysis/value_flow_impl.h"

namespace ptlint::analysis::flow_detail {

const FileIndex& Flow::index() {
  std::lock_guard lock(cache_.mutex);
  if (!cache_.index) cache_.index = buildIndex();
  return *cache_.index;
}

std::unique_ptr<FileIndex> Flow::buildIndex() {
  auto index = std::make_unique<FileIndex>();
  walkTree(
      model_.file().root(),
      [&](TSNode node) {
        analysis::NodeKind kind = kindOf(node);
        if (kind == kind::string || kind == kind::comment) return false;
        if (kind == kind::assignment || kind == kind::augmented_assignment) {
          std::vector<TSNode> targets{fieldOf(node, "left")};
          for (size_t i = 0; i < targets.size() && i < 64; ++i) {
            TSNode t = unparenthesize(targets[i]);
            analysis::NodeKind tk = kindOf(t);
            if (tk == kind::attribute) {
              index->attribute_sites[std::string(model_.text(fieldOf(t, "attribute")))].push_back({t, node});
            } else if (tk == kind::subscript) {
              TSNode object = unparenthesize(fieldOf(t, "value"));
              if (isKind(object, kind::identifier))
                index->subscript_sites[std::string(model_.text(object))].push_back({t, node});
            } else if (tk == kind::pattern_list || tk == kind::tuple_pattern || tk == kind::list_pattern || tk == kind::tuple ||
                       tk == kind::list) {
              forEachNamedChild(t, [&](TSNode child) { targets.push_back(child); });
            }
          }
        } else if (kind == kind::call) {
          TSNode function = fieldOf(node, "function");
          if (isKind(function, kind::identifier)) {
            if (model_.text(function) == "setattr") index->has_setattr = true;
            auto& calls = index->calls[std::string(model_.text(function))];
            if (calls.size() < 64) calls.push_back(node);
          }
          if (isKind(function, kind::attribute)) {
            std::string_view method = model_.text(fieldOf(function, "attribute"));
            TSNode object = unparenthesize(fieldOf(function, "object"));
            if (method == "add_argument") {
              if (auto dest = optionDestination(node)) index->options[*dest].push_back(node);
            } else if (method == "set_defaults") {
              forEachNamedChild(fieldOf(node, "arguments"), [&](TSNode arg) {
                if (isKind(arg, kind::keyword_argument))
                  index->options[std::string(model_.text(fieldOf(arg, "name")))].push_back(node);
              });
            } else if ((method == "update" || method == "setdefault" || method == "pop" || method == "clear" ||
                        method == "__setitem__") &&
                       isKind(object, kind::identifier)) {
              ++index->mutating_calls[std::string(model_.text(object))];
            }
          }
        }
        return true;
      },
      [](TSNode) {});
  return index;
}

std::optional<std::string> Flow::optionDestination(TSNode call) {
  if (auto dest = literalString(keyword(call, "dest", source_), source_)) return dest;
  std::optional<std::string> first_long, plain;
  for (TSNode arg : positional(call)) {
    auto text = literalString(arg, source_);
    if (!text) return std::nullopt;
    if (text->starts_with("--") && !first_long) first_long = text->substr(2);
    else if (!text->starts_with("-") && !plain) plain = *text;
  }
  std::optional<std::string> name = first_long ? first_long : plain;
  if (name) std::replace(name->begin(), name->end(), '-', '_');
  return name;
}

TSNode Flow::enclosingMethod(TSNode node) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (isKind(up, kind::function_definition)) {
      if (ts_node_is_null(classOfMethod(up))) return {};
      TSNode decorated = ts_node_parent(up);
      if (isKind(decorated, kind::decorated_definition)) {
        bool is_static = false;
        forEachNamedChild(decorated, [&](TSNode d) {
          if (isKind(d, kind::decorator) && model_.text(ts_node_named_child(d, 0)) == "staticmethod") is_static = true;
        });
        if (is_static) return {};
      }
      return up;
    }
    if (isKind(up, kind::class_definition) || isKind(up, kind::lambda)) return {};
  }
  return {};
}

ValueSet Flow::attributeValues(TSNode attr, int depth) {
  TSNode object = unparenthesize(fieldOf(attr, "object"));
  std::string_view name = model_.text(fieldOf(attr, "attribute"));
  if (isKind(object, kind::identifier)) {
    const Binding* b = model_.resolve(model_.text(object), object);
    if (b != nullptr && b->kind == BindingKind::Parameter) {
      TSNode method = enclosingMethod(attr);
      TSNode self = ts_node_is_null(method) ? TSNode{} : firstParameterNode(method);
      if (!ts_node_is_null(self) && sameNode(self, b->name_node))
        return selfAttributeValues(classOfMethod(method), name, attr, method, depth);
      // A parameter named for parsed options read as `args.<dest>` in a file that declares that
      // option: its default and choices, and whatever else a caller passes.
      if (isOptionsName(model_.text(object))) {
        if (auto options = optionValues(name, depth)) {
          options->unknown = true;
          return *options;
        }
      }
      return leaf(attr);
    }
  }
  if (model_.qualifiedName(attr)) return leaf(attr);  // `torch.bfloat16`, a module member
  ValueSet objects = values(object, depth + 1);
  if (objects.unknown || objects.values.empty()) return leaf(attr);
  ValueSet out;
  for (const FlowValue& v : objects.values) {
    if (v.kind != FlowValue::Kind::Expression || !isKind(v.node, kind::call)) return leaf(attr);
    TSNode call = v.node;
    TSNode function = unparenthesize(fieldOf(call, "function"));
    if (isKind(function, kind::attribute) && model_.text(fieldOf(function, "attribute")) == "parse_args") {
      auto options = optionValues(name, depth);
      if (!options) return leaf(attr);
      add(out, *options);
      continue;
    }
    TSNode cls = classOfCall(call);
    if (ts_node_is_null(cls)) return leaf(attr);
    ValueSet fields = instanceAttributeValues(cls, call, name, depth);
    if (fields.unknown && fields.values.empty()) return leaf(attr);
    add(out, fields);
  }
  return out;
}

bool Flow::isOptionsName(std::string_view name) {
  for (std::string_view n : {"args", "opt", "opts", "options", "flags", "hparams", "cmd_args", "parsed_args"})
    if (n == name) return true;
  return false;
}

TSNode Flow::classOfCall(TSNode call) {
  TSNode function = unparenthesize(fieldOf(call, "function"));
  if (!isKind(function, kind::identifier)) return {};
  const Binding* b = model_.resolve(model_.text(function), function);
  if (b == nullptr || b->kind != BindingKind::Class) return {};
  const auto* all = model_.bindingsOf(*b->scope, b->name);
  if (all == nullptr || all->size() != 1) return {};
  return b->statement;
}

std::optional<ValueSet> Flow::optionValues(std::string_view dest, int depth) {
  const FileIndex& idx = index();
  auto it = idx.options.find(std::string(dest));
  if (it == idx.options.end()) return std::nullopt;
  ValueSet out;
  if (it->second.size() > kMaxSites) return unknown();
  for (TSNode call : it->second) {
    bool is_default = model_.text(fieldOf(fieldOf(call, "function"), "attribute")) == "set_defaults";
    TSNode value = keyword(call, is_default ? dest : "default", source_);
    if (ts_node_is_null(value)) {
      if (!is_default) out.unknown = true;  // None, or the `store_true` / `store_false` flag
    } else {
      add(out, values(value, depth + 1));
    }
    if (is_default) continue;
    TSNode choices = unparenthesize(keyword(call, "choices", source_));
    if (isKind(choices, kind::list) || isKind(choices, kind::tuple) || isKind(choices, kind::set)) {
      forEachNamedChild(choices, [&](TSNode c) {
        if (!isKind(c, kind::comment)) addValue(out, {FlowValue::Kind::Expression, c});
      });
    } else {
      out.unknown = true;  // the command line may give any other value
    }
  }
  return out;
}

bool Flow::isDataclass(const SemanticModel& model, TSNode cls) {
  TSNode decorated = ts_node_parent(cls);
  if (!isKind(decorated, kind::decorated_definition)) return false;
  bool found = false;
  forEachNamedChild(decorated, [&](TSNode d) {
    if (!isKind(d, kind::decorator)) return;
    TSNode expr = ts_node_named_child(d, 0);
    if (isKind(expr, kind::call)) expr = fieldOf(expr, "function");
    auto name = model.qualifiedName(expr);
    found = found || (name && *name == "dataclasses.dataclass");
  });
  return found;
}

ValueSet Flow::instanceAttributeValues(TSNode cls, TSNode call, std::string_view name, int depth) {
  if (!isDataclass(model_, cls)) return selfAttributeValues(cls, name, TSNode{}, TSNode{}, depth);
  ValueSet out;
  TSNode given = keyword(call, name, source_);
  if (!ts_node_is_null(given)) return values(given, depth + 1);
  if (hasSplat(call)) return unknown();
  auto args = positional(call);
  size_t index = 0;
  TSNode found_default{};
  bool found = false;
  forEachNamedChild(fieldOf(cls, "body"), [&](TSNode statement) {
    if (found || !isKind(statement, kind::expression_statement)) return;
    TSNode assignment = ts_node_named_child(statement, 0);
    if (!isKind(assignment, kind::assignment) || ts_node_is_null(fieldOf(assignment, "type"))) return;
    TSNode left = fieldOf(assignment, "left");
    if (!isKind(left, kind::identifier)) return;
    if (model_.text(left) == name) {
      found = true;
      found_default = fieldOf(assignment, "right");
      return;
    }
    ++index;
  });
  if (!found) return unknown();
  if (index < args.size()) return values(args[index], depth + 1);
  if (ts_node_is_null(found_default)) return unknown();
  TSNode value = unparenthesize(found_default);
  if (isKind(value, kind::call)) {
    auto callee = model_.calleeName(value);
    if (callee && *callee == "dataclasses.field") {
      TSNode d = keyword(value, "default", source_);
      return ts_node_is_null(d) ? unknown() : values(d, depth + 1);
    }
  }
  add(out, values(value, depth + 1));
  // `cfg.name = ...` elsewhere in the file changes it.
  if (hasAttributeSites(name)) out.unknown = true;
  return out;
}

bool Flow::hasAttributeSites(std::string_view name) {
  const FileIndex& idx = index();
  return idx.attribute_sites.count(std::string(name)) > 0;
}

ValueSet Flow::selfAttributeValues(TSNode cls, std::string_view name, TSNode use, TSNode use_method, int depth) {
  const FileIndex& idx = index();
  if (idx.has_setattr) return unknown();
  std::vector<Site> method_sites, class_sites;
  ValueSet out;
  auto it = idx.attribute_sites.find(std::string(name));
  if (it != idx.attribute_sites.end()) {
    if (it->second.size() > 4 * kMaxSites) return unknown();
    for (const Site& site : it->second) {
      if (!contains(cls, site.target)) continue;
      TSNode object = unparenthesize(fieldOf(site.target, "object"));
      TSNode method = enclosingMethod(site.target);
      if (ts_node_is_null(method) || !sameNode(classOfMethod(method), cls)) continue;
      TSNode self = firstParameterNode(method);
      if (ts_node_is_null(self) || !isKind(object, kind::identifier) || model_.text(object) != model_.text(self)) continue;
      class_sites.push_back(site);
      if (!ts_node_is_null(use_method) && sameNode(method, use_method)) method_sites.push_back(site);
    }
  }
  // A class-level default and a property of that name.
  forEachNamedChild(fieldOf(cls, "body"), [&](TSNode statement) {
    if (isKind(statement, kind::expression_statement)) {
      TSNode assignment = ts_node_named_child(statement, 0);
      if (isKind(assignment, kind::assignment) && isKind(fieldOf(assignment, "left"), kind::identifier) &&
          model_.text(fieldOf(assignment, "left")) == name) {
        TSNode right = fieldOf(assignment, "right");
        if (ts_node_is_null(right)) out.unknown = true;
        else add(out, values(right, depth + 1));
      }
    } else if (isKind(statement, kind::decorated_definition) || isKind(statement, kind::function_definition)) {
      TSNode def = isKind(statement, kind::decorated_definition) ? fieldOf(statement, "definition") : statement;
      if (isKind(def, kind::function_definition) && model_.text(fieldOf(def, "name")) == name) {
        if (isKind(statement, kind::decorated_definition) &&
            model_.text(ts_node_named_child(ts_node_named_child(statement, 0), 0)) == "property") {
          add(out, returns(def, depth + 1));
        } else {
          addValue(out, {FlowValue::Kind::Expression, fieldOf(def, "name")});  // a bound method
        }
      }
    }
  });
  std::vector<Site> chosen = class_sites;
  if (!method_sites.empty() && !ts_node_is_null(use)) {
    std::vector<size_t> reaching = reachingSites(method_sites, use, use_method);
    bool dominated = false;
    for (size_t i : reaching) dominated = dominated || dominates(method_sites[i], startOf(use));
    if (dominated) {
      chosen.clear();
      for (size_t i : reaching) chosen.push_back(method_sites[i]);
      out = ValueSet{};
    }
  }
  if (chosen.empty() && out.values.empty()) return unknown();
  for (const Site& site : chosen) {
    if (isKind(site.statement, kind::augmented_assignment)) {
      out.unknown = true;
      continue;
    }
    add(out, siteValues(site, depth));
  }
  return out;
}

ValueSet Flow::subscriptValues(TSNode subscript, int depth) {
  TSNode key_node = fieldOf(subscript, "subscript");
  if (ts_node_is_null(key_node) || !ts_node_is_null(ts_node_next_named_sibling(key_node))) return leaf(subscript);
  ValueSet keys = values(key_node, depth + 1);
  std::vector<std::string> key_texts;
  if (!keys.all([&](const FlowValue& v) {
        auto text = v.kind == FlowValue::Kind::Expression ? literalString(v.node, source_) : std::nullopt;
        if (text) key_texts.push_back(*text);
        return text.has_value();
      }))
    return leaf(subscript);
  TSNode object = unparenthesize(fieldOf(subscript, "value"));
  ValueSet dicts = values(object, depth + 1);
  if (!dicts.all([](const FlowValue& v) { return v.kind == FlowValue::Kind::Expression && isKind(v.node, kind::dictionary); }))
    return leaf(subscript);
  ValueSet out;
  for (const FlowValue& dict : dicts.values) {
    for (const std::string& key : key_texts) {
      int matches = 0;
      forEachNamedChild(dict.node, [&](TSNode pair) {
        if (isKind(pair, kind::dictionary_splat)) out.unknown = true;
        if (!isKind(pair, kind::pair)) return;
        auto text = literalString(fieldOf(pair, "key"), source_);
        if (!text) out.unknown = true;
        else if (*text == key) {
          ++matches;
          add(out, values(fieldOf(pair, "value"), depth + 1));
        }
      });
      if (matches == 0) out.unknown = true;
    }
  }
  // `cfg["dtype"] = ...` or `cfg.update(...)` elsewhere in the file.
  if (isKind(object, kind::identifier)) {
    const FileIndex& idx = index();
    std::string name(model_.text(object));
    if (idx.mutating_calls.count(name)) out.unknown = true;
    if (auto it = idx.subscript_sites.find(name); it != idx.subscript_sites.end()) {
      if (it->second.size() > kMaxSites) return unknown();
      for (const Site& site : it->second) {
        auto text = literalString(fieldOf(site.target, "subscript"), source_);
        if (!text || isKind(site.statement, kind::augmented_assignment) ||
            !sameNode(unparenthesize(fieldOf(site.statement, "left")), site.target)) {
          out.unknown = true;
        } else if (std::find(key_texts.begin(), key_texts.end(), *text) != key_texts.end()) {
          add(out, values(fieldOf(site.statement, "right"), depth + 1));
        }
      }
    }
  }
  return out;
}

}  // namespace ptlint::analysis::flow_detail
