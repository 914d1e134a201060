// PTL601's facts and fix (attention_fix.h).
#include "rules/attention/attention_fix.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/syntax.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"
#include "rules/torch_releases.h"
#include "rules/version_facts.h"

namespace ptlint::rules::hand_rolled {

namespace {

// `q.size(-1)`, `q.shape[-1]`, `k.size(-1)`, ... of the pattern's own query or key.
bool isHeadDimOf(TSNode node, const Pattern& p, std::string_view source) {
  node = unparenthesize(node);
  TSNode object{};
  TSNode index{};
  if (isKind(node, kind::call)) {
    TSNode function = fieldOf(node, "function");
    if (!isKind(function, kind::attribute) || analysis::textOf(fieldOf(function, "attribute"), source) != "size") return false;
    auto args = positionalArguments(node);
    if (args.size() != 1) return false;
    object = fieldOf(function, "object");
    index = args[0];
  } else if (isKind(node, kind::subscript)) {
    TSNode value = fieldOf(node, "value");
    if (!isKind(value, kind::attribute) || analysis::textOf(fieldOf(value, "attribute"), source) != "shape") return false;
    object = fieldOf(value, "object");
    index = fieldOf(node, "subscript");
  } else {
    return false;
  }
  long long i = 0;
  if (!isIntValue(index, source, i)) return false;
  if (!(i == -1 || (p.rank > 0 && i == p.rank - 1))) return false;
  std::string_view t = analysis::textOf(unparenthesize(object), source);
  return t == analysis::textOf(p.q, source) || t == analysis::textOf(p.k, source);
}

}  // namespace

ScaleInfo classifyScale(const Pattern& p, Matcher& m, std::string_view source, int depth,
                        TSNode factor_override, bool divides_override, bool use_override) {
  ScaleInfo info;
  if (p.scales == 0) return info;
  TSNode factor = unparenthesize(use_override ? factor_override : p.scale_factor);
  bool divides = use_override ? divides_override : p.scale_divides;
  info.kind = AttentionFacts::Scale::Expression;
  if (depth > 4) return info;
  if (auto value = numberValue(factor, source)) {
    if (*value == 0) return info;
    info.kind = AttentionFacts::Scale::Value;
    info.value = divides ? 1.0 / *value : *value;
    return info;
  }
  auto sqrtArgument = [&](TSNode node) -> TSNode {
    node = unparenthesize(node);
    if (isKind(node, kind::call)) {
      std::string name = m.callee(node);
      auto args = positionalArguments(node);
      if ((name == "math.sqrt" || name == "numpy.sqrt") && args.size() == 1) return args[0];
    }
    if (isKind(node, kind::binary_operator) && m.text(fieldOf(node, "operator")) == "**") {
      auto e = numberValue(fieldOf(node, "right"), source);
      if (e && *e == 0.5) return fieldOf(node, "left");
    }
    return {};
  };
  TSNode dim{};
  if (divides) {
    dim = sqrtArgument(factor);
  } else if (isKind(factor, kind::binary_operator)) {
    std::string_view op = m.text(fieldOf(factor, "operator"));
    if (op == "**") {
      auto e = numberValue(fieldOf(factor, "right"), source);
      if (e && *e == -0.5) dim = fieldOf(factor, "left");
    } else if (op == "/") {
      auto one = numberValue(fieldOf(factor, "left"), source);
      if (one && *one == 1.0) dim = sqrtArgument(fieldOf(factor, "right"));
    }
  } else if (isKind(factor, kind::call) && m.callee(factor) == "math.pow") {
    auto args = positionalArguments(factor);
    auto e = args.size() == 2 ? numberValue(args[1], source) : std::nullopt;
    if (e && *e == -0.5) dim = args[0];
  } else if (isKind(factor, kind::attribute)) {
    // `self.scale` built in __init__ as `head_dim ** -0.5`.
    TSNode built = m.classMember(factor);
    if (!ts_node_is_null(built)) {
      ScaleInfo inner = classifyScale(p, m, source, depth + 1, built, false, true);
      inner.provably_default = false;
      inner.conventional = false;
      return inner;
    }
    return info;
  }
  if (ts_node_is_null(dim)) return info;
  info.kind = AttentionFacts::Scale::Default;
  // Only the query's own last size is SDPA's default: `dim ** -0.5` over a model width whose
  // heads have `dim // heads` channels each is a different number.
  info.provably_default = isHeadDimOf(dim, p, source);
  info.conventional = info.provably_default;
  return info;
}

AttentionFacts::Dtype autocastDtype(TSNode node, Context& ctx) {
  for (TSNode cur = ts_node_parent(node); !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
    if (isKind(cur, kind::function_definition) || isKind(cur, kind::class_definition) || isKind(cur, kind::lambda)) break;
    if (!isKind(cur, kind::with_statement)) continue;
    auto found = AttentionFacts::Dtype::Unknown;
    analysis::walkTree(
        cur,
        [&](TSNode n) {
          if (isKind(n, kind::block)) return false;
          if (!isKind(n, kind::with_item)) return true;
          TSNode call = unparenthesize(fieldOf(n, "value"));
          if (isKind(call, kind::as_pattern)) call = unparenthesize(ts_node_named_child(call, 0));
          auto name = ctx.model().calleeName(call);
          if (!name) return false;
          bool amp = *name == "torch.amp.autocast";
          bool cuda = *name == "torch.cuda.amp.autocast";
          bool cpu = *name == "torch.cpu.amp.autocast";
          if (!amp && !cuda && !cpu) return false;
          TSNode dtype = keywordArgument(call, "dtype", ctx.source());
          if (ts_node_is_null(dtype) && amp) {
            auto args = positionalArguments(call);
            if (args.size() > 1) dtype = args[1];
          }
          if (ts_node_is_null(dtype)) {
            if (cuda) found = AttentionFacts::Dtype::Float16;
            if (cpu) found = AttentionFacts::Dtype::BFloat16;
            return false;
          }
          auto q = ctx.model().qualifiedName(dtype);
          if (q && *q == "torch.bfloat16") found = AttentionFacts::Dtype::BFloat16;
          if (q && (*q == "torch.float16" || *q == "torch.half")) found = AttentionFacts::Dtype::Float16;
          return false;
        },
        [](TSNode) {});
    if (found != AttentionFacts::Dtype::Unknown) return found;
  }
  return AttentionFacts::Dtype::Unknown;
}

namespace {

// The statement's whole lines, when nothing else shares them; nullopt otherwise.
std::optional<quickfix::Edit> deleteLines(TSNode statement, const analysis::ParsedFile& file) {
  std::string_view source = file.text();
  uint32_t start = startOf(statement), end = endOf(statement);
  uint32_t line_start = start;
  while (line_start > 0 && source[line_start - 1] != '\n') --line_start;
  for (uint32_t i = line_start; i < start; ++i)
    if (source[i] != ' ' && source[i] != '\t') return std::nullopt;
  uint32_t line_end = end;
  bool comment = false;
  while (line_end < source.size() && source[line_end] != '\n') {
    char c = source[line_end];
    if (c == '#') comment = true;
    if (!comment && c != ' ' && c != '\t' && c != '\r') return std::nullopt;
    ++line_end;
  }
  if (line_end < source.size()) ++line_end;  // the newline
  return quickfix::Edit{line_start, line_end, ""};
}

// Identifiers read by `node` (not attribute names or keyword names).
std::vector<TSNode> identifiersIn(TSNode node) {
  std::vector<TSNode> out;
  if (ts_node_is_null(node)) return out;
  analysis::walkTree(
      node,
      [&](TSNode n) {
        if (isKind(n, kind::identifier)) {
          TSNode parent = ts_node_parent(n);
          bool member = isKind(parent, kind::attribute) && analysis::sameNode(fieldOf(parent, "attribute"), n);
          bool keyword = isKind(parent, kind::keyword_argument) && analysis::sameNode(fieldOf(parent, "name"), n);
          if (!member && !keyword) out.push_back(n);
          return false;
        }
        return !isKind(n, kind::lambda);
      },
      [](TSNode) {});
  return out;
}

// `x.transpose(-2, -1)`, parenthesised when needed.
std::string transposedText(TSNode node, std::string_view source) {
  std::string text(analysis::textOf(node, source));
  return (isAtomic(unparenthesize(node)) ? text : "(" + text + ")") + ".transpose(-2, -1)";
}

}  // namespace

// The rewrite, or nullopt with `why` saying (for the help) what keeps it from being faithful.
std::optional<quickfix::Fix> buildFix(const Pattern& p, const ScaleInfo& scale, const FunctionFlow& flow, Matcher& m,
                                      Context& ctx, std::string& why) {
  auto refuse = [&](std::string reason) -> std::optional<quickfix::Fix> {
    why = std::move(reason);
    return std::nullopt;
  };
  if (p.opaque_mod)
    return refuse("the scores go through " + p.score_mod +
                  " before the softmax; pass a bias as `attn_mask` or use `flex_attention`");
  if (!p.score_mod.empty())
    return refuse("the scores go through " + p.score_mod +
                  ", which `scaled_dot_product_attention` cannot express; `torch.nn.attention.flex_attention` "
                  "(PyTorch 2.5+) with a `score_mod` does");
  if (!p.no_fix.empty()) return refuse(p.no_fix);
  if (p.conditional)
    return refuse("a step is assigned in a branch, so one rewrite cannot cover every path");
  if (p.masks > 1) return refuse("the scores are masked more than once; SDPA takes one `attn_mask`");
  if (p.dropouts > 1) return refuse("dropout is applied more than once");
  if (p.scale_after_additive)
    return refuse("the scale also multiplies the added mask, while SDPA scales only Q·Kᵀ");
  std::string_view source = ctx.source();
  // In a method, `F.dropout(x, p)` (`training` defaults to True) drops in evaluation too: that
  // is almost always an oversight, and `dropout_p=p` would carry it into the new call.
  if (!ts_node_is_null(p.dropout_without_training)) {
    TSNode function = attention::enclosingFunctionOrModule(p.dropout_without_training);
    TSNode params = isKind(function, kind::function_definition) ? fieldOf(function, "parameters") : TSNode{};
    TSNode first = ts_node_is_null(params) ? TSNode{} : ts_node_named_child(params, 0);
    if (!ts_node_is_null(first) && isKind(first, kind::identifier) && m.text(first) == "self")
      return refuse("`F.dropout` without `training=` also drops in eval; pass `training=self.training` first");
  }

  // The ranks SDPA's operands visibly have.
  {
    int rq = m.visibleRank(p.q), rk = m.visibleRank(p.k), rv = m.visibleRank(p.v);
    int ranks[] = {rq, rk, rv};
    int known = 0;
    bool differ = false;
    for (int r : ranks) {
      if (r == 0) continue;
      if (known != 0 && r != known) differ = true;
      known = r;
    }
    if (differ)
      return refuse("q, k and v visibly have different ranks (" + (rq ? std::to_string(rq) : std::string("?")) + ", " +
                    (rk ? std::to_string(rk) : std::string("?")) + ", " + (rv ? std::to_string(rv) : std::string("?")) +
                    ")");
    // Every fused kernel takes 4-D (batch, heads, length, head dim) operands; with any other
    // rank SDPA runs its math path, no faster than the code as written
    // (`ATen/native/transformers/sdp_utils_cpp.h`, `check_tensor_shapes`).
    int rank = known != 0 ? known : p.rank;
    if (rank != 4)
      return refuse(rank == 0 ? std::string("q, k and v are not provably 4-D, as every fused SDPA kernel needs")
                              : "q, k and v are " + std::to_string(rank) + "-D; every fused SDPA kernel needs 4-D");
  }

  // scale=, or the scale folded into the query.
  std::string scale_arg;
  std::string fold;  // " * factor" / " / factor" applied to the query
  if (p.scales == 0) {
    scale_arg = "1.0";
  } else if (!scale.provably_default) {
    TSNode factor = unparenthesize(p.scale_factor);
    std::string text(m.text(factor));
    std::string operand = isAtomic(factor) ? text : "(" + text + ")";
    if (m.provablyNumber(factor, flow)) {
      if (releases::existsAt("torch.nn.functional.scaled_dot_product_attention(scale=)", ctx.settings().torch_version)) {
        if (p.scale_divides)
          scale_arg = "1 / " + operand;
        else
          scale_arg = argumentText(factor, source);
      } else if (!scale.conventional) {
        return refuse("the scale is not SDPA's default `1/sqrt(E)`, and `scale=` needs PyTorch 2.1 (torch-version starts at " + ctx.torchFloorText() + ")");
      }
    } else if (m.foldable(factor, flow)) {
      if (!releases::existsAt("torch.nn.functional.scaled_dot_product_attention(scale=)", ctx.settings().torch_version))
        return refuse("the scale `" + text + "` is a tensor: it would be folded into the query with `scale=1.0`, "
                      "which needs PyTorch 2.1 (torch-version starts at " + ctx.torchFloorText() + ")");
      fold = (p.scale_divides ? " / " : " * ") + operand;
      scale_arg = "1.0";
    } else {
      return refuse("the scale `" + text + "` is not provably a Python number (SDPA's `scale=` takes a float), "
                    "and folding it into the query is not provably exact");
    }
  }

  if (!scale_arg.empty() && !releases::existsAt("torch.nn.functional.scaled_dot_product_attention(scale=)", ctx.settings().torch_version))
    return refuse("the scores are not scaled, and SDPA's `scale=1.0` needs PyTorch 2.1 (torch-version starts at " + ctx.torchFloorText() + ")");

  // The statement holding ·V stays; every followed assignment goes.
  TSNode final_statement = attention::enclosingStatement(p.final_node);
  if (ts_node_is_null(final_statement)) return refuse("the ·V product is not inside a plain statement");
  TSNode block = ts_node_parent(final_statement);
  std::vector<const Definition*> consumed = p.consumed;
  std::sort(consumed.begin(), consumed.end());
  consumed.erase(std::unique(consumed.begin(), consumed.end()), consumed.end());
  std::vector<TSNode> statements;
  for (const Definition* def : consumed) {
    if (!isKind(def->statement, kind::expression_statement) || ts_node_named_child_count(def->statement) != 1 ||
        !analysis::sameNode(ts_node_parent(def->statement), block) || endOf(def->statement) > startOf(final_statement))
      return refuse("`" + std::string(def->name) + "` is assigned in a statement the rewrite cannot remove on its own");
    bool seen = false;
    for (TSNode s : statements) seen = seen || analysis::sameNode(s, def->statement);
    if (!seen) statements.push_back(def->statement);
  }
  auto insideRemoved = [&](TSNode node) {
    if (analysis::contains(p.final_node, node)) return true;
    for (TSNode s : statements)
      if (analysis::contains(s, node)) return true;
    return false;
  };
  // Nothing else may read a value the fix removes (`return out, attn`).
  for (const Definition* def : consumed) {
    for (TSNode use : flow.uses()) {
      if (m.text(use) != def->name || startOf(use) < startOf(def->node)) continue;
      if (flow.reaching(def->name, startOf(use)) != def) continue;
      if (!insideRemoved(use))
        return refuse("`" + std::string(def->name) +
                      "` is also read outside the pattern (SDPA returns neither the scores nor the attention weights)");
    }
  }
  // What moves into the call must mean the same at the ·V product.
  std::vector<TSNode> moved{p.q, p.k, p.v};
  if (p.mask == MaskKind::Boolean || p.mask == MaskKind::Additive) moved.push_back(p.mask_node);
  if (!scale_arg.empty() && p.scales > 0) moved.push_back(p.scale_factor);
  if (!ts_node_is_null(p.dropout_p_node)) moved.push_back(p.dropout_p_node);
  for (TSNode expr : moved) {
    if (ts_node_is_null(expr)) continue;
    for (TSNode id : identifiersIn(expr)) {
      std::string_view name = m.text(id);
      const Definition* def = flow.reaching(name, startOf(id));
      // (The statement holding ·V may assign its result to the same name: that happens after.)
      if (flow.definedBetween(name, startOf(id), startOf(final_statement)) ||
          (def != nullptr && std::find(consumed.begin(), consumed.end(), def) != consumed.end()))
        return refuse("`" + std::string(name) + "` changes between the scores and the ·V product");
    }
  }

  // The function's spelling: `F`, `nn.functional`, or the torch module.
  bool needs_import = false;
  std::string function;
  if (auto f = ctx.model().visibleNameFor("torch.nn.functional", p.final_node)) {
    function = *f + ".scaled_dot_product_attention";
  } else if (auto nn = ctx.model().visibleNameFor("torch.nn", p.final_node)) {
    function = *nn + ".functional.scaled_dot_product_attention";
  } else {
    std::string torch = torchModuleName(ctx.model(), p.final_node, needs_import);
    if (torch.empty()) return refuse("no name for `torch` is visible here");
    function = torch + ".nn.functional.scaled_dot_product_attention";
  }

  std::string query = p.q_transposed ? transposedText(p.q, source) : std::string(m.text(p.q));
  if (!fold.empty()) query = (p.q_transposed || isAtomic(unparenthesize(p.q)) ? query : "(" + query + ")") + fold;
  std::string key = p.k_transposed ? transposedText(p.k, source) : std::string(m.text(p.k));
  std::string value = p.v_transposed ? transposedText(p.v, source) : argumentText(p.v, source);
  std::string call = function + "(" + query + ", " + key + ", " + value;
  if (p.mask == MaskKind::Boolean) {
    call += ", attn_mask=" + p.attn_mask;
  } else if (p.mask == MaskKind::Additive) {
    // The scores took the mask's dtype by promotion; SDPA wants it in the query's (the
    // memory-efficient kernel raises on an fp32 mask with bf16 queries).
    bool atomic = !ts_node_is_null(p.mask_node) && isAtomic(unparenthesize(p.mask_node)) &&
                  p.attn_mask == m.text(unparenthesize(p.mask_node));
    std::string q_text(m.text(p.q));
    call += ", attn_mask=" + (atomic ? p.attn_mask : "(" + p.attn_mask + ")") + ".to(" +
            (isAtomic(unparenthesize(p.q)) ? q_text : "(" + q_text + ")") + ".dtype)";
  }
  if (!p.dropout_p.empty()) call += ", dropout_p=" + p.dropout_p;
  if (p.mask == MaskKind::Causal) call += ", is_causal=True";
  if (!scale_arg.empty()) call += ", scale=" + scale_arg;
  call += ")";
  if (p.out_transposed) call += ".transpose(-2, -1)";

  quickfix::Fix fix;
  fix.applicability = quickfix::Applicability::Unsafe;
  // The title names the release the rewrite needs (SDPA 2.0, `scale=` 2.1), which the range's
  // oldest release has (checked above).
  fix.message = "Replace with `" + function + "(...)` (" +
                (scale_arg.empty() ? "PyTorch " + releases::addedIn("torch.nn.functional.scaled_dot_product_attention") + "+"
                                   : "`scale=`: PyTorch " +
                                         releases::addedIn("torch.nn.functional.scaled_dot_product_attention(scale=)") + "+") +
                "; judged for torch " + versions::rangeText(ctx.settings()) + ")";
  for (TSNode s : statements) {
    auto edit = deleteLines(s, ctx.file());
    if (!edit) return refuse("an intermediate step shares its line with other code");
    fix.edits.push_back(*edit);
  }
  fix.edits.push_back({startOf(p.final_node), endOf(p.final_node), call});
  if (needs_import) {
    auto edit = quickfix::addImport(ctx.model(), "import torch");
    if (!edit) return refuse("`torch` is imported only inside a block here, so no import is added at module level");
    for (const auto& e : fix.edits)
      if (e.start <= edit->start && edit->start < e.end) return refuse("`import torch` cannot be inserted here");
    fix.edits.push_back(*edit);
  }
  fix.sortEdits();
  return fix;
}

}  // namespace ptlint::rules::hand_rolled
