// PTL601's matcher: the pattern traced from the ·V product back through the dropout, the
// softmax, the mask and the scale to the Q·Kᵀ product (attention_matcher.h).
#include "rules/attention/attention_matcher.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "rules/helpers.h"

namespace ptlint::rules::hand_rolled {

std::optional<Pattern> Matcher::match(TSNode final_node) {
  auto mm = asMatmul(final_node);
  if (!mm) return std::nullopt;
  Pattern p;
  p.final_node = final_node;
  if (mm->einsum) {
    auto shape = valuesEinsum(*mm->einsum);
    if (!shape) return std::nullopt;
    p.v = mm->right;
    p.v_transposed = shape->v_transposed;
    p.out_transposed = shape->out_transposed;
    if (shape->shared) p.no_fix = kSharedAcrossHeads;
    if (!traceProbs(mm->left, p, 0, /*after_softmax=*/false)) return std::nullopt;
    return p;
  }
  p.v = mm->right;
  Pattern attempt = p;
  if (traceProbs(mm->left, attempt, 0, /*after_softmax=*/false)) return attempt;
  // `v @ attn.transpose(-2, -1)`: values laid out (..., Ev, S), the output (..., Ev, L); the
  // same as `(attn @ vᵀ)ᵀ`.
  int rank = 0;
  // (`w_ = w_.permute(0, 2, 1)` on a line of its own, then `torch.bmm(v, w_)`.)
  TSNode weights = untransposed(followAssigned(mm->right, p), mm->bmm, rank);
  if (ts_node_is_null(weights)) return std::nullopt;
  weights = unparenthesize(weights);
  if (!isKind(weights, kind::identifier) && !isKind(weights, kind::call)) return std::nullopt;
  steps_ = 0;
  p.v = mm->left;
  p.v_transposed = true;
  p.out_transposed = true;
  if (!traceProbs(weights, p, 0, /*after_softmax=*/false)) return std::nullopt;
  return p;
}

std::string_view Matcher::tensorMethod(TSNode call, TSNode* object) const {
  if (!isKind(call, kind::call)) return {};
  TSNode function = fieldOf(call, "function");
  if (!isKind(function, kind::attribute)) return {};
  if (ctx_.model().qualifiedName(function)) return {};
  if (object != nullptr) *object = fieldOf(function, "object");
  return text(fieldOf(function, "attribute"));
}

std::string Matcher::callee(TSNode call) const {
  if (!isKind(call, kind::call)) return {};
  auto name = ctx_.model().calleeName(call);
  return name ? *name : std::string{};
}

TSNode Matcher::argument(TSNode call, size_t index, std::string_view keyword) const {
  return analysis::argumentFor(call, index, keyword, source_);
}

std::vector<const Definition*> Matcher::candidates(std::string_view name, uint32_t at, TSNode use) const {
  std::vector<const Definition*> out;
  const Definition* def = flow_.reaching(name, at);
  while (def != nullptr && out.size() < 4) {
    out.push_back(def);
    bool encloses = !ts_node_is_null(def->block) && analysis::contains(def->block, use);
    if (encloses) break;
    def = flow_.previous(def);
  }
  return out;
}

void Matcher::noteFollowed(Pattern& p, const Definition* def, TSNode use) const {
  p.consumed.push_back(def);
  if (ts_node_is_null(def->block) || !analysis::contains(def->block, use)) p.conditional = true;
}

TSNode Matcher::followAssigned(TSNode node, Pattern& p) const {
  node = unparenthesize(node);
  if (!isKind(node, kind::identifier)) return node;
  const Definition* def = flow_.reaching(text(node), startOf(node));
  if (def == nullptr || def->kind != Definition::Kind::Assign) return node;
  if (ts_node_is_null(def->block) || !analysis::contains(def->block, node)) return node;
  p.consumed.push_back(def);
  return unparenthesize(def->value);
}

bool Matcher::traceProbs(TSNode expr, Pattern& p, int depth, bool) {
  if (depth > kMaxDepth || !spend()) return false;
  expr = unparenthesize(expr);
  if (isKind(expr, kind::identifier)) {
    for (const Definition* def : candidates(text(expr), startOf(expr), expr)) {
      if (def->kind != Definition::Kind::Assign) return false;
      Pattern attempt = p;
      noteFollowed(attempt, def, expr);
      if (traceProbs(def->value, attempt, depth + 1, false)) {
        p = std::move(attempt);
        return true;
      }
    }
    return false;
  }
  if (!isKind(expr, kind::call) || !plainCall(expr)) return false;

  // Casts back to the input dtype after an upcast softmax.
  TSNode object{};
  std::string_view method = tensorMethod(expr, &object);
  if (method == "to" || method == "type_as" || method == "type" || method == "half" || method == "bfloat16")
    return traceProbs(object, p, depth + 1, false);

  if (TSNode input = dropoutInput(expr, p); !ts_node_is_null(input)) return traceProbs(input, p, depth + 1, false);

  TSNode scores = softmaxInput(expr, p);
  if (ts_node_is_null(scores)) return false;
  if (!traceScores(scores, p, depth + 1)) return false;
  if (!p.softmax_dim) return false;
  long long dim = *p.softmax_dim;
  return dim == -1 || (p.rank > 0 && dim == p.rank - 1);
}

TSNode Matcher::dropoutInput(TSNode call, Pattern& p) const {
  std::string name = callee(call);
  TSNode input{}, rate{}, training{};
  std::string owner;
  if (name == "torch.nn.functional.dropout") {
    input = argument(call, 0, "input");
    rate = argument(call, 1, "p");
    training = argument(call, 2, "training");
  } else if (name == "torch.dropout") {
    input = argument(call, 0, "input");
    rate = argument(call, 1, "p");
    training = argument(call, 2, "train");
    if (ts_node_is_null(training)) return {};
  } else if (name.empty()) {
    TSNode function = fieldOf(call, "function");
    TSNode built = classMember(function);
    if (!isKind(built, kind::call) || callee(built) != "torch.nn.Dropout") return {};
    auto args = positionalArguments(call);
    if (args.size() != 1) return {};
    input = args[0];
    TSNode module_rate = argument(built, 0, "p");
    std::string self(text(fieldOf(function, "object")));
    p.dropouts += 1;
    p.dropout_p = std::string(text(function)) + ".p if " + self + ".training else 0.0";
    auto literal = ts_node_is_null(module_rate) ? std::optional<double>(0.5) : numberValue(module_rate, source_);
    p.dropout_rate = literal;
    return input;
  } else {
    return {};
  }
  if (ts_node_is_null(input)) return {};
  p.dropouts += 1;
  auto literal = ts_node_is_null(rate) ? std::optional<double>(0.5) : numberValue(rate, source_);
  std::string rate_text = ts_node_is_null(rate) ? "0.5" : argumentText(rate, source_);
  if (!ts_node_is_null(training) && isFalseLiteral(training)) return input;  // never applied
  p.dropout_p_node = rate;
  p.dropout_rate = literal;
  if (ts_node_is_null(training) && name == "torch.nn.functional.dropout") p.dropout_without_training = call;
  if (ts_node_is_null(training) || isTrueLiteral(training))
    p.dropout_p = rate_text;
  else
    p.dropout_p = rate_text + " if " + argumentText(training, source_) + " else 0.0";
  return input;
}

TSNode Matcher::softmaxInput(TSNode call, Pattern& p) const {
  std::string name = callee(call);
  TSNode input{}, dim{}, dtype{};
  if (name == "torch.nn.functional.softmax" || name == "torch.softmax" || name == "torch.special.softmax") {
    input = argument(call, 0, "input");
    dim = argument(call, 1, "dim");
    dtype = keywordArgument(call, "dtype", source_);
    if (ts_node_is_null(dtype) && name != "torch.nn.functional.softmax") {
      auto args = positionalArguments(call);
      if (args.size() > 2) dtype = args[2];
    }
  } else if (!name.empty()) {
    return {};
  } else if (TSNode module = unparenthesize(fieldOf(call, "function"));
             isKind(module, kind::call) && plainCall(module) && callee(module) == "torch.nn.Softmax") {
    // `nn.Softmax(dim=-1)(x)`: the module built and called at once.
    auto args = positionalArguments(call);
    if (args.size() != 1 || !plainCall(call)) return {};
    input = args[0];
    dim = argument(module, 0, "dim");
  } else if (TSNode built = classMember(fieldOf(call, "function")); !ts_node_is_null(built)) {
    // `self.softmax(x)` with `self.softmax = nn.Softmax(dim=-1)` in the class, or
    // `self.attend = nn.Sequential(nn.Softmax(dim=-1), nn.Dropout(dropout))` (vit-pytorch).
    if (!isKind(built, kind::call) || !plainCall(built)) return {};
    auto args = positionalArguments(call);
    if (args.size() != 1 || !plainCall(call)) return {};
    TSNode softmax = built;
    if (callee(built) == "torch.nn.Sequential") {
      auto layers = positionalArguments(built);
      if (layers.empty() || layers.size() > 2 || ts_node_named_child_count(argumentList(built)) != layers.size()) return {};
      softmax = unparenthesize(layers[0]);
      if (layers.size() == 2) {
        TSNode drop = unparenthesize(layers[1]);
        if (!isKind(drop, kind::call) || !plainCall(drop) || callee(drop) != "torch.nn.Dropout") return {};
        TSNode function = fieldOf(call, "function");
        TSNode rate = argument(drop, 0, "p");
        auto literal = ts_node_is_null(rate) ? std::optional<double>(0.5) : numberValue(rate, source_);
        p.dropouts += 1;
        p.dropout_p = std::string(text(function)) + "[1].p if " + std::string(text(fieldOf(function, "object"))) +
                      ".training else 0.0";
        p.dropout_rate = literal;
      }
    }
    if (!isKind(softmax, kind::call) || callee(softmax) != "torch.nn.Softmax") return {};
    input = args[0];
    dim = argument(softmax, 0, "dim");
  } else if (TSNode object{}; tensorMethod(call, &object) == "softmax") {
    input = object;
    dim = argument(call, 0, "dim");
    dtype = argument(call, 1, "dtype");
  } else {
    return {};
  }
  long long value = 0;
  if (ts_node_is_null(input) || ts_node_is_null(dim) || !isIntValue(dim, source_, value)) return {};
  p.softmax_dim = value;
  if (!ts_node_is_null(dtype)) {
    auto q = ctx_.model().qualifiedName(dtype);
    if (!q || (*q != "torch.float32" && *q != "torch.float")) return {};
    p.upcast = true;
  }
  return input;
}

bool Matcher::traceScores(TSNode expr, Pattern& p, int depth) {
  if (depth > kMaxDepth || !spend()) return false;
  expr = unparenthesize(expr);
  if (isKind(expr, kind::identifier)) return traceScoresName(text(expr), startOf(expr), expr, p, depth + 1);

  if (qkProduct(expr, p)) return true;

  if (TSNode capped = softCapped(expr); !ts_node_is_null(capped)) {
    Pattern attempt = p;
    attempt.score_mod = "tanh soft-capping";
    if (!traceScores(capped, attempt, depth + 1)) return false;
    p = std::move(attempt);
    return true;
  }
  if (isKind(expr, kind::binary_operator)) {
    std::string_view op = text(fieldOf(expr, "operator"));
    TSNode left = fieldOf(expr, "left"), right = fieldOf(expr, "right");
    if (op == "/") return scaleStep(left, right, true, p, depth);
    if (op == "*") return scaleStep(left, right, false, p, depth) || scaleStep(right, left, false, p, depth);
    if (op == "+") return additiveStep(left, right, p, depth) || additiveStep(right, left, p, depth);
    if (op == "-" && isMaxOf(right, left)) return traceScores(left, p, depth + 1);
    return false;
  }
  if (!isKind(expr, kind::call) || !plainCall(expr)) return false;
  TSNode object{};
  std::string_view method = tensorMethod(expr, &object);
  auto args = positionalArguments(expr);
  if (method == "masked_fill" && args.size() == 2) return maskStep(object, args[0], args[1], p, depth);
  // `attn = self.rel_pos(attn)` (timm gcvit): a module or local function applied to the scores
  // alone, whose effect the rule cannot see; reported without a fix.
  if (TSNode function = fieldOf(expr, "function");
      args.size() == 1 && ts_node_named_child_count(argumentList(expr)) == 1 && p.score_mod.empty() &&
      !ctx_.model().qualifiedName(function) &&
      (isKind(function, kind::identifier) ||
       (isKind(function, kind::attribute) && isKind(unparenthesize(fieldOf(function, "object")), kind::identifier) &&
        text(unparenthesize(fieldOf(function, "object"))) == "self"))) {
    TSNode inner = unparenthesize(args[0]);
    if (isKind(inner, kind::identifier) || asMatmul(inner)) {
      Pattern attempt = p;
      attempt.score_mod = "`" + std::string(text(function)) + "(...)`";
      attempt.opaque_mod = true;
      if (!traceScores(inner, attempt, depth + 1)) return false;
      p = std::move(attempt);
      return true;
    }
  }
  if ((method == "div" || method == "mul") && args.size() == 1 && ts_node_named_child_count(argumentList(expr)) == 1)
    return scaleStep(object, args[0], method == "div", p, depth);
  if (method == "add" && args.size() == 1 && ts_node_named_child_count(argumentList(expr)) == 1)
    return additiveStep(object, args[0], p, depth);
  if (method == "float" && args.empty()) {
    p.upcast = true;
    return traceScores(object, p, depth + 1);
  }
  if (method == "to" && args.size() == 1) {
    auto q = ctx_.model().qualifiedName(args[0]);
    if (q && (*q == "torch.float32" || *q == "torch.float")) {
      p.upcast = true;
      return traceScores(object, p, depth + 1);
    }
  }
  return false;
}

bool Matcher::traceScoresName(std::string_view name, uint32_t at, TSNode use, Pattern& p, int depth) {
  if (depth > kMaxDepth || !spend()) return false;
  for (const Definition* def : candidates(name, at, use)) {
    Pattern attempt = p;
    noteFollowed(attempt, def, use);
    bool ok = false;
    if (def->kind == Definition::Kind::Assign) {
      ok = traceScores(def->value, attempt, depth + 1);
    } else if (def->kind == Definition::Kind::AugAssign) {
      std::string_view op = text(fieldOf(def->node, "operator"));
      TSNode operand = def->value;
      uint32_t before = startOf(def->node);
      TSNode left = fieldOf(def->node, "left");
      if (op == "/=" || op == "*=") ok = scaleName(name, before, left, operand, op == "/=", attempt, depth);
      else if (op == "+=") ok = additiveName(name, before, left, operand, attempt, depth);
    } else if (def->kind == Definition::Kind::InPlace) {
      TSNode call = def->value;
      TSNode object{};
      std::string_view method = tensorMethod(call, &object);
      auto args = positionalArguments(call);
      uint32_t before = startOf(call);
      if (!plainCall(call)) {
        ok = false;
      } else if (method == "masked_fill_" && args.size() == 2) {
        ok = maskFill(args[0], args[1], attempt) && traceScoresName(name, before, object, attempt, depth + 1);
      } else if ((method == "div_" || method == "mul_") && args.size() == 1) {
        ok = scaleName(name, before, object, args[0], method == "div_", attempt, depth);
      } else if (method == "add_" && args.size() == 1) {
        ok = additiveName(name, before, object, args[0], attempt, depth);
      }
    }
    if (ok) {
      p = std::move(attempt);
      return true;
    }
    if (def->kind != Definition::Kind::Assign) return false;
  }
  return false;
}

void Matcher::recordScale(TSNode factor, bool divides, Pattern& p) const {
  p.scales += 1;
  p.scale_factor = factor;
  p.scale_divides = divides;
}

bool Matcher::scaleStep(TSNode scores, TSNode factor, bool divides, Pattern& p, int depth) {
  if (looksLikeScores(factor)) return false;
  Pattern attempt = p;
  recordScale(factor, divides, attempt);
  bool outside = attempt.scale_seen_outside;
  attempt.scale_seen_outside = true;
  if (!traceScores(scores, attempt, depth + 1)) return false;
  attempt.scale_seen_outside = outside || attempt.scale_seen_outside;
  p = std::move(attempt);
  return true;
}

bool Matcher::scaleName(std::string_view name, uint32_t before, TSNode use, TSNode factor, bool divides, Pattern& p,
               int depth) {
  recordScale(factor, divides, p);
  p.scale_seen_outside = true;
  return traceScoresName(name, before, use, p, depth + 1);
}

void Matcher::recordAdditive(TSNode mask, Pattern& p) const {
  p.masks += 1;
  p.mask = MaskKind::Additive;
  p.mask_node = mask;
  p.attn_mask = argumentText(mask, source_);
  if (p.scale_seen_outside) p.scale_after_additive = true;
}

bool Matcher::additiveStep(TSNode scores, TSNode mask, Pattern& p, int depth) {
  if (looksLikeScores(mask)) return false;
  Pattern attempt = p;
  recordAdditive(mask, attempt);
  if (!traceScores(scores, attempt, depth + 1)) return false;
  p = std::move(attempt);
  return true;
}

bool Matcher::additiveName(std::string_view name, uint32_t before, TSNode use, TSNode mask, Pattern& p, int depth) {
  recordAdditive(mask, p);
  return traceScoresName(name, before, use, p, depth + 1);
}

bool Matcher::maskStep(TSNode scores, TSNode condition, TSNode fill, Pattern& p, int depth) {
  Pattern attempt = p;
  if (!maskFill(condition, fill, attempt)) return false;
  if (!traceScores(scores, attempt, depth + 1)) return false;
  p = std::move(attempt);
  return true;
}

TSNode Matcher::softCapped(TSNode expr) const {
  expr = unparenthesize(expr);
  if (!isKind(expr, kind::binary_operator) || text(fieldOf(expr, "operator")) != "*") return {};
  for (int side = 0; side < 2; ++side) {
    TSNode cap = unparenthesize(fieldOf(expr, side == 0 ? "left" : "right"));
    TSNode tanh = unparenthesize(fieldOf(expr, side == 0 ? "right" : "left"));
    if (!isKind(tanh, kind::call) || !plainCall(tanh)) continue;
    TSNode inner{};
    std::string name = callee(tanh);
    auto args = positionalArguments(tanh);
    if ((name == "torch.tanh" || name == "torch.nn.functional.tanh") && args.size() == 1) inner = args[0];
    else if (TSNode object{}; tensorMethod(tanh, &object) == "tanh" && args.empty()) inner = object;
    inner = unparenthesize(inner);
    if (!isKind(inner, kind::binary_operator) || text(fieldOf(inner, "operator")) != "/") continue;
    if (text(unparenthesize(fieldOf(inner, "right"))) != text(cap)) continue;
    return fieldOf(inner, "left");
  }
  return {};
}

bool Matcher::looksLikeScores(TSNode node) const {
  auto mm = asMatmul(node);
  return mm.has_value();
}

bool Matcher::isMaxOf(TSNode maximum, TSNode scores) const {
  maximum = unparenthesize(maximum);
  for (int i = 0; i < 4; ++i) {
    if (isKind(maximum, kind::subscript)) maximum = unparenthesize(fieldOf(maximum, "value"));
    else if (isKind(maximum, kind::attribute) && text(fieldOf(maximum, "attribute")) == "values")
      maximum = unparenthesize(fieldOf(maximum, "object"));
    else break;
  }
  TSNode object{};
  std::string_view method = tensorMethod(maximum, &object);
  if (method == "detach") method = tensorMethod(unparenthesize(object), &object);
  if (method != "max" && method != "amax") return false;
  object = unparenthesize(object);
  if (isKind(object, kind::call) && tensorMethod(object) == "detach") object = unparenthesize(fieldOf(fieldOf(object, "function"), "object"));
  return text(object) == text(unparenthesize(scores));
}

bool Matcher::isBuiltinCall(TSNode node, std::string_view name) const {
  if (!isKind(node, kind::call)) return false;
  TSNode function = fieldOf(node, "function");
  return isKind(function, kind::identifier) && text(function) == name &&
         ctx_.model().resolve(name, function) == nullptr;
}

bool Matcher::isLargeNegative(TSNode fill, int depth) const {
  fill = unparenthesize(fill);
  if (isKind(fill, kind::identifier) && depth < 4) {
    // `max_neg_value = -torch.finfo(sim.dtype).max` then `masked_fill_(~mask, max_neg_value)`.
    const Definition* def = flow_.reaching(text(fill), startOf(fill));
    if (def == nullptr || def->kind != Definition::Kind::Assign) return false;
    if (flow_.previous(def) != nullptr) return false;  // bound more than once
    return isLargeNegative(def->value, depth + 1);
  }
  if (auto value = numberValue(fill, source_)) return *value <= -1e4;
  if (isBuiltinCall(fill, "float")) {
    auto args = positionalArguments(fill);
    if (args.size() == 1 && isKind(args[0], kind::string)) {
      std::string s(text(args[0]));
      std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
      return s == "\"-inf\"" || s == "'-inf'" || s == "\"-infinity\"" || s == "'-infinity'";
    }
    return false;
  }
  if (isKind(fill, kind::unary_operator) && text(fieldOf(fill, "operator")) == "-") {
    TSNode inner = unparenthesize(fieldOf(fill, "argument"));
    auto q = ctx_.model().qualifiedName(inner);
    if (q && (*q == "math.inf" || *q == "torch.inf" || *q == "numpy.inf")) return true;
    if (isBuiltinCall(inner, "float")) {
      auto args = positionalArguments(inner);
      return args.size() == 1 && (text(args[0]) == "\"inf\"" || text(args[0]) == "'inf'");
    }
    // -torch.finfo(x.dtype).max
    if (isKind(inner, kind::attribute) && text(fieldOf(inner, "attribute")) == "max") {
      TSNode base = fieldOf(inner, "object");
      return isKind(base, kind::call) && callee(base) == "torch.finfo";
    }
    return false;
  }
  // torch.finfo(x.dtype).min
  if (isKind(fill, kind::attribute) && text(fieldOf(fill, "attribute")) == "min") {
    TSNode base = fieldOf(fill, "object");
    return isKind(base, kind::call) && callee(base) == "torch.finfo";
  }
  return false;
}

bool Matcher::isTrilOnes(TSNode node, int depth) const {
  if (depth > 8) return false;
  node = unparenthesize(node);
  if (isKind(node, kind::subscript)) {
    // Only slices that keep a top-left corner: `[:, :, :T, :T]`, `[..., :T, :S]`.
    bool plain = true;
    analysis::forEachFieldChild(node, "subscript", [&](TSNode index) {
      if (isKind(index, kind::ellipsis)) return;
      if (!isKind(index, kind::slice)) { plain = false; return; }
      std::string_view t = text(index);
      if (!t.starts_with(":") || t.find(':', 1) != std::string_view::npos) plain = false;
    });
    return plain && isTrilOnes(fieldOf(node, "value"), depth + 1);
  }
  if (isKind(node, kind::identifier)) {
    const Definition* def = flow_.reaching(text(node), startOf(node));
    if (def == nullptr) return false;
    return def->kind == Definition::Kind::Assign && isTrilOnes(def->value, depth + 1);
  }
  if (isKind(node, kind::attribute)) {
    TSNode built = classMember(node);
    return !ts_node_is_null(built) && isTrilOnes(built, depth + 1);
  }
  if (!isKind(node, kind::call)) return false;
  TSNode object{};
  std::string_view method = tensorMethod(node, &object);
  if (method == "bool" || method == "to" || method == "view" || method == "unsqueeze" || method == "float" ||
      method == "int" || method == "long" || method == "byte")
    return isTrilOnes(object, depth + 1);
  TSNode base{};
  if (callee(node) == "torch.tril") {
    auto args = positionalArguments(node);
    if (args.size() != 1 || ts_node_named_child_count(argumentList(node)) != 1) return false;
    base = unparenthesize(args[0]);
  } else if (method == "tril" && positionalArguments(node).empty() &&
             ts_node_named_child_count(argumentList(node)) == 0) {
    base = unparenthesize(object);
  } else {
    return false;
  }
  std::string ones = callee(base);
  return ones == "torch.ones" || ones == "torch.ones_like";
}

bool Matcher::maskFill(TSNode condition, TSNode fill, Pattern& p) const {
  if (!isLargeNegative(fill)) return false;
  condition = unparenthesize(condition);
  p.masks += 1;
  p.mask_node = condition;
  // `tril == 0` or `~tril`: excluded above the diagonal, i.e. causal.
  if (isKind(condition, kind::comparison_operator) && ts_node_named_child_count(condition) == 2) {
    TSNode a = ts_node_named_child(condition, 0), b = ts_node_named_child(condition, 1);
    std::string_view op = text(ts_node_child(condition, 1));
    long long zero = 1;
    bool is_zero = isIntValue(b, source_, zero) && zero == 0;
    if (op == "==" && (is_zero || isFalseLiteral(b)) && isTrilOnes(a)) {
      p.mask = MaskKind::Causal;
      return true;
    }
    if (op == "==" || op == "!=") {
      p.mask = MaskKind::Boolean;
      p.attn_mask = std::string(text(a)) + (op == "==" ? " != " : " == ") + std::string(text(b));
      return true;
    }
  }
  if (isKind(condition, kind::unary_operator) && text(fieldOf(condition, "operator")) == "~") {
    TSNode inner = unparenthesize(fieldOf(condition, "argument"));
    if (isTrilOnes(inner)) {
      p.mask = MaskKind::Causal;
      return true;
    }
    p.mask = MaskKind::Boolean;
    p.attn_mask = text(inner);
    return true;
  }
  if (TSNode object{}; tensorMethod(condition, &object) == "logical_not" && positionalArguments(condition).empty()) {
    p.mask = MaskKind::Boolean;
    p.attn_mask = text(object);
    return true;
  }
  p.mask = MaskKind::Boolean;
  p.attn_mask = isAtomic(condition) ? "~" + std::string(text(condition)) : "~(" + std::string(text(condition)) + ")";
  return true;
}

}  // namespace ptlint::rules::hand_rolled
