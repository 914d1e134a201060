#include "analysis/tensor_values.h"

#include <array>
#include <string>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/value_resolution.h"

namespace ptlint::analysis {
namespace {

template <size_t N>
bool oneOf(std::string_view name, const std::array<std::string_view, N>& names) {
  // Linear: asked only for branch tests and conversions inside compiled code.
  for (auto n : names)
    if (n == name) return true;
  return false;
}

// `torch` functions whose result is a tensor (never a tuple, a number or a bool).
constexpr auto kTensorFunctions = std::to_array<std::string_view>({
    "torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.zeros", "torch.ones", "torch.empty",
    "torch.full", "torch.rand", "torch.randn", "torch.randint", "torch.randperm", "torch.arange",
    "torch.linspace", "torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.full_like",
    "torch.rand_like", "torch.randn_like", "torch.sum", "torch.mean", "torch.prod", "torch.amax", "torch.amin",
    "torch.norm", "torch.std", "torch.var", "torch.abs", "torch.isnan", "torch.isinf", "torch.isfinite",
    "torch.isclose", "torch.eq", "torch.ne", "torch.gt", "torch.lt", "torch.ge", "torch.le",
    "torch.logical_and", "torch.logical_or", "torch.logical_not", "torch.count_nonzero", "torch.any",
    "torch.all", "torch.where", "torch.cat", "torch.stack", "torch.matmul", "torch.mm", "torch.bmm",
    "torch.einsum", "torch.exp", "torch.log", "torch.sqrt", "torch.rsqrt", "torch.pow", "torch.square",
    "torch.sign", "torch.clamp", "torch.clip", "torch.round", "torch.floor", "torch.ceil", "torch.add",
    "torch.sub", "torch.mul", "torch.div", "torch.maximum", "torch.minimum", "torch.relu", "torch.sigmoid",
    "torch.tanh", "torch.softmax", "torch.log_softmax", "torch.cumsum", "torch.cumprod", "torch.diff",
    "torch.argmax", "torch.argmin", "torch.logsumexp", "torch.dist", "torch.cdist", "torch.outer",
    "torch.gather", "torch.masked_select", "torch.flatten", "torch.reshape", "torch.linalg.norm",
    "torch.linalg.vector_norm", "torch.nn.functional.relu", "torch.nn.functional.gelu",
    "torch.nn.functional.silu", "torch.nn.functional.sigmoid", "torch.nn.functional.softmax",
    "torch.nn.functional.log_softmax", "torch.nn.functional.linear", "torch.nn.functional.normalize",
    "torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss", "torch.nn.functional.mse_loss",
    "torch.nn.functional.l1_loss", "torch.nn.functional.smooth_l1_loss",
    "torch.nn.functional.binary_cross_entropy", "torch.nn.functional.binary_cross_entropy_with_logits",
    "torch.nn.functional.kl_div", "torch.nn.functional.cosine_similarity", "torch.nn.functional.one_hot",
    "torch.nn.functional.pad", "torch.nn.functional.interpolate", "torch.nn.functional.dropout",
    "torch.nn.functional.layer_norm", "torch.nn.functional.embedding",
    "torch.nn.functional.scaled_dot_product_attention"});

// Reductions whose receiver needs no proof: only tensors (and NumPy arrays, which Dynamo traces
// as tensors) have these methods, so `x.sum() > 0` of an unannotated parameter `x` is a read of
// a tensor's value all the same. Python numbers, lists and dicts have none of them.
constexpr auto kReductionMethods = std::to_array<std::string_view>(
    {"sum", "mean", "prod", "amax", "amin", "norm", "std", "var", "any", "all", "count_nonzero", "logsumexp"});

// `torch` functions that return a tensor when given no `dim` (`torch.max(x)`; with a dimension they
// return a (values, indices) pair).
constexpr std::array<std::string_view, 4> kWholeReductions{"torch.max", "torch.min", "torch.median",
                                                           "torch.mode"};

// Tensor methods whose result is a tensor.
constexpr std::array<std::string_view, 52> kTensorMethods{
    "sum", "mean", "prod", "amax", "amin", "norm", "std", "var", "abs", "any", "all", "count_nonzero",
    "float", "double", "half", "bfloat16", "int", "long", "bool", "clone", "detach", "to", "cuda", "cpu",
    "exp", "log", "sqrt", "pow", "square", "sign", "isnan", "isinf", "isfinite", "logical_not", "argmax",
    "argmin", "squeeze", "unsqueeze", "view", "reshape", "flatten", "contiguous", "neg", "clamp", "eq",
    "ne", "gt", "lt", "ge", "le", "type_as", "logsumexp"};
// With no argument (`x.max()`): with a dimension they return a (values, indices) pair.
constexpr std::array<std::string_view, 3> kWholeMethods{"max", "min", "median"};

// `<`, `>`, `==`, ... only: `is`, `in` and their negations give a Python bool.
bool comparesValues(TSNode comparison, std::string_view source) {
  bool values = true;
  uint32_t count = ts_node_child_count(comparison);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_child(comparison, i);
    if (ts_node_is_named(child)) continue;
    std::string_view op = textOf(child, source);
    values = values && (op == "<" || op == ">" || op == "<=" || op == ">=" || op == "==" || op == "!=");
  }
  return values;
}

bool annotatedTensor(const SemanticModel& model, const Binding& binding) {
  TSNode parameter = ts_node_parent(binding.name_node);
  if (!isKind(parameter, kind::typed_parameter) && !isKind(parameter, kind::typed_default_parameter)) return false;
  TSNode type = fieldOf(parameter, "type");
  if (isKind(type, kind::type) && ts_node_named_child_count(type) == 1) type = ts_node_named_child(type, 0);
  return model.refersTo(type, "torch.Tensor");
}

bool isTensor(const SemanticModel& model, TSNode expr, int depth);

// Names being decided: a rebinding that reads the name itself (`x = x * 2`) keeps it a tensor
// when every other binding makes it one.
thread_local std::vector<const Binding*> deciding;

// Every binding of the name in its scope is a parameter annotated `torch.Tensor` or an
// assignment of a tensor; a `for` target, an augmented assignment or an import is not known.
bool nameIsTensor(const SemanticModel& model, TSNode name, int depth) {
  const Binding* binding = model.resolve(model.text(name), name);
  if (binding == nullptr) return false;
  const auto* all = model.bindingsOf(*binding->scope, binding->name);
  if (all == nullptr || all->empty()) return false;
  for (const Binding* d : deciding)
    if (d == all->front()) return true;
  deciding.push_back(all->front());
  bool tensor = true;
  for (const Binding* b : *all) {
    if (b->kind == BindingKind::Parameter) tensor = annotatedTensor(model, *b);
    else if (b->kind == BindingKind::Assignment && !ts_node_is_null(b->value)) tensor = isTensor(model, b->value, depth + 1);
    else tensor = false;
    if (!tensor) break;
  }
  deciding.pop_back();
  return tensor;
}

bool isTensor(const SemanticModel& model, TSNode expr, int depth) {
  if (depth > 24) return false;
  expr = unparenthesize(expr);
  std::string_view source = model.file().text();
  if (isKind(expr, kind::identifier)) {
    return nameIsTensor(model, expr, depth);
  }
  if (isKind(expr, kind::call)) {
    if (auto callee = model.calleeName(expr)) {
      if (oneOf(*callee, kTensorFunctions)) return true;
      if (oneOf(*callee, kWholeReductions)) {
        TSNode args = fieldOf(expr, "arguments");
        return isKind(args, kind::argument_list) && ts_node_named_child_count(args) == 1 &&
               !isKind(ts_node_named_child(args, 0), kind::keyword_argument);
      }
    }
    TSNode function = fieldOf(expr, "function");
    if (!isKind(function, kind::attribute)) return false;
    std::string_view method = textOf(fieldOf(function, "attribute"), source);
    bool whole = oneOf(method, kWholeMethods) && hasNoArguments(expr);
    if (oneOf(method, kReductionMethods) || whole) return true;
    return oneOf(method, kTensorMethods) && isTensor(model, fieldOf(function, "object"), depth + 1);
  }
  if (isKind(expr, kind::comparison_operator)) {
    if (!comparesValues(expr, source)) return false;
    bool any = false;
    forEachNamedChild(expr, [&](TSNode operand) { any = any || isTensor(model, operand, depth + 1); });
    return any;
  }
  if (isKind(expr, kind::binary_operator)) {
    return isTensor(model, fieldOf(expr, "left"), depth + 1) || isTensor(model, fieldOf(expr, "right"), depth + 1);
  }
  if (isKind(expr, kind::unary_operator)) return isTensor(model, fieldOf(expr, "argument"), depth + 1);
  if (isKind(expr, kind::subscript)) return isTensor(model, fieldOf(expr, "value"), depth + 1);
  return false;
}

}  // namespace

bool isProvablyTensor(const SemanticModel& model, TSNode expr) {
  return !ts_node_is_null(expr) && isTensor(model, expr, 0);
}

TSNode tensorTruthRead(const SemanticModel& model, TSNode test) {
  for (int depth = 0; depth < 32 && !ts_node_is_null(test); ++depth) {
    test = unparenthesize(test);
    if (isKind(test, kind::not_operator)) {
      test = fieldOf(test, "argument");
      continue;
    }
    if (isKind(test, kind::boolean_operator)) {
      TSNode left = tensorTruthRead(model, fieldOf(test, "left"));
      if (!ts_node_is_null(left)) return left;
      test = fieldOf(test, "right");
      continue;
    }
    if (isKind(test, kind::call)) {
      TSNode function = fieldOf(test, "function");
      TSNode args = fieldOf(test, "arguments");
      // `bool(t)`: the builtin, not a shadowing definition.
      if (isKind(function, kind::identifier) && model.text(function) == "bool" &&
          model.resolve("bool", function) == nullptr && isKind(args, kind::argument_list) &&
          ts_node_named_child_count(args) == 1 && !isKind(ts_node_named_child(args, 0), kind::keyword_argument)) {
        return isTensor(model, ts_node_named_child(args, 0), 0) ? test : TSNode{};
      }
    }
    return isTensor(model, test, 0) ? test : TSNode{};
  }
  return {};
}

}  // namespace ptlint::analysis
