// PTL601's shape reasoning: matrix products and einsum subscripts, transposed operands, the
// axis order and rank of a tensor as its assignments lay it out (attention_matcher.h).
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
#include "rules/helpers.h"

namespace ptlint::rules::hand_rolled {

std::optional<Einsum> parseEinsum(TSNode string, std::string_view source) {
  string = unparenthesize(string);
  if (!isKind(string, kind::string)) return std::nullopt;
  std::string content;
  bool interpolated = false;
  analysis::forEachNamedChild(string, [&](TSNode child) {
    if (isKind(child, kind::string_content)) content += analysis::textOf(child, source);
    if (isKind(child, kind::interpolation) || isKind(child, kind::escape_sequence)) interpolated = true;
  });
  if (interpolated) return std::nullopt;
  std::string_view text = analysis::textOf(string, source);
  if (!text.empty() && (text.front() == 'f' || text.front() == 'F' || text.front() == 'b' || text.front() == 'B'))
    return std::nullopt;
  std::erase_if(content, [](char c) { return c == ' ' || c == '\t' || c == '\n'; });
  size_t arrow = content.find("->");
  if (arrow == std::string::npos) return std::nullopt;
  std::string inputs = content.substr(0, arrow);
  size_t comma = inputs.find(',');
  if (comma == std::string::npos || inputs.find(',', comma + 1) != std::string::npos) return std::nullopt;
  Einsum e{inputs.substr(0, comma), inputs.substr(comma + 1), content.substr(arrow + 2)};
  auto valid = [](const std::string& s) {
    std::string_view rest = s;
    if (rest.starts_with("...")) rest.remove_prefix(3);
    return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
  };
  if (!valid(e.a) || !valid(e.b) || !valid(e.out)) return std::nullopt;
  return e;
}

std::optional<EinsumParts> einsumParts(const Einsum& e, bool* shared) {
  auto strip = [](std::string s, bool& dots) {
    dots = s.starts_with("...");
    return dots ? s.substr(3) : s;
  };
  bool da = false, db = false, dout = false;
  std::string a = strip(e.a, da), b = strip(e.b, db), o = strip(e.out, dout);
  if (da != db || da != dout) return std::nullopt;
  if (a.size() < 2 || b.size() < 2 || a.size() != o.size()) return std::nullopt;
  size_t n = a.size() - 2;
  if (a.substr(0, n) != o.substr(0, n)) return std::nullopt;
  if (shared != nullptr) *shared = false;
  if (b.size() + 1 == a.size() && shared != nullptr && n >= 2) {
    // b's prefix is a's with one letter left out.
    std::string bp = b.substr(0, n - 1);
    bool found = false;
    for (size_t skip = 0; skip < n && !found; ++skip) {
      std::string reduced = a.substr(0, n);
      reduced.erase(skip, 1);
      found = reduced == bp;
    }
    if (!found) return std::nullopt;
    *shared = true;
    b = a.substr(0, n) + b.substr(n - 1);  // compare the last two letters as if b had every batch letter
  }
  if (a.size() != b.size() || a.substr(0, n) != b.substr(0, n)) return std::nullopt;
  for (const std::string* s : {&a, &b, &o}) {
    std::string sorted = *s;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return std::nullopt;
  }
  std::string prefix = a.substr(0, n);
  EinsumParts parts{n, da, a[n], a[n + 1], b[n], b[n + 1], o[n], o[n + 1]};
  for (char c : {parts.a1, parts.a2, parts.b1, parts.b2, parts.o1, parts.o2})
    if (prefix.find(c) != std::string::npos) return std::nullopt;
  return parts;
}

std::optional<ScoresShape> scoresEinsum(const Einsum& e) {
  bool shared = false;
  auto parts = einsumParts(e, &shared);
  if (!parts) return std::nullopt;
  const EinsumParts& x = *parts;
  char i = x.o1, j = x.o2;
  if (i == j) return std::nullopt;
  bool q_t = false, k_t = false;
  char d = 0;
  if (x.a1 == i) { d = x.a2; } else if (x.a2 == i) { d = x.a1; q_t = true; } else { return std::nullopt; }
  if (x.b1 == j && x.b2 == d) { k_t = false; } else if (x.b2 == j && x.b1 == d) { k_t = true; } else { return std::nullopt; }
  if (d == i || d == j) return std::nullopt;
  return ScoresShape{x.ellipsis ? 0 : static_cast<int>(x.batch) + 2, q_t, k_t, shared};
}

std::optional<ValuesShape> valuesEinsum(const Einsum& e) {
  bool shared = false;
  auto parts = einsumParts(e, &shared);
  if (!parts) return std::nullopt;
  const EinsumParts& x = *parts;
  char i = x.a1, j = x.a2;
  if (i == j) return std::nullopt;
  char ev = 0;
  bool v_t = false, o_t = false;
  if (x.b1 == j) { ev = x.b2; } else if (x.b2 == j) { ev = x.b1; v_t = true; } else { return std::nullopt; }
  if (x.o1 == i && x.o2 == ev) { o_t = false; } else if (x.o2 == i && x.o1 == ev) { o_t = true; } else { return std::nullopt; }
  if (ev == i || ev == j) return std::nullopt;
  return ValuesShape{v_t, o_t, shared};
}

std::optional<Matmul> Matcher::asMatmul(TSNode node) const {
  node = unparenthesize(node);
  if (isKind(node, kind::binary_operator)) {
    if (text(fieldOf(node, "operator")) != "@") return std::nullopt;
    return Matmul{fieldOf(node, "left"), fieldOf(node, "right")};
  }
  if (!isKind(node, kind::call) || !plainCall(node)) return std::nullopt;
  auto args = positionalArguments(node);
  std::string name = callee(node);
  if (name == "torch.matmul" || name == "torch.bmm") {
    if (args.size() != 2) return std::nullopt;
    return Matmul{args[0], args[1], name == "torch.bmm"};
  }
  if (name == "torch.einsum") {
    if (args.size() != 3) return std::nullopt;
    auto e = parseEinsum(args[0], source_);
    if (!e) return std::nullopt;
    return Matmul{args[1], args[2], false, e};
  }
  if (name == "einops.einsum") {
    // einops puts the pattern last: `einsum(q, k, "b h i d, b h j d -> b h i j")`.
    if (args.size() != 3) return std::nullopt;
    auto e = parseEinsum(args[2], source_);
    if (!e) return std::nullopt;
    return Matmul{args[0], args[1], false, e};
  }
  TSNode object{};
  std::string_view method = tensorMethod(node, &object);
  if ((method == "matmul" || method == "bmm") && args.size() == 1)
    return Matmul{object, args[0], method == "bmm"};
  return std::nullopt;
}

TSNode Matcher::untransposed(TSNode node, bool bmm, int& rank) const {
  node = unparenthesize(node);
  if (isKind(node, kind::attribute) && text(fieldOf(node, "attribute")) == "mT" &&
      !ctx_.model().qualifiedName(node))
    return fieldOf(node, "object");
  if (!isKind(node, kind::call) || !plainCall(node)) return {};
  TSNode object{};
  std::vector<TSNode> dims;
  std::string_view method = tensorMethod(node, &object);
  // `k.transpose(-2, -1).contiguous()`: same values, same layout as seen by matmul.
  if (method == "contiguous" && positionalArguments(node).empty() && ts_node_named_child_count(argumentList(node)) == 0)
    return untransposed(object, bmm, rank);
  auto args = positionalArguments(node);
  if (method == "transpose" && args.size() == 2) {
    dims = args;
  } else if (callee(node) == "torch.transpose" && args.size() == 3) {
    object = args[0];
    dims = {args[1], args[2]};
  } else if (method == "permute") {
    std::vector<long long> order;
    for (TSNode a : args) {
      long long v = 0;
      if (!isIntValue(a, source_, v)) return {};
      order.push_back(v);
    }
    if (order == std::vector<long long>{0, 1, 3, 2}) { rank = 4; return object; }
    if (bmm && order == std::vector<long long>{0, 2, 1}) { rank = 3; return object; }
    return {};
  } else {
    return {};
  }
  long long a = 0, b = 0;
  if (!isIntValue(dims[0], source_, a) || !isIntValue(dims[1], source_, b)) return {};
  if (a > b) std::swap(a, b);
  if (a == -2 && b == -1) return object;
  if (a == 2 && b == 3) { rank = 4; return object; }
  if (bmm && a == 1 && b == 2) { rank = 3; return object; }
  return {};
}

std::vector<std::string> Matcher::axisOrder(TSNode expr, int rank, int depth) const {
  if (depth > 4) return {};
  expr = boundValue(expr);
  if (ts_node_is_null(expr)) return {};
  if (isKind(expr, kind::binary_operator)) {
    std::string_view op = text(fieldOf(expr, "operator"));
    TSNode l = fieldOf(expr, "left"), r = fieldOf(expr, "right");
    if ((op == "*" || op == "/") && scaleLike(r)) return axisOrder(l, rank, depth + 1);
    if (op == "*" && scaleLike(l)) return axisOrder(r, rank, depth + 1);
    return {};
  }
  if (!isKind(expr, kind::call) || !plainCall(expr)) return {};
  TSNode object{};
  std::string_view method = tensorMethod(expr, &object);
  auto args = positionalArguments(expr);
  std::vector<std::string> out;
  if (method == "contiguous" && args.empty()) return axisOrder(object, rank, depth + 1);
  if (method == "view" || method == "reshape") {
    // `p.view(B, C, -1)` beside `t.view(B, C, -1).permute(0, 2, 1)`: axes in stored order.
    int n = visibleRank(expr);
    if (n < 2) return {};
    for (int i = 0; i < n; ++i) out.push_back(std::to_string(i));
    return out;
  }
  if (method == "permute") {
    for (TSNode a : args) {
      long long v = 0;
      if (!isIntValue(a, source_, v) || v < 0) return {};
      out.push_back(std::to_string(v));
    }
    return out;
  }
  if (method == "transpose" && args.size() == 2 && rank == 0) rank = visibleRank(object);
  if (method == "transpose" && args.size() == 2 && rank > 0) {
    long long a = 0, b = 0;
    if (!isIntValue(args[0], source_, a) || !isIntValue(args[1], source_, b)) return {};
    if (a < 0) a += rank;
    if (b < 0) b += rank;
    if (a < 0 || b < 0 || a >= rank || b >= rank || a == b) return {};
    for (int i = 0; i < rank; ++i) out.push_back(std::to_string(i));
    std::swap(out[static_cast<size_t>(a)], out[static_cast<size_t>(b)]);
    return out;
  }
  if (callee(expr) == "einops.rearrange" && args.size() == 2) {
    TSNode pattern = unparenthesize(args[1]);
    if (!isKind(pattern, kind::string)) return {};
    std::string content;
    analysis::forEachNamedChild(pattern, [&](TSNode child) {
      if (isKind(child, kind::string_content)) content += text(child);
    });
    size_t arrow = content.find("->");
    if (arrow == std::string::npos) return {};
    std::string rhs = content.substr(arrow + 2), token;
    int nesting = 0;
    for (char c : rhs + " ") {
      if (c == '(') ++nesting;
      if (c == ')') --nesting;
      if ((c == ' ' || c == '\t') && nesting == 0) {
        if (!token.empty()) out.push_back(token);
        token.clear();
      } else {
        token += c;
      }
    }
    return out;
  }
  return {};
}

bool Matcher::keyStoredTransposed(TSNode query, TSNode key) const {
  auto k = axisOrder(key, 0);
  auto q = axisOrder(query, static_cast<int>(k.size()));
  if (k.empty()) k = axisOrder(key, static_cast<int>(q.size()));
  if (q.size() < 2 || q.size() != k.size()) return false;
  std::swap(q[q.size() - 1], q[q.size() - 2]);
  return q == k && k[k.size() - 1] != k[k.size() - 2];
}

int Matcher::visibleRank(TSNode expr, int depth) const {
  if (depth > 6 || ts_node_is_null(expr)) return 0;
  expr = boundValue(expr);
  if (ts_node_is_null(expr)) return 0;
  if (isKind(expr, kind::binary_operator)) {
    std::string_view op = text(fieldOf(expr, "operator"));
    TSNode l = fieldOf(expr, "left"), r = fieldOf(expr, "right");
    if ((op == "*" || op == "/") && scaleLike(r)) return visibleRank(l, depth + 1);
    if (op == "*" && scaleLike(l)) return visibleRank(r, depth + 1);
    return 0;
  }
  if (isKind(expr, kind::attribute) && text(fieldOf(expr, "attribute")) == "mT") return visibleRank(fieldOf(expr, "object"), depth + 1);
  if (!isKind(expr, kind::call) || !plainCall(expr)) return 0;
  TSNode object{};
  std::string_view method = tensorMethod(expr, &object);
  auto args = positionalArguments(expr);
  if (method == "view" || method == "reshape") {
    if (args.size() == 1 && (isKind(args[0], kind::tuple) || isKind(args[0], kind::list)))
      return static_cast<int>(ts_node_named_child_count(args[0]));
    if (args.size() == 1) {
      long long v = 0;
      return isIntValue(args[0], source_, v) ? 1 : 0;  // `view(-1)`; `view(shape)` is unknown
    }
    return static_cast<int>(args.size());
  }
  if (method == "permute") return static_cast<int>(args.size());
  if (method == "transpose" || method == "contiguous" || method == "float" || method == "half" ||
      method == "to" || method == "type_as" || method == "bfloat16")
    return visibleRank(object, depth + 1);
  if (callee(expr) == "einops.rearrange") return static_cast<int>(axisOrder(expr, 0).size());
  return 0;
}

bool Matcher::qkProduct(TSNode expr, Pattern& p) const {
  auto mm = asMatmul(expr);
  if (!mm) return false;
  Pattern attempt = p;
  TSNode query = unparenthesize(mm->left);
  TSNode key{};
  if (mm->einsum) {
    auto shape = scoresEinsum(*mm->einsum);
    if (!shape) return false;
    key = mm->right;
    attempt.q_transposed = shape->q_transposed;
    attempt.k_transposed = shape->k_transposed;
    if (shape->shared) attempt.no_fix = kSharedAcrossHeads;
    if (shape->rank > 0) {
      attempt.rank = shape->rank;
      attempt.layout = shape->rank == 3 ? AttentionFacts::Layout::BTD : AttentionFacts::Layout::BHTD;
    }
  } else {
    int rank = 0;
    TSNode right = unparenthesize(mm->right);
    // `k.transpose(-2, -1) * scale`: the scale applied to the key after the transpose.
    TSNode key_scale{};
    bool key_scale_divides = false;
    if (isKind(right, kind::binary_operator)) {
      std::string_view op = text(fieldOf(right, "operator"));
      TSNode l = fieldOf(right, "left"), r = fieldOf(right, "right");
      if ((op == "*" || op == "/") && scaleLike(r) && !scaleLike(l)) {
        key_scale = r;
        key_scale_divides = op == "/";
        right = unparenthesize(l);
      } else if (op == "*" && scaleLike(l) && !scaleLike(r)) {
        key_scale = l;
        right = unparenthesize(r);
      }
    }
    Pattern followed = attempt;
    key = untransposed(followAssigned(right, followed), mm->bmm, rank);
    if (!ts_node_is_null(key)) {
      attempt = std::move(followed);
    } else if (int unused = 0; !ts_node_is_null(untransposed(query, mm->bmm, unused)) && ts_node_is_null(key_scale)) {
      // `q.transpose(-2, -1) @ k`: queries and keys both stored (..., E, L); the query operand
      // is already (..., L, E), the key is passed transposed.
      key = right;
      attempt.k_transposed = true;
      rank = unused;
    } else if (keyStoredTransposed(query, right)) {
      // `q @ k` with k built as (..., E, S) beside q's (..., L, E).
      key = right;
      attempt.k_transposed = true;
    } else {
      return false;
    }
    if (!ts_node_is_null(key_scale)) recordScale(key_scale, key_scale_divides, attempt);
    if (mm->bmm) rank = 3;
    attempt.rank = rank;
    attempt.layout = rank == 3 ? AttentionFacts::Layout::BTD : AttentionFacts::Layout::BHTD;
  }
  // `einsum(..., q * s, k * s)` (guided-diffusion scales both by d^-1/4): both operands keep
  // their scale, and SDPA gets `scale=1.0`.
  bool key_scaled = false;
  if (mm->einsum) {
    TSNode k = unparenthesize(key);
    if (isKind(k, kind::binary_operator)) {
      std::string_view op = text(fieldOf(k, "operator"));
      TSNode left = fieldOf(k, "left"), right = fieldOf(k, "right");
      key_scaled = ((op == "*" || op == "/") && scaleLike(right) && !scaleLike(left)) ||
                   (op == "*" && scaleLike(left) && !scaleLike(right));
    }
  }
  // `(q * scale) @ kᵀ`: the scale goes to `scale=`, the query is `q`.
  if (isKind(query, kind::binary_operator) && !key_scaled) {
    std::string_view op = text(fieldOf(query, "operator"));
    TSNode left = fieldOf(query, "left"), right = fieldOf(query, "right");
    if (op == "*" && scaleLike(left) && !scaleLike(right)) {
      recordScale(left, false, attempt);
      query = right;
    } else if ((op == "*" || op == "/") && scaleLike(right) && !scaleLike(left)) {
      recordScale(right, op == "/", attempt);
      query = left;
    }
  }
  if (attempt.scales > 1 && attempt.no_fix.empty())
    attempt.no_fix = "the scores are scaled in more than one place";
  attempt.q = unparenthesize(query);
  attempt.k = unparenthesize(key);
  attempt.qk_node = expr;
  p = std::move(attempt);
  return true;
}

}  // namespace ptlint::rules::hand_rolled
