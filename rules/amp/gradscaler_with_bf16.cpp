// PTL201 gradscaler-with-bf16: a GradScaler next to an autocast whose dtype is bfloat16.
#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "analysis/node_path.h"
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
autocast in mutually exclusive branches (or one in a branch that returns before the other); an autocast with `enabled=False`; a function that also enters a float16 autocast, or one whose
dtype is unknown (the scaler may be meant for that one).

## Why is this bad?
Loss scaling exists for float16, whose 5-bit exponent makes small gradients underflow to zero.
bfloat16 has the same 8-bit exponent as float32, so its gradients do not underflow and the
scaler only costs work: an extra multiply of the loss, an unscale and an inf/NaN check of every
gradient (a device-to-host sync) per step, plus skipped steps while the scale calibrates. PyTorch's
AMP documentation motivates gradient scaling by float16's narrow range ("gradient values with
small magnitudes may not be representable in float16"), and its AMP examples pair the scaler
with float16 only.
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
  std::vector<TSNode> members;  // `x` of `obj.x`: a member name, not a variable to resolve
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
          if (kind == "attribute") members.push_back(fieldOf(node, "attribute"));
          if (kind == "identifier") {
            if (isPrecisionWord(model.text(node))) {
              found = true;
              return false;
            }
            bool is_member = !members.empty() && analysis::sameNode(members.back(), node);
            if (is_member) members.pop_back();
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

// Index in `path` (root .. node) of the function the node runs in (a `function_definition`), or
// of the module root.
size_t ownerIndex(const std::vector<TSNode>& path) {
  for (size_t i = path.size() - 1; i-- > 0;)
    if (isKind(path[i], "function_definition")) return i;
  return 0;
}

// True when some `if` / conditional expression between the owner (`path[owner]`) and the node
// (`path.back()`) tests the dtype: the scaler is created only on (or only off) a precision path.
bool underDtypeCondition(const analysis::SemanticModel& model, const std::vector<TSNode>& path, size_t owner) {
  TSNode node = path.back();
  for (size_t i = path.size() - 1; i-- > owner + 1;) {
    TSNode cur = path[i];
    std::string_view kind = kindOf(cur);
    if (kind == "if_statement" || kind == "elif_clause" || kind == "while_statement") {
      if (testsDtype(model, fieldOf(cur, "condition"))) return true;
      if (kind == "if_statement") {
        // In an `elif` / `else`: the earlier conditions decided too.
        uint32_t count = ts_node_named_child_count(cur);
        for (uint32_t c = 0; c < count; ++c) {
          TSNode clause = ts_node_named_child(cur, c);
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

// True when a block ends in `return` / `raise`, directly or as the last statement of the `with`
// blocks it ends with.
bool alwaysExits(TSNode block) {
  for (int depth = 0; depth < 64 && isKind(block, "block"); ++depth) {
    TSNode last{};
    analysis::forEachNamedChild(block, [&](TSNode child) {
      if (!isKind(child, "comment")) last = child;
    });
    if (isKind(last, "return_statement") || isKind(last, "raise_statement")) return true;
    if (!isKind(last, "with_statement")) return false;
    block = fieldOf(last, "body");
  }
  return false;
}

// True when the node at the end of `path` sits in a branch (below `path[from]`) that ends in
// `return` / `raise`, and `other` comes after that `if`: `other` runs only when the branch did
// not (`if bf16: ...; return` then the fp16 path with its scaler).
bool exitsBefore(const std::vector<TSNode>& path, size_t from, TSNode other) {
  for (size_t i = std::max<size_t>(from, 2); i < path.size(); ++i) {
    if (!isKind(path[i], "block")) continue;
    TSNode clause = path[i - 1];
    TSNode statement = isKind(clause, "if_statement") ? clause : path[i - 2];
    if (!isKind(statement, "if_statement")) continue;
    if (!isKind(clause, "if_statement") && !isKind(clause, "elif_clause") && !isKind(clause, "else_clause")) continue;
    if (alwaysExits(path[i]) && analysis::startOf(other) >= analysis::endOf(statement)) return true;
  }
  return false;
}

// True when the nodes at the ends of two paths from one root sit in different branches of one
// `if` / conditional expression / `match`, so at most one of them runs.
bool mutuallyExclusive(const std::vector<TSNode>& a, const std::vector<TSNode>& b) {
  size_t common = 0;
  while (common < a.size() && common < b.size() && analysis::sameNode(a[common], b[common])) ++common;
  if (common == 0 || common >= a.size() || common >= b.size()) return false;  // one contains the other
  TSNode lca = a[common - 1], child_a = a[common], child_b = b[common];
  std::string_view kind = kindOf(lca);
  if (kind == "if_statement") {
    TSNode condition = fieldOf(lca, "condition");
    return !analysis::sameNode(child_a, condition) && !analysis::sameNode(child_b, condition);
  }
  if (kind == "conditional_expression" && ts_node_named_child_count(lca) == 3) {
    TSNode condition = ts_node_named_child(lca, 1);
    return !analysis::sameNode(child_a, condition) && !analysis::sameNode(child_b, condition);
  }
  if (kind == "block" && common >= 2 && isKind(a[common - 2], "match_statement")) return true;
  return exitsBefore(a, common, b.back()) || exitsBefore(b, common, a.back());
}

// The autocasts under `roots` (calls, and `with ctx:` items whose `ctx` was bound to one), in
// source order, outside nested scopes, strings and comments: (the node met, the autocast call).
// Cached per owner: a module with n scalers would otherwise be walked n times.
struct AutocastCandidates {
  mutable std::mutex mutex;
  mutable std::map<const void*, std::vector<std::pair<TSNode, TSNode>>> by_owner;
};

const std::vector<std::pair<TSNode, TSNode>>& autocastCandidates(const analysis::SemanticModel& model, TSNode owner,
                                                                  const std::vector<TSNode>& roots) {
  static const int kTag = 0;
  const auto& cache = model.perFileAnalysis<AutocastCandidates>(&kTag, [] { return std::make_shared<const AutocastCandidates>(); });
  {
    std::lock_guard lock(cache.mutex);
    if (auto it = cache.by_owner.find(owner.id); it != cache.by_owner.end()) return it->second;
  }
  std::vector<std::pair<TSNode, TSNode>> found;
  for (TSNode root : roots) {
    analysis::walkTree(
        root,
        [&](TSNode node) {
          std::string_view kind = kindOf(node);
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
          if (!ts_node_is_null(autocast)) found.emplace_back(node, autocast);
          return true;
        },
        [](TSNode) {});
  }
  std::lock_guard lock(cache.mutex);
  return cache.by_owner.emplace(owner.id, std::move(found)).first->second;
}

// The first bfloat16 autocast that runs in `owner` (its body and, for a function, its
// decorators) and not in a branch exclusive with `scaler` — provided every such autocast is
// bfloat16: a float16 one, or one whose dtype is unknown (a parameter, the device default), may be
// what the scaler is for.
TSNode findBf16Autocast(const analysis::SemanticModel& model, const std::vector<TSNode>& path, size_t owner_index) {
  TSNode owner = path[owner_index];
  // The scaler's path from the owner, to compare with each autocast's.
  std::vector<TSNode> scaler_path(path.begin() + static_cast<std::ptrdiff_t>(owner_index), path.end());
  std::vector<TSNode> roots;
  if (isKind(owner, "function_definition")) {
    TSNode decorated = owner_index > 0 ? path[owner_index - 1] : TSNode{};
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
  for (const auto& [node, autocast] : autocastCandidates(model, owner, roots)) {
    if (mutuallyExclusive(analysis::pathTo(owner, node), scaler_path)) continue;
    switch (amp::autocastCallDtype(model, autocast).kind) {
      case amp::DtypeKind::BFloat16:
        if (ts_node_is_null(found)) found = autocast;
        break;
      case amp::DtypeKind::Float16:
      case amp::DtypeKind::Unknown:
        return TSNode{};
      case amp::DtypeKind::Other:  // disabled, or a full-precision dtype
        break;
    }
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

    std::vector<TSNode> path = analysis::pathTo(ctx.file().root(), call);
    if (path.size() < 2) return;
    size_t owner = ownerIndex(path);
    if (underDtypeCondition(model, path, owner)) return;
    TSNode autocast = findBf16Autocast(model, path, owner);
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
