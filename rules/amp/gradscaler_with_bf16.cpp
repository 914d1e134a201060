// PTL201 gradscaler-with-bf16: a GradScaler next to an autocast whose dtype is bfloat16.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/all_rules.h"
#include "rules/amp/autocast_dtype.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;

constexpr RuleMeta kGradScalerWithBf16{
    .code = "PTL201",
    .name = "gradscaler-with-bf16",
    .summary = "A GradScaler used together with a bfloat16 autocast",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.10",
    .docs = R"md(
## What it does
Reports a `GradScaler` (`torch.amp.GradScaler`, the deprecated `torch.cuda.amp.GradScaler` /
`torch.cpu.amp.GradScaler`, FSDP's `ShardedGradScaler`) created in the same function as an
autocast region whose dtype is `torch.bfloat16` — or with both at module level. The dtype is
followed through aliases (`import torch as T; T.bfloat16`), names bound once
(`amp_dtype = torch.bfloat16`), module constants, the `dtype=` keyword or the positional slot
(`torch.autocast("cuda", torch.bfloat16)`), and autocast objects built once and entered later
(`ctx = torch.autocast(...)`, `with ctx:`). The bf16 autocast is shown as related information.

Not reported, because the source does not pin the dtype down or already handles it: a dtype
that is a parameter, an attribute or a conditional (`torch.bfloat16 if bf16 else
torch.float16`); a scaler with `enabled=False`, or whose `enabled=` expression (or an enclosing
`if`) tests the dtype (`enabled=(dtype == "float16")`, `enabled=not args.bf16`); a scaler and an
autocast in mutually exclusive branches; an autocast with `enabled=False`.

## Why is this bad?
Loss scaling exists for float16, whose 5-bit exponent makes small gradients underflow to zero.
bfloat16 has the same 8-bit exponent as float32, so its gradients do not underflow and the
scaler only costs work: an extra multiply of the loss, an unscale and an inf/NaN check of every
gradient (a device-to-host sync) per step, plus skipped steps while the scale calibrates. The
operational guide in `seeds/000` (section *AMP / bfloat16 / FP16*) puts it plainly:
"GradScaler is FP16-only — bfloat16 has the same 8-bit exponent as fp32, so under/overflow is
rare. Don't use it with bf16." PyTorch's AMP recipe likewise pairs the scaler with float16 only.
bf16 autocast exists since PyTorch 1.10; `torch.amp.GradScaler("cuda")` replaced
`torch.cuda.amp.GradScaler` in 2.3.

## Example
```python
import torch

scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
```

## Use instead
```python
import torch

for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).loss
    loss.backward()
    optimizer.step()
```
When the dtype is configurable, gate the scaler on it:
`torch.amp.GradScaler("cuda", enabled=(amp_dtype == torch.float16))`.

## Fix safety
The fix adds `enabled=False` to the scaler (or replaces its `enabled=` value). A disabled scaler
makes `scale()`, `step()` and `update()` pass-throughs, so the training loop keeps working. It is
unsafe because it changes training numerics (no more loss scaling, no more skipped steps), and
the scaler may also serve a float16 path that the analysis could not see.

## References
- `seeds/000_cb4862440f544e40.txt`, *AMP / bfloat16 / FP16*: "GradScaler is FP16-only".
- [Automatic Mixed Precision package: gradient scaling](https://pytorch.org/docs/stable/amp.html#gradient-scaling)
- [CUDA Automatic Mixed Precision examples](https://pytorch.org/docs/stable/notes/amp_examples.html)
)md"};

bool isGradScalerName(std::string_view name) {
  return name == "torch.amp.GradScaler" || name == "torch.cuda.amp.GradScaler" || name == "torch.cpu.amp.GradScaler" ||
         name == "torch.distributed.fsdp.sharded_grad_scaler.ShardedGradScaler" ||
         name == "torch.distributed.fsdp.ShardedGradScaler";
}

// Position of `enabled` among the scaler's positional parameters.
size_t enabledSlot(std::string_view name) {
  return name == "torch.cuda.amp.GradScaler" || name == "torch.cpu.amp.GradScaler" ? 4 : 5;
}

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A name that speaks of the precision: `amp_dtype`, `args.fp16`, `use_bf16`, `is_bf16_supported`,
// `half_precision`, `mixed_precision`.
bool isPrecisionWord(std::string_view identifier) {
  std::string name = lowered(identifier);
  for (std::string_view part : {"dtype", "precision", "fp16", "bf16", "float16", "bfloat16"})
    if (name.find(part) != std::string::npos) return true;
  // "half" only as a whole `_`-separated word (`use_half`, not `behalf`).
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('_', start);
    if (end == std::string::npos) end = name.size();
    if (std::string_view(name).substr(start, end - start) == "half") return true;
    start = end + 1;
  }
  return false;
}

bool isPrecisionString(std::string_view literal) {
  std::string text = lowered(literal);
  for (std::string_view part : {"16", "half", "float", "bf", "fp", "mixed"})
    if (text.find(part) != std::string::npos) return true;
  return false;
}

// True when `expr` (through names bound once) mentions the precision: a dtype, a string such as
// "float16", or a flag named for it. Such an `enabled=` or `if` condition gates the scaler on the
// dtype; `cfg.use_amp` does not.
bool testsDtype(const analysis::SemanticModel& model, TSNode expr) {
  if (ts_node_is_null(expr)) return false;
  std::vector<TSNode> work{expr};
  int budget = 64;  // resolved names to follow, so `a = b; b = a` ends
  bool found = false;
  while (!work.empty() && !found) {
    TSNode root = work.back();
    work.pop_back();
    analysis::walkTree(
        root,
        [&](TSNode node) {
          if (found) return false;
          std::string_view kind = kindOf(node);
          if (kind == "string") {
            found = isPrecisionString(model.text(node));
            return false;
          }
          if (kind == "lambda" || kind == "comment") return false;
          if (kind == "identifier") {
            if (isPrecisionWord(model.text(node))) {
              found = true;
              return false;
            }
            TSNode parent = ts_node_parent(node);
            bool is_member = isKind(parent, "attribute") && analysis::sameNode(fieldOf(parent, "attribute"), node);
            if (!is_member && budget-- > 0) {
              TSNode value = analysis::singleAssignedValue(model, node);
              if (!ts_node_is_null(value)) work.push_back(value);
            }
          }
          return true;
        },
        [](TSNode) {});
  }
  return found;
}

// The function the node runs in (a `function_definition`), or the module root.
TSNode ownerOf(TSNode node) {
  for (TSNode cur = ts_node_parent(node); !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
    if (isKind(cur, "function_definition") || isKind(cur, "module")) return cur;
  }
  return {};
}

// True when some `if` / conditional expression between `node` and `owner` tests the dtype: the
// scaler is created only on (or only off) a precision path.
bool underDtypeCondition(const analysis::SemanticModel& model, TSNode node, TSNode owner) {
  for (TSNode cur = ts_node_parent(node); !ts_node_is_null(cur) && !analysis::sameNode(cur, owner);
       cur = ts_node_parent(cur)) {
    std::string_view kind = kindOf(cur);
    if (kind == "if_statement" || kind == "elif_clause" || kind == "while_statement") {
      if (testsDtype(model, fieldOf(cur, "condition"))) return true;
      if (kind == "if_statement") {
        // In an `elif` / `else`: the earlier conditions decided too.
        uint32_t count = ts_node_named_child_count(cur);
        for (uint32_t i = 0; i < count; ++i) {
          TSNode clause = ts_node_named_child(cur, i);
          if (isKind(clause, "elif_clause") && analysis::startOf(clause) < analysis::startOf(node) &&
              testsDtype(model, fieldOf(clause, "condition")))
            return true;
        }
      }
    } else if (kind == "conditional_expression" && ts_node_named_child_count(cur) == 3) {
      if (testsDtype(model, ts_node_named_child(cur, 1))) return true;
    }
  }
  return false;
}

// The child of `ancestor` that contains `node`.
TSNode childContaining(TSNode ancestor, TSNode node) {
  uint32_t count = ts_node_child_count(ancestor);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode child = ts_node_child(ancestor, i);
    if (analysis::contains(child, node)) return child;
  }
  return {};
}

// True when `a` and `b` sit in different branches of one `if` / conditional expression / `match`,
// so at most one of them runs.
bool mutuallyExclusive(TSNode a, TSNode b) {
  TSNode lca{};
  for (TSNode cur = ts_node_parent(a); !ts_node_is_null(cur); cur = ts_node_parent(cur)) {
    if (analysis::contains(cur, b)) {
      lca = cur;
      break;
    }
  }
  if (ts_node_is_null(lca)) return false;
  TSNode child_a = childContaining(lca, a), child_b = childContaining(lca, b);
  if (ts_node_is_null(child_a) || ts_node_is_null(child_b) || analysis::sameNode(child_a, child_b)) return false;
  std::string_view kind = kindOf(lca);
  if (kind == "if_statement") {
    TSNode condition = fieldOf(lca, "condition");
    return !analysis::sameNode(child_a, condition) && !analysis::sameNode(child_b, condition);
  }
  if (kind == "conditional_expression" && ts_node_named_child_count(lca) == 3) {
    TSNode condition = ts_node_named_child(lca, 1);
    return !analysis::sameNode(child_a, condition) && !analysis::sameNode(child_b, condition);
  }
  if (kind == "block" && isKind(ts_node_parent(lca), "match_statement")) return true;
  return false;
}

// The first bfloat16 autocast that runs in `owner` (its body and, for a function, its
// decorators) and not in a branch exclusive with `scaler`.
TSNode findBf16Autocast(const analysis::SemanticModel& model, TSNode owner, TSNode scaler) {
  std::vector<TSNode> roots;
  if (isKind(owner, "function_definition")) {
    TSNode decorated = ts_node_parent(owner);
    if (isKind(decorated, "decorated_definition"))
      analysis::forEachNamedChild(decorated, [&](TSNode child) {
        if (isKind(child, "decorator")) roots.push_back(child);
      });
    TSNode body = fieldOf(owner, "body");
    if (!ts_node_is_null(body)) roots.push_back(body);
  } else {
    roots.push_back(owner);
  }
  TSNode found{};
  for (TSNode root : roots) {
    analysis::walkTree(
        root,
        [&](TSNode node) {
          if (!ts_node_is_null(found)) return false;
          std::string_view kind = kindOf(node);
          // Nested functions and classes are other scopes; strings and comments never match.
          if (kind == "function_definition" || kind == "class_definition" || kind == "string" || kind == "comment")
            return false;
          TSNode autocast{};
          if (kind == "call" && amp::isAutocastCall(model, node)) {
            autocast = node;
          } else if (kind == "with_item") {
            // `with ctx:` where `ctx = torch.autocast(...)` was bound once, possibly elsewhere.
            TSNode value = analysis::unparenthesize(fieldOf(node, "value"));
            if (isKind(value, "identifier")) autocast = amp::autocastCallOf(model, value);
          }
          if (!ts_node_is_null(autocast) && amp::autocastCallDtype(model, autocast).kind == amp::DtypeKind::BFloat16 &&
              !mutuallyExclusive(node, scaler)) {
            found = autocast;
            return false;
          }
          return true;
        },
        [](TSNode) {});
    if (!ts_node_is_null(found)) break;
  }
  return found;
}

class GradScalerWithBf16 final : public Rule {
 public:
  const RuleMeta& meta() const override { return kGradScalerWithBf16; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> triggers() const override { return {"GradScaler"}; }

  void check(TSNode call, Context& ctx) const override {
    const auto& model = ctx.model();
    auto callee = model.calleeName(call);
    if (!callee || !isGradScalerName(*callee)) return;

    // The `enabled` argument: keyword, or its positional slot.
    TSNode enabled_kw = keywordArgumentNode(call, "enabled", ctx.source());
    TSNode enabled = ts_node_is_null(enabled_kw) ? TSNode{} : fieldOf(enabled_kw, "value");
    auto positional = positionalArguments(call);
    size_t slot = enabledSlot(*callee);
    if (ts_node_is_null(enabled) && positional.size() > slot) enabled = positional[slot];
    if (ts_node_is_null(enabled) && (hasDoubleStarArguments(call) || hasStarArguments(call)))
      return;  // `**kwargs` may carry `enabled=`
    if (!ts_node_is_null(enabled)) {
      if (isFalseLiteral(analysis::resolveValue(model, enabled))) return;
      if (testsDtype(model, enabled)) return;
    }

    TSNode owner = ownerOf(call);
    if (ts_node_is_null(owner) || underDtypeCondition(model, call, owner)) return;
    TSNode autocast = findBf16Autocast(model, owner, call);
    if (ts_node_is_null(autocast)) return;

    std::string_view short_name = std::string_view(*callee).substr(callee->rfind('.') + 1);
    Diagnostic& d = ctx.report(
        call, fmt::format("`{}` used with a bfloat16 autocast: bf16 has float32's 8-bit exponent, so gradients do "
                          "not underflow and loss scaling only adds work (the scaler is for float16)",
                          short_name));
    d.related.push_back({analysis::startOf(autocast), analysis::endOf(autocast), "the bfloat16 autocast"});

    quickfix::Fix fix;
    fix.applicability = quickfix::Applicability::Unsafe;
    fix.message = "Disable the scaler: `enabled=False`";
    if (!ts_node_is_null(enabled)) {
      fix.edits.push_back({analysis::startOf(enabled), analysis::endOf(enabled), "False"});
    } else {
      fix.edits.push_back(appendArgument(call, "enabled=False", ctx.source()));
    }
    d.fix = std::move(fix);
  }
};

}  // namespace

const Rule& gradScalerWithBf16Rule() {
  static const GradScalerWithBf16 rule;
  return rule;
}

}  // namespace ptlint::rules
