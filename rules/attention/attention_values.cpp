// PTL601's value reasoning: numbers, class members and parameters that a scale or a size is
// bound to, and whether it provably is a Python number (attention_matcher.h).
#include "rules/attention/attention_matcher.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/syntax.h"
#include "rules/helpers.h"

namespace ptlint::rules::hand_rolled {

bool isIntValue(TSNode node, std::string_view source, long long& out) {
  node = unparenthesize(node);
  bool negative = false;
  if (isKind(node, kind::unary_operator) && analysis::textOf(fieldOf(node, "operator"), source) == "-") {
    negative = true;
    node = unparenthesize(fieldOf(node, "argument"));
  }
  auto value = integerLiteral(node, source);
  if (!value) return false;
  out = negative ? -*value : *value;
  return true;
}

std::optional<double> numberValue(TSNode node, std::string_view source) {
  node = unparenthesize(node);
  bool negative = false;
  if (isKind(node, kind::unary_operator) && analysis::textOf(fieldOf(node, "operator"), source) == "-") {
    negative = true;
    node = unparenthesize(fieldOf(node, "argument"));
  }
  if (!isKind(node, kind::integer) && !isKind(node, kind::float_)) return std::nullopt;
  std::string text(analysis::textOf(node, source));
  std::erase(text, '_');
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return negative ? -value : value;
}

std::string argumentText(TSNode node, std::string_view source) {
  std::string text(analysis::textOf(node, source));
  analysis::NodeKind kind = kindOf(unparenthesize(node));
  if (kind == kind::conditional_expression || kind == kind::lambda) return "(" + text + ")";
  return text;
}

bool isAtomic(TSNode node) {
  analysis::NodeKind kind = kindOf(node);
  return kind == kind::identifier || kind == kind::attribute || kind == kind::subscript || kind == kind::call ||
         kind == kind::parenthesized_expression || kind == kind::integer || kind == kind::float_;
}

namespace {

// What each class of a file assigns to `<object>.<attr>` and registers as a buffer, by class and
// first-parameter name, walked once per file and class: classMember is asked for every
// `self.<attr>` a candidate reads, and a walk of the class per question made PTL601 a tenth of a
// `--select ALL` run on attention-heavy code. Built from the tree alone; the one question for the
// semantic model (is a `register_buffer` callee an import?) is asked by the reader.
class ClassMembers {
 public:
  struct Binding {
    TSNode value{};
    TSNode buffer_callee{};  // the `x.register_buffer` of a buffer; null for an assignment
  };
  using Members = std::unordered_map<std::string_view, std::vector<Binding>>;

  explicit ClassMembers(std::string_view source) : source_(source) {}

  const Members& of(TSNode cls, std::string_view object) const {
    std::lock_guard lock(mutex_);
    auto key = std::make_pair(ts_node_start_byte(cls), std::string(object));
    if (auto it = classes_.find(key); it != classes_.end()) return it->second;
    Members& members = classes_[key];
    auto text = [&](TSNode node) { return analysis::textOf(node, source_); };
    analysis::walkTree(
        fieldOf(cls, "body"),
        [&](TSNode node) {
          if (isKind(node, kind::class_definition) || isKind(node, kind::lambda)) return false;
          if (isKind(node, kind::assignment)) {
            TSNode left = fieldOf(node, "left");
            if (isKind(left, kind::attribute) && isKind(fieldOf(left, "object"), kind::identifier) &&
                text(fieldOf(left, "object")) == object)
              members[text(fieldOf(left, "attribute"))].push_back({fieldOf(node, "right"), {}});
          } else if (isKind(node, kind::call)) {
            TSNode function = fieldOf(node, "function");
            if (!isKind(function, kind::attribute) || text(fieldOf(function, "attribute")) != "register_buffer")
              return true;
            auto args = positionalArguments(node);
            if (args.size() >= 2 && isKind(args[0], kind::string)) {
              std::string_view name = text(args[0]);
              if (name.size() >= 2) members[name.substr(1, name.size() - 2)].push_back({args[1], function});
            }
          }
          return true;
        },
        [](TSNode) {});
    return members;
  }

 private:
  std::string_view source_;
  mutable std::mutex mutex_;
  // std::map: a reference handed out stays valid while other classes are added.
  mutable std::map<std::pair<uint32_t, std::string>, Members> classes_;
};

}  // namespace

TSNode Matcher::classMember(TSNode attribute) const {
  if (!isKind(attribute, kind::attribute)) return {};
  TSNode object = unparenthesize(fieldOf(attribute, "object"));
  if (!isKind(object, kind::identifier)) return {};
  TSNode function = attention::enclosingFunctionOrModule(attribute);
  if (!isKind(function, kind::function_definition)) return {};
  TSNode params = fieldOf(function, "parameters");
  TSNode first = ts_node_named_child_count(params) > 0 ? ts_node_named_child(params, 0) : TSNode{};
  if (!isKind(first, kind::identifier) || text(first) != text(object)) return {};
  TSNode cls = ts_node_parent(function);
  if (isKind(cls, kind::decorated_definition)) cls = ts_node_parent(cls);
  if (isKind(cls, kind::block)) cls = ts_node_parent(cls);
  if (!isKind(cls, kind::class_definition)) return {};
  static const char kClassMembersKey = 0;
  const analysis::ParsedFile& file = ctx_.file();
  const ClassMembers& table = file.treeAnalysis<ClassMembers>(
      &kClassMembersKey, [&] { return std::make_shared<const ClassMembers>(file.text()); });
  const ClassMembers::Members& members = table.of(cls, text(object));
  auto it = members.find(text(fieldOf(attribute, "attribute")));
  if (it == members.end()) return {};
  TSNode found{};
  int count = 0;
  for (const ClassMembers::Binding& b : it->second) {
    // A buffer counts when its `register_buffer` is a method call, not an imported function.
    if (!ts_node_is_null(b.buffer_callee) && ctx_.model().qualifiedName(b.buffer_callee)) continue;
    found = b.value;
    ++count;
  }
  return count == 1 ? unparenthesize(found) : TSNode{};
}

bool Matcher::parameterOf(TSNode function, std::string_view name, std::string_view source, TSNode& value,
                        TSNode& type) {
  if (!isKind(function, kind::function_definition)) return false;
  TSNode params = fieldOf(function, "parameters");
  bool found = false;
  analysis::forEachNamedChild(params, [&](TSNode param) {
    if (found) return;
    TSNode id{};
    if (isKind(param, kind::identifier)) id = param;
    else if (isKind(param, kind::default_parameter) || isKind(param, kind::typed_default_parameter)) id = fieldOf(param, "name");
    else if (isKind(param, kind::typed_parameter) && ts_node_named_child_count(param) > 0) id = ts_node_named_child(param, 0);
    if (!isKind(id, kind::identifier) || analysis::textOf(id, source) != name) return;
    found = true;
    value = fieldOf(param, "value");
    type = fieldOf(param, "type");
  });
  return found;
}

bool Matcher::numericAnnotation(TSNode type, bool allow_none) const {
  if (ts_node_is_null(type)) return false;
  bool numeric = false, other = false;
  analysis::walkTree(
      type,
      [&](TSNode n) {
        if (!isKind(n, kind::identifier) && !isKind(n, kind::none)) return true;
        std::string_view t = text(n);
        if (t == "int" || t == "float") numeric = true;
        else if (!(allow_none && (t == "None" || t == "Optional" || t == "Union"))) other = true;
        return false;
      },
      [](TSNode) {});
  return numeric && !other;
}

bool Matcher::provablyNumber(TSNode expr, const FunctionFlow& flow, int depth) const {
  if (depth > 10 || ts_node_is_null(expr)) return false;
  expr = unparenthesize(expr);
  analysis::NodeKind kind = kindOf(expr);
  if (kind == kind::integer || kind == kind::float_) return true;
  if (kind == kind::unary_operator) return provablyNumber(fieldOf(expr, "argument"), flow, depth + 1);
  if (kind == kind::binary_operator) {
    std::string_view op = text(fieldOf(expr, "operator"));
    if (op != "+" && op != "-" && op != "*" && op != "/" && op != "//" && op != "**" && op != "%") return false;
    return provablyNumber(fieldOf(expr, "left"), flow, depth + 1) && provablyNumber(fieldOf(expr, "right"), flow, depth + 1);
  }
  if (kind == kind::conditional_expression) {
    // `a if c else b`: both branches.
    return ts_node_named_child_count(expr) == 3 && provablyNumber(ts_node_named_child(expr, 0), flow, depth + 1) &&
           provablyNumber(ts_node_named_child(expr, 2), flow, depth + 1);
  }
  if (kind == kind::boolean_operator) {
    // `qk_scale or head_dim ** -0.5`, with `qk_scale` a parameter that defaults to None.
    if (text(fieldOf(expr, "operator")) != "or") return false;
    TSNode left = unparenthesize(fieldOf(expr, "left"));
    if (!provablyNumber(fieldOf(expr, "right"), flow, depth + 1)) return false;
    if (provablyNumber(left, flow, depth + 1)) return true;
    TSNode value{}, type{};
    if (isKind(left, kind::identifier) && flow.reaching(text(left), startOf(left)) == nullptr &&
        parameterOf(flow.owner(), text(left), source_, value, type)) {
      bool none_default = isKind(unparenthesize(value), kind::none);
      return none_default && (ts_node_is_null(type) || numericAnnotation(type, true));
    }
    return false;
  }
  if (kind == kind::subscript) {
    // `x.shape[-1]`
    TSNode value = fieldOf(expr, "value");
    long long i = 0;
    return isKind(value, kind::attribute) && text(fieldOf(value, "attribute")) == "shape" &&
           isIntValue(fieldOf(expr, "subscript"), source_, i);
  }
  if (kind == kind::call) {
    if (!plainCall(expr)) return false;
    auto args = positionalArguments(expr);
    std::string name = callee(expr);
    if (name.starts_with("math.")) return true;  // math functions return floats (or raise)
    if (name == "numpy.sqrt" || name == "numpy.log") return args.size() == 1 && provablyNumber(args[0], flow, depth + 1);
    TSNode function = fieldOf(expr, "function");
    if (isKind(function, kind::identifier) && ctx_.model().resolve(text(function), function) == nullptr) {
      std::string_view builtin = text(function);
      if (builtin == "int" || builtin == "float" || builtin == "len") return true;
      if (builtin == "abs" || builtin == "round") return args.size() >= 1 && provablyNumber(args[0], flow, depth + 1);
      if (builtin == "max" || builtin == "min") {
        if (args.size() < 2) return false;
        for (TSNode a : args)
          if (!provablyNumber(a, flow, depth + 1)) return false;
        return true;
      }
    }
    TSNode object{};
    long long i = 0;
    if (tensorMethod(expr, &object) == "size" && args.size() == 1 && isIntValue(args[0], source_, i)) return true;
    return false;
  }
  if (kind == kind::attribute) {
    TSNode built = classMember(expr);
    if (ts_node_is_null(built)) return false;
    TSNode owner = attention::enclosingFunctionOrModule(built);
    if (!isKind(owner, kind::function_definition)) return false;
    FunctionFlow member_flow(owner, source_);
    return provablyNumber(built, member_flow, depth + 1);
  }
  if (kind == kind::identifier) {
    const Definition* def = flow.reaching(text(expr), startOf(expr));
    if (def != nullptr) {
      if (def->kind != Definition::Kind::Assign || flow.previous(def) != nullptr) return false;
      return provablyNumber(def->value, flow, depth + 1);
    }
    TSNode value{}, type{};
    if (!parameterOf(flow.owner(), text(expr), source_, value, type)) return false;
    if (!ts_node_is_null(type)) return numericAnnotation(type, false);
    if (!ts_node_is_null(value)) return provablyNumber(value, flow, depth + 1);
    return sizedInBody(flow.owner(), text(expr));
  }
  return false;
}

bool Matcher::sizedInBody(TSNode function, std::string_view name) const {
  if (!isKind(function, kind::function_definition)) return false;
  bool sized = false;
  analysis::walkTree(
      fieldOf(function, "body"),
      [&](TSNode n) {
        if (sized || isKind(n, kind::function_definition) || isKind(n, kind::class_definition) || isKind(n, kind::lambda)) return false;
        if (!isKind(n, kind::call)) return true;
        std::string name_of = callee(n);
        static constexpr std::string_view kLayers[] = {"torch.nn.Linear", "torch.nn.Conv1d", "torch.nn.Conv2d",
                                                       "torch.nn.Conv3d", "torch.nn.LayerNorm", "torch.nn.Embedding"};
        if (std::find(std::begin(kLayers), std::end(kLayers), name_of) == std::end(kLayers)) return true;
        for (TSNode a : positionalArguments(n)) {
          TSNode arg = unparenthesize(a);
          // the name itself, or one operand of `dim * 3` / `dim // heads`
          while (isKind(arg, kind::binary_operator) && !isKind(unparenthesize(fieldOf(arg, "left")), kind::identifier))
            arg = unparenthesize(fieldOf(arg, "left"));
          if (isKind(arg, kind::binary_operator)) {
            std::string_view op = text(fieldOf(arg, "operator"));
            if (op == "*" || op == "//" || op == "+" || op == "-") {
              if (text(unparenthesize(fieldOf(arg, "left"))) == name || text(unparenthesize(fieldOf(arg, "right"))) == name)
                sized = true;
            }
          } else if (isKind(arg, kind::identifier) && text(arg) == name) {
            sized = true;
          }
        }
        return true;
      },
      [](TSNode) {});
  return sized;
}

bool Matcher::foldable(TSNode expr, const FunctionFlow& flow, int depth) const {
  if (depth > 8 || ts_node_is_null(expr)) return false;
  expr = unparenthesize(expr);
  if (provablyNumber(expr, flow)) return true;
  if (isKind(expr, kind::attribute)) {
    TSNode built = classMember(expr);
    if (ts_node_is_null(built)) return false;
    TSNode owner = attention::enclosingFunctionOrModule(built);
    if (!isKind(owner, kind::function_definition)) return false;
    FunctionFlow member_flow(owner, source_);
    return foldable(built, member_flow, depth + 1);
  }
  if (isKind(expr, kind::identifier)) {
    const Definition* def = flow.reaching(text(expr), startOf(expr));
    if (def == nullptr || def->kind != Definition::Kind::Assign || flow.previous(def) != nullptr) return false;
    return foldable(def->value, flow, depth + 1);
  }
  if (isKind(expr, kind::binary_operator)) {
    std::string_view op = text(fieldOf(expr, "operator"));
    if (op != "*" && op != "/") return false;
    TSNode l = fieldOf(expr, "left"), r = fieldOf(expr, "right");
    return (foldable(l, flow, depth + 1) && provablyNumber(r, flow)) ||
           (op == "*" && provablyNumber(l, flow) && foldable(r, flow, depth + 1));
  }
  // `**factory_kwargs` (dtype, device) never changes a shape; `*sizes` hides it.
  if (!isKind(expr, kind::call) || hasStarArguments(expr)) return false;
  std::string name = callee(expr);
  auto args = positionalArguments(expr);
  if (name == "torch.nn.Parameter" || name == "torch.nn.parameter.Parameter")
    return !args.empty() && foldable(args[0], flow, depth + 1);
  if (name == "torch.tensor") return args.size() == 1 && provablyNumber(args[0], flow);
  if (name == "torch.clamp" || name == "torch.exp" || name == "torch.log" || name == "torch.sigmoid")
    return !args.empty() && foldable(args[0], flow, depth + 1);
  if (name == "torch.ones" || name == "torch.zeros" || name == "torch.full" || name == "torch.rand" ||
      name == "torch.randn" || name == "torch.empty") {
    std::vector<TSNode> sizes = args;
    if (name == "torch.full") {
      if (args.size() != 2) return false;
      sizes = {args[0]};
    }
    if (sizes.size() == 1 && (isKind(sizes[0], kind::tuple) || isKind(sizes[0], kind::list))) {
      TSNode seq = sizes[0];
      sizes.clear();
      analysis::forEachNamedChild(seq, [&](TSNode c) { sizes.push_back(c); });
    }
    if (sizes.empty()) return true;  // 0-d
    long long last = 0;
    return isIntValue(sizes.back(), source_, last) && last == 1;
  }
  TSNode object{};
  std::string_view method = tensorMethod(expr, &object);
  if ((method == "reshape" || method == "view") && !hasStarArguments(expr)) {
    // `self.logit_scale.reshape(1, heads, 1, 1)`: whatever it holds, its last axis has size 1.
    auto sizes = positionalArguments(expr);
    if (sizes.size() == 1 && (isKind(sizes[0], kind::tuple) || isKind(sizes[0], kind::list))) {
      TSNode seq = sizes[0];
      sizes.clear();
      analysis::forEachNamedChild(seq, [&](TSNode c) { sizes.push_back(c); });
    }
    long long last = 0;
    return sizes.size() >= 2 && isIntValue(sizes.back(), source_, last) && last == 1;
  }
  if (method == "exp" || method == "clamp" || method == "clamp_max" || method == "clamp_min" || method == "sigmoid" ||
      method == "abs" || method == "sqrt" || method == "rsqrt" || method == "reciprocal")
    return foldable(object, flow, depth + 1);
  return false;
}

bool Matcher::scaleLike(TSNode node) const {
  node = unparenthesize(node);
  if (numberValue(node, source_)) return true;
  if (isKind(node, kind::binary_operator)) {
    std::string_view op = text(fieldOf(node, "operator"));
    return op == "**" || (op == "/" && numberValue(fieldOf(node, "left"), source_));
  }
  if (isKind(node, kind::call)) {
    std::string name = callee(node);
    return name == "math.sqrt" || name == "numpy.sqrt" || name == "math.pow";
  }
  std::string_view name = text(isKind(node, kind::attribute) ? fieldOf(node, "attribute") : node);
  if (!isKind(node, kind::attribute) && !isKind(node, kind::identifier)) return false;
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("scal") != std::string::npos;
}

TSNode Matcher::boundValue(TSNode node) const {
  node = unparenthesize(node);
  if (!isKind(node, kind::identifier)) return node;
  const Definition* def = flow_.reaching(text(node), startOf(node));
  if (def == nullptr || def->kind != Definition::Kind::Assign) return {};
  return unparenthesize(def->value);
}

}  // namespace ptlint::rules::hand_rolled
