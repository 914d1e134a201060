// PTL704 unstable-numerics: log(1 + x), exp(x) - 1, log(sum(exp(x))) and log(softmax(x)) written
// out where PyTorch has a fused, numerically stable function.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/code_text.h"
#include "analysis/name_shapes.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "analysis/value_resolution.h"
#include "rules/register.h"
#include "rules/deprecated/call_rewrite.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;
using analysis::sameNode;
using analysis::startOf;
using analysis::unparenthesize;

constexpr RuleMeta kUnstableNumerics{
    .code = "PTL704",
    .name = "unstable-numerics",
    .summary = "A numerically unstable expression PyTorch has a stable function for",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "",
    .docs = R"md(
## What it does
Reports, on tensors:

| written | stable function |
| --- | --- |
| `torch.log(1 + x)`, `torch.log(x + 1)`, `(1 + x).log()` | `torch.log1p(x)`, `x.log1p()` |
| `torch.exp(x) - 1`, `x.exp() - 1` | `torch.expm1(x)`, `x.expm1()` |
| `torch.log(torch.sum(torch.exp(x), dim))`, `x.exp().sum(dim).log()` | `torch.logsumexp(x, dim)`, `x.logsumexp(dim)` |
| `torch.log(torch.softmax(x, dim))`, `torch.log(F.softmax(x, dim))`, `x.softmax(dim).log()` | `torch.log_softmax(x, dim)`, `F.log_softmax(x, dim)`, `x.log_softmax(dim)` |

Function forms count when the function resolves to `torch.log` / `torch.exp` / `torch.sum` /
`torch.softmax` / `torch.nn.functional.softmax` through the file's imports, so `math.log(1 + x)`
and `np.log(1 + x)` are never reported. Method forms count where the receiver is evidently a
tensor: `.log()`, `.exp()` and `.softmax()` are methods of tensors, not of Python numbers or
NumPy arrays.

## Why is this bad?
In floating point, `1 + x` rounds away the low bits of a small `x` (in float32 `1 + 1e-8 == 1`,
so `log(1 + x)` is 0 instead of about 1e-8), and `exp(x) - 1` cancels catastrophically for
small `x`. `exp(x)` overflows to `inf` for large `x` (above about 88 in float32), so
`log(sum(exp(x)))` and `log(softmax(x))` return `inf`, `-inf` or `nan` where `logsumexp` and
`log_softmax` subtract the maximum first and stay finite. `log(softmax(x))` also underflows
to `log(0) = -inf` for very negative logits, which then poisons the gradient.

## Example
```python
y = torch.log(1 + x)
z = torch.exp(x) - 1
lse = x.exp().sum(-1).log()
logp = torch.log(F.softmax(logits, dim=-1))
```

## Use instead
```python
y = torch.log1p(x)
z = torch.expm1(x)
lse = x.logsumexp(-1)
logp = F.log_softmax(logits, dim=-1)
```

## Fix safety
The fix is safe: the stable functions compute the same mathematical value, more accurately
(results can differ in the last bits, and are finite where the written form overflowed). A
Nothing is reported inside a function named after the stable function (`def logsumexp`,
`def _log_softmax`): that is its implementation, which cannot call itself.
`log(sum(exp(x)))` without a `dim`, or with `dim=None`, is reported without a fix (`logsumexp`
needs the dimensions and raises on `dim=None`), as is a call with `out=` or `dtype=` on the inner operation.

## Releases
The stable functions written (`log_softmax`, `logsumexp`, `log1p`, `BCEWithLogitsLoss`, ...) are
in `torch/nn/functional.py` and `torch/_torch_docs.py` of 1.13, 2.6 and 2.14: the premise and the
fixes hold 1.13–2.14.

## References
- [torch.log1p](https://pytorch.org/docs/stable/generated/torch.log1p.html),
  [torch.expm1](https://pytorch.org/docs/stable/generated/torch.expm1.html),
  [torch.logsumexp](https://pytorch.org/docs/stable/generated/torch.logsumexp.html),
  [torch.nn.functional.log_softmax](https://pytorch.org/docs/stable/generated/torch.nn.functional.log_softmax.html)
  ("While mathematically equivalent to log(softmax(x)), doing these two operations separately
  is slower and numerically unstable.")
)md"};

bool isOne(TSNode node, std::string_view source) {
  node = unparenthesize(node);
  analysis::NodeKind kind = kindOf(node);
  if (kind != kind::integer && kind != kind::float_) return false;
  std::string_view text = analysis::textOf(node, source);
  return text == "1" || text == "1.0" || text == "1.";
}

std::string_view op(TSNode binary, std::string_view source) {
  return analysis::textOf(fieldOf(binary, "operator"), source);
}

// `1 + x` / `x + 1`: the `x`, else null.
TSNode onePlus(TSNode node, std::string_view source) {
  node = unparenthesize(node);
  if (!isKind(node, kind::binary_operator) || op(node, source) != "+") return {};
  TSNode left = fieldOf(node, "left"), right = fieldOf(node, "right");
  if (isOne(left, source)) return right;
  if (isOne(right, source)) return left;
  return {};
}

// A call of a torch function named `qualified` with arguments we can move, or null.
bool callsTorch(TSNode call, std::string_view qualified, const Context& ctx) {
  if (!isKind(call, kind::call)) return false;
  TSNode callee = fieldOf(call, "function");
  std::string_view last = qualified.substr(qualified.rfind('.') + 1);
  std::string_view text = ctx.text(callee);
  if (!text.ends_with(last)) return false;
  return ctx.model().refersTo(callee, qualified);
}

// Can `node` hold a tensor? Not when it evidently holds a number of another library:
// `Decimal(x)`, `sympy.Symbol("x")`, `mpmath.mpf(1)`, a literal, or a name bound once to one of
// those (`d = Decimal(x)`). `Decimal.exp()` has no `expm1`, `log1p`, ... method.
bool mayBeTensor(TSNode node, const Context& ctx) {
  node = analysis::resolveValue(ctx.model(), node);
  analysis::NodeKind kind = kindOf(node);
  if (kind == kind::integer || kind == kind::float_ || kind == kind::string || kind == kind::true_ || kind == kind::false_ ||
      kind == kind::none || kind == kind::list || kind == kind::tuple || kind == kind::dictionary || kind == kind::set)
    return false;
  if (kind != kind::call) return true;
  auto q = ctx.model().qualifiedName(fieldOf(node, "function"));
  if (!q) return true;
  static constexpr std::array<std::string_view, 9> kOtherNumbers{"decimal.", "fractions.", "sympy.", "mpmath.",
                                                                 "gmpy2.", "cmath.", "math.", "numpy.", "jax."};
  for (std::string_view prefix : kOtherNumbers)
    if (q->starts_with(prefix)) return false;
  return *q != "float" && *q != "int" && *q != "complex";
}

// `recv.name(...)` method call: the receiver, else null. Receivers that resolve to a module
// (`torch.exp`, `np.exp`) are function calls, not methods; a receiver that cannot be a tensor
// (`Decimal(x).exp()`) is some other library's method.
TSNode methodReceiver(TSNode call, std::string_view name, const Context& ctx) {
  if (!isKind(call, kind::call)) return {};
  TSNode callee = fieldOf(call, "function");
  if (!isKind(callee, kind::attribute) || ctx.text(fieldOf(callee, "attribute")) != name) return {};
  TSNode object = fieldOf(callee, "object");
  if (ctx.model().qualifiedName(object)) return {};  // `torch.exp`, `math.exp`, `np.exp`
  if (!mayBeTensor(object, ctx)) return {};
  return object;
}

std::optional<rewrite::CallArgs> args(TSNode call, const Context& ctx) {
  return rewrite::plainArguments(call, ctx.source());
}

// The single tensor argument of `torch.exp(x)` / `x.exp()`, else null.
TSNode expOperand(TSNode node, const Context& ctx) {
  node = unparenthesize(node);
  if (callsTorch(node, "torch.exp", ctx)) {
    auto a = args(node, ctx);
    if (a && a->positional.size() == 1 && a->keywords.empty()) return a->positional[0];
    return {};
  }
  TSNode recv = methodReceiver(node, "exp", ctx);
  if (!ts_node_is_null(recv)) {
    auto a = args(node, ctx);
    if (a && a->positional.empty() && a->keywords.empty()) return recv;
  }
  return {};
}

std::string text(TSNode node, const Context& ctx) { return std::string(ctx.text(node)); }

// `x` as the receiver of a method call: parenthesised unless primary.
std::string receiverText(TSNode node, const Context& ctx) {
  node = unparenthesize(node);
  analysis::NodeKind kind = kindOf(node);
  if (kind == kind::identifier || kind == kind::attribute || kind == kind::call || kind == kind::subscript)
    return text(node, ctx);
  return "(" + text(node, ctx) + ")";
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// The callee that spells torch's `name` where `callee` spelled another torch function: the same
// module object (`T.log` -> `T.log1p`), else a visible `torch`.
std::optional<std::string> torchFunction(TSNode callee, std::string_view name, const Context& ctx, bool& needs_import) {
  needs_import = false;
  if (isKind(callee, kind::attribute) && ctx.model().refersTo(fieldOf(callee, "object"), "torch"))
    return text(fieldOf(callee, "object"), ctx) + "." + std::string(name);
  std::string prefix = rewrite::torchPrefix(callee, ctx.model(), needs_import);
  if (prefix.empty()) return std::nullopt;
  return prefix + "." + std::string(name);
}

struct Finding {
  std::string message;
  std::optional<std::string> replacement;  // the whole expression's new text
  bool needs_import = false;
  std::string_view stable;  // the function that computes it stably: "log1p", "logsumexp", ...
};

// The fix's title names the edit: the code itself when both sides are short, else the pattern
// and the function ("Replace `log(1 + x)` with `log1p(x)`", as the message spells them).
std::string fixTitle(const Finding& f, std::string_view old_text) {
  auto brief = [](std::string_view s) { return s.size() <= 40 && s.find('\n') == std::string_view::npos; };
  if (brief(old_text) && brief(*f.replacement))
    return fmt::format("Replace `{}` with `{}`", old_text, *f.replacement);
  size_t open = f.message.find('`'), close = f.message.find('`', open + 1);
  size_t last_close = f.message.rfind('`'), last_open = f.message.rfind('`', last_close - 1);
  return fmt::format("Replace `{}` with `{}`", f.message.substr(open + 1, close - open - 1),
                     f.message.substr(last_open + 1, last_close - last_open - 1));
}

// `sum(exp(x), dims...)` in function or method form: `x` and the reduction's arguments.
struct SumOfExp {
  TSNode operand{};
  std::vector<std::string> reduce_args;  // "-1", "dim=1", "keepdim=True"
  bool has_dim = false;
  bool movable = true;
};

// `sum(..., dim=None)` reduces every dimension; `torch.logsumexp` rejects `dim=None` (it raises
// "Please look up dimensions by name, got: name = None"; github.com/pytorch/pytorch/issues/121725).
bool isNone(TSNode node) { return analysis::isKind(unparenthesize(node), kind::none); }

std::optional<SumOfExp> sumOfExp(TSNode node, const Context& ctx) {
  node = unparenthesize(node);
  SumOfExp out;
  std::optional<rewrite::CallArgs> a;
  if (callsTorch(node, "torch.sum", ctx)) {
    a = args(node, ctx);
    if (!a || a->positional.empty()) return std::nullopt;
    out.operand = expOperand(a->positional[0], ctx);
    for (size_t i = 1; i < a->positional.size(); ++i) out.reduce_args.push_back(text(a->positional[i], ctx));
    out.has_dim = a->positional.size() > 1 && !isNone(a->positional[1]);
  } else {
    TSNode recv = methodReceiver(node, "sum", ctx);
    if (ts_node_is_null(recv)) return std::nullopt;
    a = args(node, ctx);
    if (!a) return std::nullopt;
    out.operand = expOperand(recv, ctx);
    for (TSNode p : a->positional) out.reduce_args.push_back(text(p, ctx));
    out.has_dim = !a->positional.empty() && !isNone(a->positional[0]);
  }
  if (ts_node_is_null(out.operand)) return std::nullopt;
  for (const auto& [name, kw] : a->keywords) {
    if (name == "dim") out.has_dim = !isNone(analysis::fieldOf(kw, "value"));
    else if (name != "keepdim") out.movable = false;  // dtype=, out=
    out.reduce_args.push_back(text(kw, ctx));
  }
  return out;
}

// `softmax(x, ...)` in function or method form: the call, what it is, its callee.
struct Softmax {
  TSNode call{};
  TSNode receiver{};  // method form
  bool function = false;
};

std::optional<Softmax> softmaxCall(TSNode node, const Context& ctx) {
  node = unparenthesize(node);
  if (callsTorch(node, "torch.softmax", ctx) || callsTorch(node, "torch.nn.functional.softmax", ctx))
    return Softmax{node, {}, true};
  TSNode recv = methodReceiver(node, "softmax", ctx);
  if (!ts_node_is_null(recv)) return Softmax{node, recv, false};
  return std::nullopt;
}

// `F.softmax(x, -1)` -> `F.log_softmax(x, -1)`; `x.softmax(-1)` -> `x.log_softmax(-1)`.
std::optional<std::string> logSoftmaxText(const Softmax& s, const Context& ctx, bool& needs_import) {
  needs_import = false;
  auto a = args(s.call, ctx);
  if (!a) return std::nullopt;
  TSNode callee = fieldOf(s.call, "function");
  std::string list(ctx.text(argumentList(s.call)));
  if (!s.function) return receiverText(s.receiver, ctx) + ".log_softmax" + list;
  if (isKind(callee, kind::attribute)) return text(fieldOf(callee, "object"), ctx) + ".log_softmax" + list;
  auto q = ctx.model().qualifiedName(callee);  // `from torch.nn.functional import softmax`
  std::string prefix = rewrite::torchPrefix(callee, ctx.model(), needs_import);
  if (!q || prefix.empty()) return std::nullopt;
  std::string module = q->substr(0, q->rfind('.'));  // torch or torch.nn.functional
  return prefix + module.substr(5) + ".log_softmax" + list;
}

// The inside of a `log(...)`: what it computes, and its stable replacement.
std::optional<Finding> logOf(TSNode inner, const Context& ctx, TSNode log_callee, bool method) {
  std::string_view source = ctx.source();
  Finding f;
  if (TSNode x = onePlus(inner, source); !ts_node_is_null(x)) {
    f.message = "`log(1 + x)` loses a small `x`; use `log1p(x)`";
    f.stable = "log1p";
    if (method) f.replacement = receiverText(x, ctx) + ".log1p()";
    else if (auto fn = torchFunction(log_callee, "log1p", ctx, f.needs_import)) f.replacement = *fn + "(" + text(x, ctx) + ")";
    return f;
  }
  if (auto s = sumOfExp(inner, ctx)) {
    f.message = "`log(sum(exp(x)))` overflows for large `x`; use `logsumexp(x, dim)`";
    f.stable = "logsumexp";
    if (!s->has_dim || !s->movable) return f;
    std::vector<std::string> parts{text(s->operand, ctx)};
    parts.insert(parts.end(), s->reduce_args.begin(), s->reduce_args.end());
    if (method) f.replacement = receiverText(s->operand, ctx) + ".logsumexp(" + joined(s->reduce_args) + ")";
    else if (auto fn = torchFunction(log_callee, "logsumexp", ctx, f.needs_import)) f.replacement = *fn + "(" + joined(parts) + ")";
    return f;
  }
  if (auto s = softmaxCall(inner, ctx)) {
    f.message = "`log(softmax(x))` gives `-inf` where softmax underflows; use `log_softmax(x)`";
    f.stable = "log_softmax";
    f.replacement = logSoftmaxText(*s, ctx, f.needs_import);
    return f;
  }
  return std::nullopt;
}

// Byte-level shapes of the findings, on code whose strings and comments are blanked. Each test
// is necessary for a finding at that place and conservative where the text is unclear.
namespace sites {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\\'; }
bool isTokenByte(char c) { return analysis::isIdentifierByte(c) || c == '.'; }
bool isOneToken(std::string_view t) { return t == "1" || t == "1." || t == "1.0"; }

// The offset of the bracket that closes the one at `open`, or npos.
size_t closing(std::string_view code, size_t open) {
  int depth = 0;
  for (size_t i = open; i < code.size(); ++i) {
    char c = code[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// The offset of the bracket that opens the one that closes at `close`, or npos.
size_t opening(std::string_view code, size_t close) {
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    char c = code[i];
    if (c == ')' || c == ']' || c == '}') ++depth;
    else if ((c == '(' || c == '[' || c == '{') && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// The start of the primary expression (names, dots, calls, subscripts, parentheses) that ends
// just before `end`, or npos when unclear.
size_t primaryStart(std::string_view code, size_t end) {
  size_t i = end;
  while (i > 0 && isSpace(code[i - 1])) --i;
  size_t start = i;
  while (i > 0) {
    char c = code[i - 1];
    if (c == ')' || c == ']') {
      size_t open = opening(code, i - 1);
      if (open == std::string_view::npos) return std::string_view::npos;
      i = open;
    } else if (isTokenByte(c)) {
      while (i > 0 && isTokenByte(code[i - 1])) --i;
    } else {
      break;
    }
    start = i;
    size_t j = i;
    while (j > 0 && isSpace(code[j - 1])) --j;
    if (j > 0 && (code[j - 1] == '.' || code[j - 1] == ')' || code[j - 1] == ']' || isTokenByte(code[j - 1])) &&
        (code[i] == '(' || code[i] == '[' || code[i] == '.' || code[j - 1] == '.'))
      i = j;
    else
      break;
  }
  return start;
}

// `region` without blanks around it and without parentheses that enclose all of it.
std::string_view stripParens(std::string_view region) {
  for (;;) {
    size_t b = 0, e = region.size();
    while (b < e && isSpace(region[b])) ++b;
    while (e > b && isSpace(region[e - 1])) --e;
    region = region.substr(b, e - b);
    if (region.size() < 2 || region.front() != '(' || closing(region, 0) != region.size() - 1) return region;
    region = region.substr(1, region.size() - 2);
  }
}

// Does `region` hold a `+` with a `1` (`1.`, `1.0`) operand on either side? Only a `+` outside
// every bracket of the region counts (the operand, parentheses around it stripped, must be the
// sum itself: `((1 + t) / (1 - t)).log()` is no `log(1 + x)`), unless a string is in it (an
// f-string's text may hold brackets).
bool hasOnePlus(std::string_view region) {
  region = stripParens(region);
  bool quoted = region.find_first_of("\"'") != std::string_view::npos;
  int depth = 0;
  size_t counted = 0;  // bytes of `region` whose brackets are in `depth`
  for (size_t at = region.find('+'); at != std::string_view::npos; at = region.find('+', at + 1)) {
    for (; counted < at; ++counted) {
      char c = region[counted];
      if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') --depth;
    }
    if (!quoted && depth != 0) continue;
    size_t l = at;
    while (l > 0 && (isSpace(region[l - 1]) || region[l - 1] == ')')) --l;
    size_t lb = l;
    while (lb > 0 && isTokenByte(region[lb - 1])) --lb;
    if (isOneToken(region.substr(lb, l - lb))) return true;
    size_t r = at + 1;
    while (r < region.size() && (isSpace(region[r]) || region[r] == '(')) ++r;
    size_t re = r;
    while (re < region.size() && isTokenByte(region[re])) ++re;
    if (isOneToken(region.substr(r, re - r))) return true;
  }
  return false;
}

bool has(std::string_view region, std::string_view part) { return analysis::findBytes(region, part) != std::string_view::npos; }

// The operand shapes `logOf` accepts: `1 + x`, a softmax call, a sum of an exp.
bool mayBeLogOperand(std::string_view region) {
  return hasOnePlus(region) || has(region, "softmax") || (has(region, "sum") && has(region, "exp"));
}

// `N.word(args)` with its `(` at `open` (closing at `close`), N a bare name that cannot be bound
// to torch (`np.log(1 + x)`, `math.exp(x) - 1`): it is no call of torch's function (N is not
// torch), and no tensor method either (the rule's `x.log()` / `x.exp()` take no argument).
bool otherModuleCall(std::string_view code, size_t word_at, size_t open, size_t close) {
  if (close == std::string_view::npos || analysis::skipSpaceForward(code, open + 1) >= close) return false;
  analysis::Receiver receiver = analysis::receiverOf(code, word_at);
  return receiver.kind == analysis::Receiver::Kind::Name && receiver.name != "torch" &&
         !analysis::mayBeRebound(code, receiver.name);
}

// `log(...)` with such an argument, `(...).log()` on such a receiver, or `exp(...) - 1`.
bool someSiteMayMatch(std::string_view code) {
  constexpr size_t npos = std::string_view::npos;
  bool found = analysis::forEachWholeWord(code, "log", [&](size_t at) {
    size_t i = at + 3;
    while (i < code.size() && isSpace(code[i])) ++i;
    if (i >= code.size() || code[i] != '(') return false;
    size_t close = closing(code, i);
    if (close == npos) return true;
    if (otherModuleCall(code, at, i, close)) return false;
    if (mayBeLogOperand(code.substr(i + 1, close - i - 1))) return true;
    size_t dot = at;
    while (dot > 0 && isSpace(code[dot - 1])) --dot;
    if (dot == 0 || code[dot - 1] != '.') return false;
    size_t start = primaryStart(code, dot - 1);
    return start == npos || mayBeLogOperand(code.substr(start, dot - 1 - start));
  });
  if (found) return true;
  for (size_t at = code.find('-'); at != npos; at = code.find('-', at + 1)) {
    size_t r = at + 1;
    while (r < code.size() && (isSpace(code[r]) || code[r] == '(')) ++r;
    size_t re = r;
    while (re < code.size() && isTokenByte(code[re])) ++re;
    if (!isOneToken(code.substr(r, re - r))) continue;
    size_t start = primaryStart(code, at);
    if (start == npos) return true;
    if (!has(code.substr(start, at - start), "exp")) continue;
    // `np.exp(x) - 1`: the left operand is a call of another module's `exp`.
    size_t end = analysis::skipSpaceBack(code, at);
    if (end > start && code[end - 1] == ')') {
      size_t open = opening(code, end - 1);
      size_t word_end = open == npos ? npos : analysis::skipSpaceBack(code, open);
      if (open != npos && open > start && word_end >= start + 3 && code.substr(word_end - 3, 3) == "exp" &&
          analysis::isWholeWordAt(code, word_end - 3, 3) && otherModuleCall(code, word_end - 3, open, end - 1))
        continue;
    }
    return true;
  }
  return false;
}

}  // namespace sites
using sites::someSiteMayMatch;

class UnstableNumerics final : public Rule {
 public:
  const RuleMeta& meta() const override { return kUnstableNumerics; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call, kind::binary_operator}; }
  // `log(1 + x)` / `(x + 1).log()` hold `(1 +` or `+ 1)`; `exp(x) - 1` holds `) - 1`; the
  // others a `softmax`, or `exp` and `sum`, beside a `log`.
  // The same test on the text without its strings and comments (a docstring's `log(1 + x)`),
  // then one that looks at each `log` / `- 1` in that code for the operands the rule asks for.
  // (Whatever mayMatchCode finds in the code it finds in the text: blanking adds no word and no
  // spelling, so with a code view the text needs no test of its own.)
  Prefilter prefilter() const override { return {.words = {"log", "exp"}, .whole_words = true}; }
  bool mayReport(const PrefilterInput& input, const Settings&) const override {
    if (input.parsed != nullptr) return true;
    const analysis::PrefilterText& source = input.source;
    // The text first unless another prefilter already made the code view (cheaper than making it).
    if (!source.codeComputed() && !mayMatchCode(source.text())) return false;
    const std::string* code = source.code();
    if (code == nullptr) return mayMatchCode(source.text());
    return mayMatchCode(*code) && someSiteMayMatch(*code);
  }

  // One pass over the text for every word and operand spelling below.
  static bool mayMatchCode(std::string_view text) {
    static constexpr std::array<std::string_view, 16> kWords{
        "log", "exp", "softmax", "sum", ") - 1", ")-1",
        "(1 +", "(1+", "(1.0 +", "(1.0+", "(1. +", "+ 1)", "+1)", "+ 1.0)", "+1.0)", "+ 1.)"};
    enum { kLog, kExp, kSoftmax, kSum, kMinusOne, kMinusOneTight, kFirstOnePlus };
    static const analysis::WordSet words(kWords);
    analysis::WordSet::Found found = words.scan(text);
    bool log = found.wholeWord(kLog), exp = found.wholeWord(kExp);
    if (exp && (found.substring(kMinusOne) || found.substring(kMinusOneTight))) return true;
    if (!log) return false;
    for (size_t k = kFirstOnePlus; k < kWords.size(); ++k)
      if (found.substring(k)) return true;
    return found.wholeWord(kSoftmax) || (exp && found.wholeWord(kSum));
  }

  // Every finding is a call spelling `log`, or a `- 1` (the operator, then past blanks, comments
  // and parentheses, a literal starting with `1`).
  bool checksWithinRanges() const override { return true; }
  std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel& model,
                                                         const Settings&) const override {
    // Calls and operators are code: strings and comments need no look.
    const std::optional<std::string>& code = analysis::codeOf(model.file());
    std::string_view text = code ? std::string_view(*code) : model.file().text();
    auto ranges = wordRanges(text, {"log"});
    auto isBlank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\\'; };
    for (size_t at = text.find('-'); at != std::string_view::npos; at = text.find('-', at + 1)) {
      // After `=`, `(`, `[`, `,`, `:` or `{` a minus is unary (`dim=-1`, `x[:-1]`), no
      // subtraction. Only where comments are blanked can the byte before be trusted.
      if (code) {
        size_t before = at;
        while (before > 0 && isBlank(text[before - 1])) --before;
        if (before > 0 && std::string_view("=([,:{").find(text[before - 1]) != std::string_view::npos) continue;
      }
      size_t i = at + 1;
      while (i < text.size()) {
        char c = text[i];
        if (isBlank(c) || c == '(') {
          ++i;
        } else if (c == '#') {
          while (i < text.size() && text[i] != '\n' && text[i] != '\r') ++i;
        } else {
          break;
        }
      }
      if (i < text.size() && text[i] == '1') ranges.emplace_back(static_cast<uint32_t>(at), static_cast<uint32_t>(at + 1));
    }
    return ranges;
  }

  // `def logsumexp(x, dim): ... torch.sum(torch.exp(x), dim).log()`: an implementation (or
  // decomposition) of the stable function itself, which cannot call itself instead.
  static bool insideDefinitionOf(TSNode node, std::string_view name, const Context& ctx) {
    for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
      if (!isKind(n, kind::function_definition)) continue;
      std::string_view def = ctx.text(fieldOf(n, "name"));
      return def == name || (def.size() > name.size() && def.ends_with(name) && def[def.size() - name.size() - 1] == '_');
    }
    return false;
  }

  void check(TSNode node, Context& ctx) const override {
    std::optional<Finding> f;
    if (isKind(node, kind::binary_operator)) {
      // exp(x) - 1
      if (op(node, ctx.source()) != "-" || !isOne(fieldOf(node, "right"), ctx.source())) return;
      TSNode left = unparenthesize(fieldOf(node, "left"));
      TSNode x = expOperand(left, ctx);
      if (ts_node_is_null(x)) return;
      f = Finding{"`exp(x) - 1` cancels catastrophically for small `x`; use `expm1(x)`", std::nullopt, false, "expm1"};
      if (isKind(left, kind::call) && ts_node_is_null(methodReceiver(left, "exp", ctx))) {
        if (auto fn = torchFunction(fieldOf(left, "function"), "expm1", ctx, f->needs_import))
          f->replacement = *fn + "(" + text(x, ctx) + ")";
      } else {
        f->replacement = receiverText(x, ctx) + ".expm1()";
      }
    } else {
      TSNode callee = fieldOf(node, "function");
      if (!isKind(callee, kind::attribute) && !isKind(callee, kind::identifier)) return;
      std::string_view last = isKind(callee, kind::attribute) ? ctx.text(fieldOf(callee, "attribute")) : ctx.text(callee);
      if (last != "log") return;
      auto a = args(node, ctx);
      if (callsTorch(node, "torch.log", ctx)) {
        if (!a || a->positional.size() != 1 || !a->keywords.empty()) return;
        f = logOf(a->positional[0], ctx, callee, false);
      } else {
        TSNode recv = methodReceiver(node, "log", ctx);
        if (ts_node_is_null(recv) || !a || !a->positional.empty() || !a->keywords.empty()) return;
        // `(1 + x).log()`: only parenthesised sums; `x.exp().sum(-1).log()`; `x.softmax(-1).log()`.
        f = logOf(recv, ctx, callee, true);
      }
    }
    if (!f || insideDefinitionOf(node, f->stable, ctx)) return;
    Diagnostic& d = ctx.report(node, f->message);
    if (!f->replacement) return;
    // The replacement is a call: parentheses that only grouped the old expression
    // (`(torch.exp(x) - 1) * c`) go with it.
    TSNode replaced = node;
    TSNode parent = ts_node_parent(node);
    if (isKind(parent, kind::parenthesized_expression) && ts_node_named_child_count(parent) == 1) replaced = parent;
    std::vector<quickfix::Edit> edits{{startOf(replaced), endOf(replaced), *f->replacement}};
    if (f->needs_import) {
      auto edit = quickfix::addImport(ctx.model(), "import torch");
      if (!edit) return;
      edits.push_back(std::move(*edit));
    }
    if (!quickfix::normalizeEdits(edits)) return;
    d.fix = quickfix::Fix{quickfix::Applicability::Safe, fixTitle(*f, ctx.text(replaced)), std::move(edits)};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL704, UnstableNumerics)

}  // namespace ptlint::rules
