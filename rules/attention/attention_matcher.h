// PTL601's matcher: `softmax(Q·Kᵀ [scaled] [masked]) [dropout] · V` traced back from the ·V
// product through one function's assignments (attention_matcher.cpp), the operands' layouts and
// einsum subscripts (attention_shapes.cpp), and the values of scales and sizes
// (attention_values.cpp). The rule and its documentation: hand_rolled_attention.cpp.
#pragma once

#include <tree_sitter/api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/syntax.h"
#include "rules/attention/attention_flow.h"
#include "rules/attention_facts.h"
#include "rules/helpers.h"
#include "rules/rule.h"

namespace ptlint::rules::hand_rolled {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;
using analysis::startOf;
using analysis::unparenthesize;
using attention::Definition;
using attention::FunctionFlow;

inline constexpr int kMaxDepth = 40;
// Backtracking over branches and operand orders is bounded by a step budget per ·V product, so
// hostile inputs (deeply branched reassignments) stay linear.
inline constexpr int kMaxSteps = 4000;

enum class MaskKind { None, Boolean, Additive, Causal };

// What the matcher recognised, step by step, from the ·V product backwards.
struct Pattern {
  TSNode final_node{};  // P · V
  TSNode qk_node{};     // Q · Kᵀ
  TSNode q{}, k{}, v{};
  AttentionFacts::Layout layout = AttentionFacts::Layout::BHTD;
  int rank = 0;  // of the scores, when known (bmm: 3, transpose(2, 3): 4, einsum)
  std::optional<long long> softmax_dim;

  int scales = 0;
  TSNode scale_factor{};
  bool scale_divides = false;
  bool scale_seen_outside = false;  // a scale step outside (after) the current position
  bool scale_after_additive = false;

  int masks = 0;
  MaskKind mask = MaskKind::None;
  std::string attn_mask;
  TSNode mask_node{};

  bool upcast = false;

  int dropouts = 0;
  std::string dropout_p;  // argument text; empty when none
  TSNode dropout_p_node{};
  std::optional<double> dropout_rate = 0.0;  // nullopt: an nn.Dropout of unknown rate
  TSNode dropout_without_training{};  // `F.dropout(x, p)`: `training` defaults to True

  std::vector<const Definition*> consumed;  // assignments the pattern runs through
  bool conditional = false;                 // followed a definition made in another block

  // Operands stored transposed relative to SDPA's (..., L, E) / (..., S, E) / (..., S, Ev):
  // the fix passes `x.transpose(-2, -1)` for them (`q @ k` with k laid out (..., E, S), a
  // channel-first einsum, `v @ attn.transpose(-2, -1)`), and transposes the result back.
  bool q_transposed = false, k_transposed = false, v_transposed = false, out_transposed = false;
  // A step SDPA cannot express (tanh soft-capping, a scale on both operands): reported, no fix.
  std::string score_mod;
  bool opaque_mod = false;  // a call the rule cannot see into (`self.rel_pos(attn)`)
  std::string no_fix;
};

bool isIntValue(TSNode node, std::string_view source, long long& out);

std::optional<double> numberValue(TSNode node, std::string_view source);

// The text of an expression as an argument: conditional expressions and lambdas get parentheses.
std::string argumentText(TSNode node, std::string_view source);

// Text of an operand that is safe next to a binary operator / unary `~`.
bool isAtomic(TSNode node);

struct Einsum {
  std::string a, b, out;  // operand and output subscripts, spaces removed
};

std::optional<Einsum> parseEinsum(TSNode string, std::string_view source);

// The operands of an einsum split into a shared batch prefix (letters, or `...`) and their two
// last letters; nullopt when the prefixes differ or a letter repeats.
struct EinsumParts {
  size_t batch = 0;  // letters in the prefix (`...` counts none)
  bool ellipsis = false;
  char a1, a2, b1, b2, o1, o2;
};

// `shared` is set when the second operand lacks one batch letter of the first and of the output:
// keys or values shared across heads (multi-query attention, `"b h i d, b j d -> b h i j"`).
std::optional<EinsumParts> einsumParts(const Einsum& e, bool* shared = nullptr);

// Q·Kᵀ: one letter `d` contracted, the query's other letter `i` and the key's `j` kept, the
// output ending in `i j` (the softmax over the last dimension runs over keys). Either operand may
// hold `d` first: `"bct,bcs->bts"` stores q and k channel-first.
struct ScoresShape {
  int rank = 0;  // 0 with `...`
  bool q_transposed = false, k_transposed = false;
  bool shared = false;  // keys shared across heads
};

std::optional<ScoresShape> scoresEinsum(const Einsum& e);

// P·V: the weights `i j` with `j` contracted against the values' `j e`, the output `i e`; the
// values and the output may hold `e` first (`"bts,bcs->bct"`).
struct ValuesShape {
  bool v_transposed = false, out_transposed = false;
  bool shared = false;  // values shared across heads
};

std::optional<ValuesShape> valuesEinsum(const Einsum& e);

inline constexpr const char* kSharedAcrossHeads =
    "the keys or values have no head axis (shared across heads): SDPA needs them with one "
    "(`k.unsqueeze(1)`; `enable_gqa=True` in PyTorch 2.5+)";

struct Matmul {
  TSNode left{}, right{};
  bool bmm = false;
  std::optional<Einsum> einsum;
};

class Matcher {
 public:
  Matcher(Context& ctx, const FunctionFlow& flow) : ctx_(ctx), flow_(flow), source_(ctx.source()) {}

  std::optional<Pattern> match(TSNode final_node);

  std::string_view text(TSNode node) const { return analysis::textOf(node, source_); }

  // ---- structure -------------------------------------------------------------------------

  // The method called on a tensor (`x.softmax(...)`), when the callee is not an import.
  std::string_view tensorMethod(TSNode call, TSNode* object = nullptr) const;

  std::string callee(TSNode call) const;

  // Argument by keyword, else by position (keywords take priority, as Python binds them).
  TSNode argument(TSNode call, size_t index, std::string_view keyword) const;

  bool plainCall(TSNode call) const { return !hasStarArguments(call) && !hasDoubleStarArguments(call); }

  std::optional<Matmul> asMatmul(TSNode node) const;

  // `self.<attr>` built in the class: the value of its only `self.<attr> = ...` or
  // `self.register_buffer("<attr>", ...)`; null when absent or ambiguous.
  TSNode classMember(TSNode attribute) const;

  // ---- what a scale is ----------------------------------------------------------------------

  // The parameter `name` of `function` (a function_definition): its default value and its
  // annotation, when it has them; false when `name` is no parameter.
  static bool parameterOf(TSNode function, std::string_view name, std::string_view source, TSNode& value,
                          TSNode& type);

  // An annotation that admits numbers only (`int`, `float`, `Optional[float]`, `int | None`).
  bool numericAnnotation(TSNode type, bool allow_none) const;

  // Whether `expr`, read in `flow`'s function, is provably a Python number (not a tensor): a
  // literal, arithmetic on numbers, `math.*`, `int(...)`/`float(...)`/`len(...)`, `x.shape[i]`,
  // `x.size(i)`, a local bound once to a number, a parameter whose default is a number or whose
  // annotation is `int`/`float`, `self.<attr>` built from such in the class.
  bool provablyNumber(TSNode expr, const FunctionFlow& flow, int depth = 0) const;

  // Whether the function passes parameter `name` as a size to a `torch.nn` layer (`nn.Linear(dim,
  // dim * 3)`, `nn.LayerNorm(dim)`): a tensor there raises, so the parameter is an int.
  bool sizedInBody(TSNode function, std::string_view name) const;

  // Whether multiplying the query by `expr` is exactly multiplying the scores by it: a tensor
  // whose shape is evidently a scalar or ends in 1 (constant along the keys), e.g. `self.temperature
  // = nn.Parameter(torch.ones(num_heads, 1, 1))`, `torch.tensor(0.125)`, `logit_scale.exp()`.
  bool foldable(TSNode expr, const FunctionFlow& flow, int depth = 0) const;

  // ---- following names -------------------------------------------------------------------

  // Definitions of `name` that may reach `use` (the last one; earlier ones when it was made in
  // a branch that does not enclose the use). Empty when the name is not local.
  std::vector<const Definition*> candidates(std::string_view name, uint32_t at, TSNode use) const;

  void noteFollowed(Pattern& p, const Definition* def, TSNode use) const;

  // Follows a local name bound by a plain assignment to its value (for operands like `kT`).
  TSNode followAssigned(TSNode node, Pattern& p) const;

  // ---- after the softmax: casts and dropout ------------------------------------------------

  bool spend() { return ++steps_ <= kMaxSteps; }

  bool traceProbs(TSNode expr, Pattern& p, int depth, bool);

  TSNode dropoutInput(TSNode call, Pattern& p) const;

  // The softmax's input, recording its dim and dtype; null when `call` is no softmax.
  TSNode softmaxInput(TSNode call, Pattern& p) const;

  // ---- before the softmax: mask, scale, upcast, then Q·Kᵀ --------------------------------

  bool traceScores(TSNode expr, Pattern& p, int depth);

  bool traceScoresName(std::string_view name, uint32_t at, TSNode use, Pattern& p, int depth);

  void recordScale(TSNode factor, bool divides, Pattern& p) const;

  bool scaleStep(TSNode scores, TSNode factor, bool divides, Pattern& p, int depth);

  bool scaleName(std::string_view name, uint32_t before, TSNode use, TSNode factor, bool divides, Pattern& p,
                 int depth);

  void recordAdditive(TSNode mask, Pattern& p) const;

  bool additiveStep(TSNode scores, TSNode mask, Pattern& p, int depth);

  bool additiveName(std::string_view name, uint32_t before, TSNode use, TSNode mask, Pattern& p, int depth);

  bool maskStep(TSNode scores, TSNode condition, TSNode fill, Pattern& p, int depth);

  // `cap * torch.tanh(scores / cap)` (Gemma-2, Grok soft-capping; either operand order, `.tanh()`
  // as a method): the scores inside; null for anything else.
  TSNode softCapped(TSNode expr) const;

  // A product that is itself Q·Kᵀ is never a scale factor or a mask.
  bool looksLikeScores(TSNode node) const;

  // `scores - scores.max(-1, keepdim=True)[0]` / `.amax(...)`: softmax-invariant.
  bool isMaxOf(TSNode maximum, TSNode scores) const;

  // ---- masks -------------------------------------------------------------------------------

  // `float(...)` and friends: the builtin, not shadowed by a local or an import.
  bool isBuiltinCall(TSNode node, std::string_view name) const;

  bool isLargeNegative(TSNode fill, int depth = 0) const;

  // Is `node` (after slicing and dtype casts) a lower-triangular ones matrix, i.e. `torch.tril(
  // torch.ones(...))`, bound locally or registered as a buffer?
  bool isTrilOnes(TSNode node, int depth = 0) const;

  // `scores.masked_fill(condition, -inf)`: positions where `condition` holds are excluded.
  bool maskFill(TSNode condition, TSNode fill, Pattern& p) const;

  // ---- Q·Kᵀ --------------------------------------------------------------------------------

  // `k.transpose(-2, -1)`, `k.mT`, `torch.transpose(k, -2, -1)`, `k.permute(0, 1, 3, 2)`:
  // returns `k`; null when the operand is not a transposed key.
  TSNode untransposed(TSNode node, bool bmm, int& rank) const;

  // A scale factor written on the query inside the product: `(q * self.scale) @ kᵀ`.
  bool scaleLike(TSNode node) const;

  // The value a local name holds at `at` when it was bound by a plain assignment; else `node`.
  TSNode boundValue(TSNode node) const;

  // The order of axes the last layout step of `expr` produces, as names: `x.permute(0, 2, 3, 1)`
  // -> 0 2 3 1, `x.transpose(1, 2)` (given the rank) -> 0 2 1 3, `rearrange(x, "b n (h d) -> b h d
  // n")` -> b h d n. Followed through names bound once and through a scale (`q = q * s`).
  std::vector<std::string> axisOrder(TSNode expr, int rank, int depth = 0) const;

  // Whether the key operand of `q @ k` is evidently stored (..., E, S): its layout step is the
  // query's with the last two axes swapped (`q = x.transpose(1, 2)`, `k = x.permute(0, 2, 3,
  // 1)`; `rearrange(..., "-> b h n d")` beside `"-> b h d n"`).
  bool keyStoredTransposed(TSNode query, TSNode key) const;

  // The rank an operand visibly has (`view`/`reshape` with n sizes, `permute` of n axes, a
  // `rearrange` output), followed through names bound once; 0 when not visible.
  int visibleRank(TSNode expr, int depth = 0) const;

  bool qkProduct(TSNode expr, Pattern& p) const;

  Context& ctx_;
  const FunctionFlow& flow_;
  std::string_view source_;
  int steps_ = 0;
};

}  // namespace ptlint::rules::hand_rolled
