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
#include "rules/register.h"
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
`torch.cpu.amp.GradScaler`, FSDP's `ShardedGradScaler`) used with an autocast region whose
dtype is `torch.bfloat16`:

- both in the same function, or both at module level;
- or the scaler stored on the instance (`self.scaler = GradScaler(...)`, typically in
  `__init__`) and the autocast in the methods of the same class, when the scaler's own method
  enters no autocast and every autocast of the class is bfloat16.

The dtype is followed through aliases (`import torch as T; T.bfloat16`), names bound once
(`amp_dtype = torch.bfloat16`), attributes a class assigns once (`self.amp_dtype =
torch.bfloat16`, or a class-level default `amp_dtype = torch.bfloat16` no method rebinds), a literal table indexed by a fixed key (`ptdtype = {"float16": torch.float16,
"bfloat16": torch.bfloat16}[dtype]` with `dtype = "bfloat16"`), `getattr(torch, "bfloat16")`,
the `dtype=` keyword or the positional slot (`torch.autocast("cuda", torch.bfloat16)`), a
`functools.partial` of an autocast (`autocast = partial(torch.autocast, device_type="cuda",
dtype=torch.bfloat16)`), the values a dtype name may hold when they all agree (bound in
branches, a dataclass field's default, a dict literal indexed by an argparse option whose
`choices` fix it), and autocast objects made elsewhere and
entered later (`ctx = torch.autocast(...)`, `with ctx:`; `ctx = nullcontext()` then `if amp:
ctx = torch.autocast(...)`; `self.ctx`; a function of the file, or of another file of the
project, that returns one). The scaler may
be spelled `torch.GradScaler` (2.3+). The bf16 autocast is shown as related information.

A scaler whose `enabled=` (or an enclosing `if`) tests the precision is reported only when the
test holds for bfloat16: `enabled=(args.dtype in ["float16", "bfloat16"])` is reported,
`enabled=(dtype == "float16")`, `enabled=not args.bf16` and `enabled=args.fp16` are not, and a
test the source does not decide is not either.

Not reported, because the source does not pin the dtype down or already handles it: a dtype
that is a parameter, an attribute of a configuration or a conditional (`torch.bfloat16 if bf16
else torch.float16`); a scaler with `enabled=False`; a scaler and an autocast in mutually
exclusive branches (or one in a branch that returns before the other); an autocast with
`enabled=False`; a function (or class) that also enters a float16 autocast, or one whose dtype is
unknown (the scaler may be meant for that one).

## Why is this bad?
Loss scaling exists for float16, whose 5-bit exponent makes small gradients underflow to zero:
`torch.finfo(torch.float16).tiny` is 6.1e-05. bfloat16 has float32's 8-bit exponent
(`torch.finfo(torch.bfloat16).tiny` is 1.2e-38, as for float32), so its gradients do not
underflow and the scaler only costs work: an extra multiply of the loss, an unscale and an
inf/NaN check of every gradient, a device-to-host sync in `step()` to read the result, plus
skipped steps while the scale calibrates. `GradScaler`'s own documentation
(`torch/cuda/amp/grad_scaler.py`) gives its purpose as minimising "gradient underflow", and
PyTorch's AMP examples pair it with float16. bf16 autocast exists since PyTorch 1.10;
`torch.amp.GradScaler("cuda")` replaced `torch.cuda.amp.GradScaler` in 2.3.

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

## Releases
`GradScaler` in `torch/cuda/amp/grad_scaler.py` (1.13) and `torch/amp/grad_scaler.py` (2.6, 2.14)
scales for float16; bfloat16 needs no scaling at any release: the premise holds 1.13–2.14.

## References
- [`GradScaler` in `torch/amp/grad_scaler.py`](https://github.com/pytorch/pytorch/blob/main/torch/amp/grad_scaler.py)
  (`torch/cuda/amp/grad_scaler.py` before 2.3)
- [`torch.finfo`](https://pytorch.org/docs/stable/type_info.html#torch.finfo)
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
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::string) {
            found = isPrecisionString(model.text(node));
            return false;
          }
          if (kind == kind::lambda || kind == kind::comment) return false;
          if (kind == kind::attribute) members.push_back(fieldOf(node, "attribute"));
          if (kind == kind::identifier) {
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

// What a test on the precision evaluates to when the precision in use is bfloat16: the scaler's
// `enabled=` (or an `if` around it) admits bf16 when True (`args.dtype in ["float16",
// "bfloat16"]`), excludes it when False (`dtype == "float16"`, `not args.bf16`). Unknown when the
// source does not say.
enum class Tri { False, True, Unknown };

Tri negate(Tri t) { return t == Tri::Unknown ? t : (t == Tri::True ? Tri::False : Tri::True); }

// One side of a comparison.
struct Term {
  enum Kind { Unknown, Bf16, OtherPrecision, Variable, Container } kind = Unknown;
  std::string concrete;       // the literal's text or dtype name, when the value is fixed
  std::vector<Term> members;  // Container
};

std::string lastIdentifier(const analysis::SemanticModel& model, TSNode node) {
  if (isKind(node, kind::attribute)) node = fieldOf(node, "attribute");
  return isKind(node, kind::identifier) ? std::string(model.text(node)) : std::string();
}

bool namesBf16(std::string_view text) {
  std::string low = lowered(text);
  return low.find("bf16") != std::string::npos || low.find("bfloat16") != std::string::npos;
}

Term classify(const analysis::SemanticModel& model, TSNode node, int depth) {
  Term term;
  if (depth > 8 || ts_node_is_null(node)) return term;
  TSNode value = analysis::resolveValue(model, node);
  std::string_view source = model.file().text();
  if (auto text = stringLiteral(value, source)) {
    term.concrete = *text;
    term.kind = namesBf16(*text) ? Term::Bf16 : isPrecisionString(*text) ? Term::OtherPrecision : Term::Unknown;
    return term;
  }
  if (isKind(value, kind::list) || isKind(value, kind::tuple) || isKind(value, kind::set)) {
    term.kind = Term::Container;
    analysis::forEachNamedChild(value, [&](TSNode element) { term.members.push_back(classify(model, element, depth + 1)); });
    return term;
  }
  if (isKind(value, kind::identifier) || isKind(value, kind::attribute)) {
    switch (amp::resolveDtype(model, value)) {
      case amp::DtypeKind::BFloat16:
        term.kind = Term::Bf16;
        term.concrete = "torch.bfloat16";
        return term;
      case amp::DtypeKind::Float16:
      case amp::DtypeKind::Other:
        term.kind = Term::OtherPrecision;
        term.concrete = model.qualifiedName(value).value_or("");
        return term;
      case amp::DtypeKind::Unknown:
        break;
    }
    if (isPrecisionWord(lastIdentifier(model, value))) term.kind = Term::Variable;
  }
  return term;
}

// `variable == constant`: what it is when the variable holds bf16.
Tri equalsUnderBf16(const Term& a, const Term& b) {
  if (a.kind == Term::Variable && (b.kind == Term::Bf16 || b.kind == Term::OtherPrecision))
    return b.kind == Term::Bf16 ? Tri::True : Tri::False;
  // (Two variables compare as unknown: swapping them would only swap them back.)
  if (b.kind == Term::Variable && a.kind != Term::Variable) return equalsUnderBf16(b, a);
  // Both fixed: compare them as they are.
  if (!a.concrete.empty() && !b.concrete.empty() && a.kind != Term::Variable && b.kind != Term::Variable)
    return a.concrete == b.concrete ? Tri::True : Tri::False;
  return Tri::Unknown;
}

Tri containsUnderBf16(const Term& item, const Term& container) {
  if (container.kind != Term::Container || container.members.empty()) return Tri::Unknown;
  bool all_false = true;
  for (const Term& member : container.members) {
    Tri t = equalsUnderBf16(item, member);
    if (t == Tri::True) return Tri::True;
    if (t == Tri::Unknown) all_false = false;
  }
  return all_false ? Tri::False : Tri::Unknown;
}

Tri evaluateUnderBf16(const analysis::SemanticModel& model, TSNode node, int depth = 0) {
  if (depth > 16 || ts_node_is_null(node)) return Tri::Unknown;
  node = analysis::unparenthesize(node);
  analysis::NodeKind kind = kindOf(node);
  if (kind == kind::true_) return Tri::True;
  if (kind == kind::false_) return Tri::False;
  if (kind == kind::not_operator) return negate(evaluateUnderBf16(model, fieldOf(node, "argument"), depth + 1));
  if (kind == kind::boolean_operator) {
    Tri left = evaluateUnderBf16(model, fieldOf(node, "left"), depth + 1);
    Tri right = evaluateUnderBf16(model, fieldOf(node, "right"), depth + 1);
    bool is_and = model.text(fieldOf(node, "operator")) == "and";
    if (is_and) {
      if (left == Tri::False || right == Tri::False) return Tri::False;
      return left == Tri::True && right == Tri::True ? Tri::True : Tri::Unknown;
    }
    if (left == Tri::True || right == Tri::True) return Tri::True;
    return left == Tri::False && right == Tri::False ? Tri::False : Tri::Unknown;
  }
  if (kind == kind::comparison_operator) {
    // `a OP b` only: the two operands and the operator tokens between them.
    if (ts_node_named_child_count(node) != 2) return Tri::Unknown;
    TSNode left = ts_node_named_child(node, 0), right = ts_node_named_child(node, 1);
    std::string op;
    for (uint32_t i = 0, n = ts_node_child_count(node); i < n; ++i) {
      TSNode child = ts_node_child(node, i);
      if (ts_node_is_named(child)) continue;
      op += (op.empty() ? "" : " ") + std::string(model.text(child));
    }
    Term a = classify(model, left, depth), b = classify(model, right, depth);
    if (op == "==" || op == "is") return equalsUnderBf16(a, b);
    if (op == "!=" || op == "is not") return negate(equalsUnderBf16(a, b));
    if (op == "in") return containsUnderBf16(a, b);
    if (op == "not in") return negate(containsUnderBf16(a, b));
    return Tri::Unknown;
  }
  if (kind == kind::identifier || kind == kind::attribute) {
    TSNode value = analysis::resolveValue(model, node);
    if (!analysis::sameNode(value, node)) return evaluateUnderBf16(model, value, depth + 1);
    if (kind == kind::attribute) {
      TSNode assigned = selfAttributeValue(model, node);
      if (!ts_node_is_null(assigned)) return evaluateUnderBf16(model, assigned, depth + 1);
    }
    // A flag named for a precision: `args.bf16` holds, `args.fp16` / `use_half` does not.
    std::string name = lowered(lastIdentifier(model, node));
    if (namesBf16(name)) return Tri::True;
    if (name.find("fp16") != std::string::npos || name.find("float16") != std::string::npos) return Tri::False;
    return Tri::Unknown;
  }
  if (kind == kind::call) {
    // `torch.cuda.is_bf16_supported()`: true wherever a bf16 autocast runs.
    auto callee = model.calleeName(node);
    if (callee && (*callee == "torch.cuda.is_bf16_supported" || *callee == "torch.cuda.amp.common.is_bf16_supported"))
      return Tri::True;
  }
  return Tri::Unknown;
}

// Index in `path` (root .. node) of the function the node runs in (a `function_definition`), or
// of the module root.
size_t ownerIndex(const std::vector<TSNode>& path) {
  for (size_t i = path.size() - 1; i-- > 0;)
    if (isKind(path[i], kind::function_definition)) return i;
  return 0;
}

// True when some `if` / conditional expression between the owner (`path[owner]`) and the node
// (`path.back()`) tests the dtype: the scaler is created only on (or only off) a precision path.
bool underDtypeCondition(const analysis::SemanticModel& model, const std::vector<TSNode>& path, size_t owner) {
  TSNode node = path.back();
  for (size_t i = path.size() - 1; i-- > owner + 1;) {
    TSNode cur = path[i];
    analysis::NodeKind kind = kindOf(cur);
    if (kind == kind::if_statement || kind == kind::elif_clause || kind == kind::while_statement) {
      TSNode condition = fieldOf(cur, "condition");
      // In the body of a test that holds under bf16 (`if dtype in ("float16", "bfloat16"):`): the
      // scaler is created on the bf16 path too.
      bool in_body = analysis::sameNode(path[i + 1], fieldOf(cur, kind == kind::while_statement ? "body" : "consequence"));
      bool admits = in_body && evaluateUnderBf16(model, condition) == Tri::True;
      if (!admits && testsDtype(model, condition)) return true;
      if (kind == kind::if_statement) {
        // In an `elif` / `else`: the earlier conditions decided too.
        uint32_t count = ts_node_named_child_count(cur);
        for (uint32_t c = 0; c < count; ++c) {
          TSNode clause = ts_node_named_child(cur, c);
          if (isKind(clause, kind::elif_clause) && analysis::startOf(clause) < analysis::startOf(node) &&
              testsDtype(model, fieldOf(clause, "condition")))
            return true;
        }
      }
    } else if (kind == kind::conditional_expression && ts_node_named_child_count(cur) == 3) {
      if (testsDtype(model, ts_node_named_child(cur, 1))) return true;
    }
  }
  return false;
}

// True when a block ends in `return` / `raise`, directly or as the last statement of the `with`
// blocks it ends with.
bool alwaysExits(TSNode block) {
  for (int depth = 0; depth < 64 && isKind(block, kind::block); ++depth) {
    TSNode last{};
    analysis::forEachNamedChild(block, [&](TSNode child) {
      if (!isKind(child, kind::comment)) last = child;
    });
    if (isKind(last, kind::return_statement) || isKind(last, kind::raise_statement)) return true;
    if (!isKind(last, kind::with_statement)) return false;
    block = fieldOf(last, "body");
  }
  return false;
}

// True when the node at the end of `path` sits in a branch (below `path[from]`) that ends in
// `return` / `raise`, and `other` comes after that `if`: `other` runs only when the branch did
// not (`if bf16: ...; return` then the fp16 path with its scaler).
bool exitsBefore(const std::vector<TSNode>& path, size_t from, TSNode other) {
  for (size_t i = std::max<size_t>(from, 2); i < path.size(); ++i) {
    if (!isKind(path[i], kind::block)) continue;
    TSNode clause = path[i - 1];
    TSNode statement = isKind(clause, kind::if_statement) ? clause : path[i - 2];
    if (!isKind(statement, kind::if_statement)) continue;
    if (!isKind(clause, kind::if_statement) && !isKind(clause, kind::elif_clause) && !isKind(clause, kind::else_clause)) continue;
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
  analysis::NodeKind kind = kindOf(lca);
  if (kind == kind::if_statement) {
    TSNode condition = fieldOf(lca, "condition");
    return !analysis::sameNode(child_a, condition) && !analysis::sameNode(child_b, condition);
  }
  if (kind == kind::conditional_expression && ts_node_named_child_count(lca) == 3) {
    TSNode condition = ts_node_named_child(lca, 1);
    return !analysis::sameNode(child_a, condition) && !analysis::sameNode(child_b, condition);
  }
  if (kind == kind::block && common >= 2 && isKind(a[common - 2], kind::match_statement)) return true;
  return exitsBefore(a, common, b.back()) || exitsBefore(b, common, a.back());
}

// The autocasts under `roots` (calls, and `with ctx:` items whose `ctx` was bound to one), in
// source order, outside nested scopes, strings and comments. Cached per owner: a module with n
// scalers would otherwise be walked n times.
struct Candidate {
  TSNode node;      // the node met
  TSNode autocast;  // the autocast call
  // The file of `autocast` when a helper of another file returns it (`with amp_context():`),
  // and `shown` the expression of this file that calls the helper; null / the call otherwise.
  const analysis::SemanticModel* where = nullptr;
  TSNode shown;
};

struct AutocastCandidates {
  mutable std::mutex mutex;
  mutable std::map<const void*, std::vector<Candidate>> by_owner;
};

const std::vector<Candidate>& autocastCandidates(const analysis::SemanticModel& model, TSNode owner,
                                                                  const std::vector<TSNode>& roots) {
  static const int kTag = 0;
  const auto& cache = model.perFileAnalysis<AutocastCandidates>(&kTag, [] { return std::make_shared<const AutocastCandidates>(); });
  {
    std::lock_guard lock(cache.mutex);
    if (auto it = cache.by_owner.find(owner.id); it != cache.by_owner.end()) return it->second;
  }
  std::vector<Candidate> found;
  for (TSNode root : roots) {
    analysis::walkTree(
        root,
        [&](TSNode node) {
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::string || kind == kind::comment)
            return false;
          if (kind == kind::call && amp::isAutocastCall(model, node)) {
            found.push_back({node, node, nullptr, node});
          } else if (kind == kind::with_item) {
            // `with ctx:` where `ctx` may hold an autocast made elsewhere (`ctx = nullcontext()`
            // then `ctx = torch.autocast(...)`, `self.ctx`, `with get_ctx():`): every one it may be.
            TSNode value = analysis::unparenthesize(fieldOf(node, "value"));
            if (isKind(value, kind::as_pattern)) value = analysis::unparenthesize(ts_node_named_child(value, 0));
            bool direct = isKind(value, kind::call) && amp::isAutocastCall(model, value);
            if (!direct && (isKind(value, kind::identifier) || isKind(value, kind::attribute) || isKind(value, kind::call)))
              for (const amp::ModelNode& autocast : amp::autocastValuesOf(model, value))
                found.push_back({node, autocast.node, autocast.model, autocast.model ? value : autocast.node});
          }
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
  if (isKind(owner, kind::function_definition)) {
    TSNode decorated = owner_index > 0 ? path[owner_index - 1] : TSNode{};
    if (isKind(decorated, kind::decorated_definition))
      analysis::forEachNamedChild(decorated, [&](TSNode child) {
        if (isKind(child, kind::decorator)) roots.push_back(child);
      });
    TSNode body = fieldOf(owner, "body");
    if (!ts_node_is_null(body)) roots.push_back(body);
  } else {
    roots.push_back(owner);
  }
  TSNode found{};
  for (const Candidate& c : autocastCandidates(model, owner, roots)) {
    if (mutuallyExclusive(analysis::pathTo(owner, c.node), scaler_path)) continue;
    switch (amp::autocastCallDtype(c.where ? *c.where : model, c.autocast).kind) {
      case amp::DtypeKind::BFloat16:
        if (ts_node_is_null(found)) found = c.shown;
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

// The scaler stored on the instance (`self.scaler = GradScaler(...)` in a method): the class
// whose methods use it, or null.
TSNode classOfSelfScaler(const analysis::SemanticModel& model, TSNode call, TSNode function) {
  TSNode parent = ts_node_parent(call);
  if (!isKind(parent, kind::assignment) || !analysis::sameNode(fieldOf(parent, "right"), call)) return {};
  if (!isKind(function, kind::function_definition)) return {};
  if (selfAttribute(model, fieldOf(parent, "left"), firstParameter(model, function)).empty()) return {};
  TSNode cls = ts_node_parent(function);
  if (isKind(cls, kind::decorated_definition)) cls = ts_node_parent(cls);
  cls = ts_node_parent(cls);
  return isKind(cls, kind::class_definition) ? cls : TSNode{};
}

// Across the methods of a class: the first bfloat16 autocast, provided every autocast in them is
// bfloat16 (or disabled); null otherwise.
TSNode findBf16AutocastInClass(const analysis::SemanticModel& model, TSNode cls) {
  std::vector<TSNode> roots;
  analysis::forEachNamedChild(fieldOf(cls, "body"), [&](TSNode statement) {
    if (isKind(definitionOf(statement), kind::function_definition)) roots.push_back(statement);
  });
  // Decorated methods: walk the decorators and the body, not the nested definition's boundary.
  std::vector<TSNode> bodies;
  for (TSNode statement : roots) {
    if (isKind(statement, kind::decorated_definition))
      analysis::forEachNamedChild(statement, [&](TSNode child) {
        if (isKind(child, kind::decorator)) bodies.push_back(child);
      });
    TSNode body = fieldOf(definitionOf(statement), "body");
    if (!ts_node_is_null(body)) bodies.push_back(body);
  }
  TSNode found{};
  for (const Candidate& c : autocastCandidates(model, cls, bodies)) {
    switch (amp::autocastCallDtype(c.where ? *c.where : model, c.autocast).kind) {
      case amp::DtypeKind::BFloat16:
        if (ts_node_is_null(found)) found = c.shown;
        break;
      case amp::DtypeKind::Float16:
      case amp::DtypeKind::Unknown:
        return TSNode{};
      case amp::DtypeKind::Other:
        break;
    }
  }
  return found;
}

class GradScalerWithBf16 final : public Rule {
 public:
  const RuleMeta& meta() const override { return kGradScalerWithBf16; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call}; }
  Prefilter prefilter() const override { return {.words = {"GradScaler"}}; }

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
      // A test of the precision: reported only when it admits bf16 (`dtype in ("float16",
      // "bfloat16")`); one that excludes it, or that the source does not decide, is not.
      Tri admits = evaluateUnderBf16(model, enabled);
      if (admits == Tri::False) return;
      if (admits == Tri::Unknown && testsDtype(model, enabled)) return;
    }

    std::vector<TSNode> path = analysis::pathTo(ctx.file().root(), call);
    if (path.size() < 2) return;
    size_t owner = ownerIndex(path);
    if (underDtypeCondition(model, path, owner)) return;
    TSNode autocast = findBf16Autocast(model, path, owner);
    if (ts_node_is_null(autocast)) {
      // `self.scaler = GradScaler()` in `__init__`, the autocast in `train_step`: the class's
      // methods decide, when the scaler's own method enters no autocast.
      TSNode cls = classOfSelfScaler(model, call, path[owner]);
      if (ts_node_is_null(cls)) return;
      TSNode body = fieldOf(path[owner], "body");
      if (ts_node_is_null(body) || !autocastCandidates(model, path[owner], {body}).empty()) return;
      autocast = findBf16AutocastInClass(model, cls);
      if (ts_node_is_null(autocast)) return;
    }

    std::string_view short_name = std::string_view(*callee).substr(callee->rfind('.') + 1);
    Diagnostic& d = ctx.report(
        call, fmt::format("`{}` is not needed with a bfloat16 autocast; disable or remove it", short_name));
    d.related.push_back({analysis::startOf(autocast), analysis::endOf(autocast), "the bfloat16 autocast"});

    quickfix::Fix fix;
    fix.applicability = quickfix::Applicability::Unsafe;
    fix.message = "Pass `enabled=False` to the scaler";
    if (!ts_node_is_null(enabled)) {
      fix.edits.push_back({analysis::startOf(enabled), analysis::endOf(enabled), "False"});
    } else {
      fix.edits.push_back(appendArgument(call, "enabled=False", ctx.source()));
    }
    d.fix = std::move(fix);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL201, GradScalerWithBf16)

}  // namespace ptlint::rules
