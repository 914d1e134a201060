// PTL106 deprecated-torch-function: deprecated or removed functions, classes and module aliases
// of torch, torch.nn, torch.testing, torch.backends and functorch, driven by one table
// (deprecated_symbols.cpp). Versions gate the report, the severity and the fix.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/deprecated/call_rewrite.h"
#include "rules/deprecated/deprecated_symbols.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::Binding;
using analysis::BindingKind;
using analysis::SemanticModel;
using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;
using analysis::sameNode;
using analysis::startOf;
using deprecated::Rewrite;
using deprecated::Symbol;
using deprecated::Version;
using quickfix::Edit;
using quickfix::Fix;
using rewrite::CallArgs;

constexpr RuleMeta kDeprecatedTorchFunction{
    .code = "PTL106",
    .name = "deprecated-torch-function",
    .summary = "Deprecated or removed PyTorch function, class or module alias",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .deprecated_tag = true,
    .since_torch = "1.9",
    .docs = R"md(
## What it does
Reports uses of PyTorch functions, classes and module aliases that PyTorch deprecated or
removed (Tensor methods are not covered): as calls, as attributes (`f = torch.qr`) and in
imports (`from torch import qr as torch_qr`, `import functorch as ft; ft.vmap`,
`from torch.backends.cuda import sdp_kernel`). Names are resolved through the file's imports,
so `torch.linalg.qr`, `numpy.linalg.qr`, the builtin `range`, a local function named
`cholesky`, strings and comments never match.

| symbol | deprecated | removed | replacement | fix |
| --- | --- | --- | --- | --- |
| `torch.solve`, `torch.lstsq`, `torch.eig`, `torch.matrix_rank` | 1.9 | 1.13 | `torch.linalg.solve` / `lstsq` / `eig` / `matrix_rank` | none (argument order and results differ) |
| `torch.symeig` | 1.9 | 2.0 | `torch.linalg.eigh` | none |
| `torch.qr` | 1.9 | | `torch.linalg.qr` | safe: `some=False` becomes `mode="complete"` |
| `torch.cholesky` | 1.9 | | `torch.linalg.cholesky` | safe: `upper=True` becomes `.mH` of the result (1.11+) |
| `torch.chain_matmul` | 1.9 | | `torch.linalg.multi_dot` | safe: `chain_matmul(a, b)` becomes `multi_dot([a, b])` |
| `torch.ger` | ≤1.13 | | `torch.outer` | safe (an alias) |
| `torch.lu_solve` | ≤1.13 | | `torch.linalg.lu_solve` | safe: `lu_solve(B, LU, pivots)` becomes `linalg.lu_solve(LU, pivots, B)` |
| `torch.lu`, `torch.triangular_solve`, `torch.svd`, `torch.norm` | ≤1.13 | | `torch.linalg.lu_factor` / `solve_triangular` / `svd` / `norm` | none (results differ) |
| `torch.range` | ≤1.13 | | `torch.arange` | unsafe |
| `torch.nn.UpsamplingNearest2d`, `torch.nn.UpsamplingBilinear2d` | ≤1.13 | | `torch.nn.Upsample` | safe: `mode="nearest"`, or `mode="bilinear", align_corners=True` |
| `torch.testing.assert_allclose` | 1.12 | | `torch.testing.assert_close` | unsafe |
| `torch.nn.utils.weight_norm` | 2.1 | | `torch.nn.utils.parametrizations.weight_norm` | none (the parameter names in the state dict change) |
| `torch.utils._pytree._register_pytree_node` | 2.2 | | `torch.utils._pytree.register_pytree_node` | safe for `(cls, flatten_fn, unflatten_fn)` |
| `torch.backends.cuda.sdp_kernel` | 2.3 | | `torch.nn.attention.sdpa_kernel` | safe with literal flags (2.5+) |
| `functorch.vmap`, `grad`, `vjp`, `jvp`, `jacrev`, `jacfwd`, `hessian`, `functionalize` | 2.0 | | `torch.func.*` | safe |

"≤1.13": the deprecation is present in PyTorch 1.13's sources, the oldest checked; the first
deprecating release may be older, and the message says so ("since PyTorch 1.13 or earlier"). The rule
reports it from that `torch-version` on. Nothing is reported when the configured `torch-version` predates the
deprecation; a symbol already removed at the configured version is an `error`.

A fallback for old PyTorch releases is left alone: a use in the `except` handler of a `try`
that uses the replacement, or in a branch of an `if` (or conditional expression) whose condition,
or an `elif`'s, tests a version or feature (`torch_version >= version.parse("2.3")`, `hasattr(torch, "linalg")`)
and whose other branch uses the replacement. A device test such as
`if torch.cuda.is_available():` is not a fallback: both branches are reported as usual.

## Why is this bad?
Deprecated functions warn at every call and are removed in a later release; removed ones raise
(`torch.solve` in 1.13 raises "This function was deprecated since version 1.9 and is now
removed"). The replacements in `torch.linalg` follow NumPy's conventions and are where fixes
and performance work go.

## Example
```python
import torch
from functorch import vmap

Q, R = torch.qr(A, some=False)
L = torch.cholesky(A, upper=True)
P = torch.chain_matmul(a, b, c)
with torch.backends.cuda.sdp_kernel(enable_math=False):
    out = attention(q, k, v)
```

## Use instead
```python
import torch
from torch.func import vmap

Q, R = torch.linalg.qr(A, mode="complete")
L = torch.linalg.cholesky(A).mH
P = torch.linalg.multi_dot([a, b, c])
with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.FLASH_ATTENTION, torch.nn.attention.SDPBackend.EFFICIENT_ATTENTION, torch.nn.attention.SDPBackend.CUDNN_ATTENTION]):
    out = attention(q, k, v)
```

## Fix safety
Fixes are offered only when the configured `torch-version` has the replacement, and only for
the argument forms whose meaning is known (literal `some=`/`upper=`/flags; no `*args` or
`**kwargs`; no `out=` where the replacement's differs). The file's spelling of `torch` is kept
(`T.linalg.qr`); `import torch`, `import torch.func` or `import torch.nn.attention` is added
where the replacement needs it.

- Safe: `functorch.X` → `torch.func.X` (the same functions); `ger` → `outer` (an alias);
  `qr(A, some=False)` → `linalg.qr(A, mode="complete")`; `cholesky(A, upper=True)` →
  `linalg.cholesky(A).mH` (the conjugate transpose of the lower factor is the upper factor);
  `chain_matmul(a, b, ...)` → `linalg.multi_dot([a, b, ...])` (two or more matrices);
  `lu_solve(B, LU, pivots)` → `linalg.lu_solve(LU, pivots, B)`; `UpsamplingNearest2d(...)` →
  `Upsample(..., mode="nearest")` and `UpsamplingBilinear2d(...)` →
  `Upsample(..., mode="bilinear", align_corners=True)` (the deprecated classes are exactly these
  subclasses); `sdp_kernel(flags)` → `sdpa_kernel([...])` with the backends the flags enable,
  in the order PyTorch's own `sdp_kernel` passes them (flash, efficient, math, cuDNN).
- Unsafe: `torch.range(start, end, step)` → `torch.arange(start, end + step, step,
  dtype=torch.get_default_dtype())`. `range` returns the default floating dtype (float32) even for
  integer bounds, where `arange` infers int64, so the dtype is passed unless the call gives one
  (`dtype=`, `out=`) or a bound is a float literal. `range`
  includes `end`, `arange` excludes it; with a floating-point `step`, rounding of
  `(end - start) / step` can make the two differ by one element (`range` has
  ⌊(end − start)/step⌋ + 1 elements, the rewrite ⌈(end + step − start)/step⌉).
- Unsafe: `torch.testing.assert_allclose` → `torch.testing.assert_close`. `assert_close` checks
  dtype, device and layout equality by default (`assert_allclose` compared values only after
  promotion), and its default tolerances depend on the dtype (`float32`: rtol 1.3e-6, atol 1e-5)
  where `assert_allclose` used rtol 1e-5 / atol 1e-8 for float32 inputs from the NumPy defaults:
  a passing test can fail, or a failing one pass.
- An import of a symbol whose uses have all been rewritten is removed (the name occurring nowhere
  else in the file); `from functorch import vmap, grad` is rewritten to `from torch.func import ...`
  (each use of `vmap` / `grad` is reported too, with that same fix: the names stay).
  A reference that is not called (`f = torch.ger`) is renamed only where it is assigned to a
  name. A dict key or an argument (`{torch.ger: ...}`, `add_docstr(torch.ger, ...)`) stands for
  the function object itself, which the replacement is not: it is not reported, even once the
  function is removed (PyTorch keeps `solve`, `lstsq`, `eig`, `matrix_rank` and `symeig` as stubs
  that raise only when called: `torch/__init__.py` imports them from `torch/_linalg_utils.py` in
  2.6 and 2.14, so the attribute lookup works).
  An import that mixes such names with functorch's module API (`from functorch import
  make_functional, vmap`; `torch.func` replaces `make_functional` with `functional_call`, a
  different interface) is split: `make_functional` stays imported from functorch and `vmap` is
  imported from `torch.func` on the next line. No fix is offered when the statement holds a
  comment or shares its line with another statement; the message then says so.

## Releases
Each symbol carries its own dates, read in the release that deprecated or removed it
(`torch/_linalg_utils.py`, `torch/functional.py`, `torch/testing/_deprecated.py`, ... of 1.13, 2.6
and 2.14); a deprecation is reported when its replacement exists at the range's oldest release, a
removal when it falls inside the range (`torch.symeig`: removed in 2.0). Where 1.13 already
deprecates, the message says "1.13 or earlier".

## References
- [torch.linalg](https://pytorch.org/docs/stable/linalg.html) and the deprecation notes on
  [torch.qr](https://pytorch.org/docs/stable/generated/torch.qr.html),
  [torch.cholesky](https://pytorch.org/docs/stable/generated/torch.cholesky.html),
  [torch.chain_matmul](https://pytorch.org/docs/stable/generated/torch.chain_matmul.html),
  [torch.lu_solve](https://pytorch.org/docs/stable/generated/torch.lu_solve.html),
  [torch.range](https://pytorch.org/docs/stable/generated/torch.range.html)
- PyTorch 1.13 `torch/_linalg_utils.py`: [`solve`, `lstsq`, `eig`, `matrix_rank` removed](https://github.com/pytorch/pytorch/blob/v1.13.0/torch/_linalg_utils.py);
  deprecating pull requests [#57725](https://github.com/pytorch/pytorch/pull/57725) (cholesky),
  [#57732](https://github.com/pytorch/pytorch/pull/57732) (symeig; removed for 2.0 by
  [#70988](https://github.com/pytorch/pytorch/pull/70988), PyTorch 2.6 `torch/_linalg_utils.py` `_symeig` raises),
  [#57735](https://github.com/pytorch/pytorch/pull/57735) (chain_matmul),
  [#57741](https://github.com/pytorch/pytorch/pull/57741) (solve),
  [#57745](https://github.com/pytorch/pytorch/pull/57745) (qr)
- [torch/testing/_deprecated.py (1.13)](https://github.com/pytorch/pytorch/blob/v1.13.0/torch/testing/_deprecated.py): `assert_allclose` deprecated since 1.12
- [weight_norm deprecation, #103001](https://github.com/pytorch/pytorch/pull/103001)
- [torch/backends/cuda/__init__.py](https://github.com/pytorch/pytorch/blob/main/torch/backends/cuda/__init__.py): `sdp_kernel` is a deprecated wrapper of `torch.nn.attention.sdpa_kernel`
- [Migrating from functorch to torch.func](https://pytorch.org/docs/stable/func.migrating.html)
)md"};

bool atLeast(const Context& ctx, Version v) { return ctx.torchAtLeast(v.major, v.minor); }

std::string versionText(Version v) { return std::to_string(v.major) + "." + std::to_string(v.minor); }

// "since PyTorch 1.9", or "since PyTorch 1.13 or earlier" where 1.13 is only the oldest release
// whose sources were checked.
std::string sinceText(Version v) { return "since PyTorch " + versionText(v) + (v.or_earlier ? " or earlier" : ""); }

bool isRemoved(const Symbol& s, const Context& ctx) { return s.removed.known() && atLeast(ctx, s.removed); }

std::string_view parentOf(std::string_view qualified) {
  size_t dot = qualified.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : qualified.substr(0, dot);
}
std::string_view lastOf(std::string_view qualified) {
  size_t dot = qualified.rfind('.');
  return dot == std::string_view::npos ? qualified : qualified.substr(dot + 1);
}

// A module-level import the replacement needs beyond `torch` itself.
std::string_view moduleToImport(const Symbol& s) {
  if (s.replacement.starts_with("torch.func.")) return "torch.func";
  if (s.replacement.starts_with("torch.nn.attention.")) return "torch.nn.attention";
  return {};
}

// What is wrong and what to use first; the dates after, in one parenthesis with the range judged.
std::string message(const Symbol& s, const Context& ctx, std::string_view written) {
  (void)written;  // the underlined code shows how the file spells it
  std::string name = "`" + std::string(s.qualified) + "`";
  std::string use = "; use `" + std::string(s.replacement) + "`";
  std::string judged = "judged for `torch-version` " + versions::rangeText(ctx.settings()) + ")";
  if (isRemoved(s, ctx))
    return name + " was removed in PyTorch " + versionText(s.removed) + use + " (deprecated " +
           sinceText(s.deprecated) + "; " + judged;
  return name + " is deprecated" + use + " (" + sinceText(s.deprecated) + "; " + judged;
}

// --- The rewrite of one use --------------------------------------------------------------

struct Use {
  TSNode ref{};   // `torch.qr`, `T.qr`, `torch_qr`
  TSNode call{};  // the call whose callee is `ref`, or null
};

// The replacement's callee text at `ref`, and whether `import torch` is needed.
std::optional<std::string> calleeText(const Symbol& s, TSNode ref, const SemanticModel& model,
                                      std::vector<std::string_view>& imports) {
  // Same module: only the member changes (`nn.UpsamplingNearest2d` -> `nn.Upsample`).
  if (isKind(ref, kind::attribute)) {
    TSNode object = fieldOf(ref, "object");
    auto q = model.qualifiedName(object);
    if (q && *q == parentOf(s.replacement))
      return std::string(model.text(object)) + "." + std::string(lastOf(s.replacement));
  }
  bool needs_import = false;
  std::string prefix = rewrite::torchPrefix(ref, model, needs_import);
  if (prefix.empty()) return std::nullopt;
  std::string_view module = moduleToImport(s);
  if (!module.empty() && !model.importsModule(module)) imports.push_back(module);
  else if (needs_import) imports.push_back("torch");
  return prefix + std::string(s.replacement.substr(5));  // "torch.linalg.qr" -> prefix + ".linalg.qr"
}

std::string joinArgs(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += (out.empty() ? "" : ", ") + a;
  return out;
}

// The new call text for `use.call`, or nullopt when the arguments do not map.
std::optional<std::string> rewrittenCall(const Symbol& s, const std::string& callee, TSNode call,
                                         const SemanticModel& model) {
  std::string_view source = model.file().text();
  auto args = rewrite::plainArguments(call, source);
  if (!args) return std::nullopt;
  auto text = [&](TSNode n) { return std::string(analysis::textOf(n, source)); };
  std::vector<std::string> out;
  auto keepKeywords = [&](std::initializer_list<std::string_view> allowed) {
    for (const auto& [name, node] : args->keywords) {
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) return false;
      out.push_back(text(node));
    }
    return true;
  };
  const auto& p = args->positional;
  switch (s.rewrite) {
    case Rewrite::None: return std::nullopt;
    case Rewrite::Rename:
      return callee + std::string(analysis::textOf(argumentList(call), source));
    case Rewrite::PytreeRegister: {
      if (p.size() > 3 || args->hasKeyword("to_str_fn") || args->hasKeyword("maybe_from_str_fn")) return std::nullopt;
      return callee + std::string(analysis::textOf(argumentList(call), source));
    }
    case Rewrite::Qr: {
      if (p.empty() || p.size() > 2) return std::nullopt;
      TSNode some = p.size() == 2 ? p[1] : args->keywordValue("some");
      if (p.size() == 2 && args->hasKeyword("some")) return std::nullopt;
      out.push_back(text(p[0]));
      for (const auto& [name, node] : args->keywords) {
        if (name == "some") continue;
        if (name != "out") return std::nullopt;
        out.push_back(text(node));
      }
      if (!ts_node_is_null(some)) {
        if (isFalseLiteral(some)) out.push_back("mode=\"complete\"");
        else if (!isTrueLiteral(some)) return std::nullopt;
      }
      return callee + "(" + joinArgs(out) + ")";
    }
    case Rewrite::Cholesky: {
      if (p.empty() || p.size() > 2) return std::nullopt;
      TSNode upper = p.size() == 2 ? p[1] : args->keywordValue("upper");
      for (const auto& [name, node] : args->keywords)
        if (name != "upper") return std::nullopt;
      if (p.size() == 2 && args->hasKeyword("upper")) return std::nullopt;
      bool transpose = false;
      if (!ts_node_is_null(upper)) {
        if (isTrueLiteral(upper)) transpose = true;
        else if (!isFalseLiteral(upper)) return std::nullopt;
      }
      return callee + "(" + text(p[0]) + ")" + (transpose ? ".mH" : "");
    }
    case Rewrite::ChainMatmul: {
      if (p.size() < 2 || !args->keywords.empty()) return std::nullopt;
      for (TSNode n : p) out.push_back(text(n));
      return callee + "([" + joinArgs(out) + "])";
    }
    case Rewrite::LuSolve: {
      if (p.size() != 3 || !args->keywords.empty()) return std::nullopt;
      return callee + "(" + text(p[1]) + ", " + text(p[2]) + ", " + text(p[0]) + ")";
    }
    case Rewrite::Range: {
      if (p.size() < 2 || p.size() > 3) return std::nullopt;
      out.push_back(text(p[0]));
      std::string step = p.size() == 3 ? rewrite::asOperand(p[2], source) : "1";
      out.push_back(rewrite::asOperand(p[1], source) + " + " + step);
      if (p.size() == 3) out.push_back(text(p[2]));
      if (!keepKeywords({"dtype", "layout", "device", "requires_grad", "out"})) return std::nullopt;
      // `range` makes the default floating dtype whatever its bounds are; `arange` infers it from
      // them (int64 for integers). Floating-point bounds give the default dtype either way.
      bool floating = false;
      for (TSNode n : p) floating = floating || isKind(analysis::unparenthesize(n), kind::float_);
      if (!args->hasKeyword("dtype") && !args->hasKeyword("out") && !floating)
        out.push_back("dtype=" + callee.substr(0, callee.rfind('.')) + ".get_default_dtype()");
      return callee + "(" + joinArgs(out) + ")";
    }
    case Rewrite::UpsampleNearest:
    case Rewrite::UpsampleBilinear: {
      if (p.size() > 2) return std::nullopt;
      for (TSNode n : p) out.push_back(text(n));
      if (!keepKeywords({"size", "scale_factor"})) return std::nullopt;
      out.push_back(s.rewrite == Rewrite::UpsampleNearest ? "mode=\"nearest\""
                                                          : "mode=\"bilinear\", align_corners=True");
      return callee + "(" + joinArgs(out) + ")";
    }
    case Rewrite::SdpKernel: {
      // sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True)
      static constexpr std::array<std::string_view, 4> kParams{"enable_flash", "enable_math", "enable_mem_efficient",
                                                               "enable_cudnn"};
      if (p.size() > kParams.size()) return std::nullopt;
      std::array<bool, 4> on{true, true, true, true};
      for (size_t i = 0; i < p.size(); ++i) {
        if (!isTrueLiteral(p[i]) && !isFalseLiteral(p[i])) return std::nullopt;
        on[i] = isTrueLiteral(p[i]);
      }
      for (const auto& [name, node] : args->keywords) {
        auto it = std::find(kParams.begin(), kParams.end(), name);
        if (it == kParams.end()) return std::nullopt;
        size_t i = static_cast<size_t>(it - kParams.begin());
        if (i < p.size()) return std::nullopt;
        TSNode value = fieldOf(node, "value");
        if (!isTrueLiteral(value) && !isFalseLiteral(value)) return std::nullopt;
        on[i] = isTrueLiteral(value);
      }
      // The order PyTorch's sdp_kernel builds its list in: flash, efficient, math, cuDNN.
      std::string module = callee.substr(0, callee.rfind('.'));
      static constexpr std::array<std::pair<size_t, std::string_view>, 4> kOrder{
          {{0, "FLASH_ATTENTION"}, {2, "EFFICIENT_ATTENTION"}, {1, "MATH"}, {3, "CUDNN_ATTENTION"}}};
      for (auto [i, backend] : kOrder)
        if (on[i]) out.push_back(module + ".SDPBackend." + std::string(backend));
      if (out.empty()) return std::nullopt;
      return callee + "([" + joinArgs(out) + "])";
    }
  }
  return std::nullopt;
}

bool movesWithImport(const Symbol& s);

// `name = <node>`: the value of a plain assignment.
bool isAssignedValue(TSNode node) {
  TSNode parent = ts_node_parent(node);
  return isKind(parent, kind::assignment) && sameNode(fieldOf(parent, "right"), node);
}

std::optional<Fix> useFix(const Symbol& s, const Use& use, const Context& ctx) {
  if (s.rewrite == Rewrite::None || !atLeast(ctx, s.replacement_since)) return std::nullopt;
  const SemanticModel& model = ctx.model();
  std::vector<std::string_view> imports;
  auto callee = calleeText(s, use.ref, model, imports);
  if (!callee) return std::nullopt;
  std::vector<Edit> edits;
  if (!ts_node_is_null(use.call)) {
    auto call = rewrittenCall(s, *callee, use.call, model);
    if (!call) return std::nullopt;
    edits.push_back({startOf(use.call), endOf(use.call), *call});
  } else if (s.rewrite == Rewrite::Rename && (movesWithImport(s) || isAssignedValue(use.ref))) {
    // `f = functorch.vmap`, `outer = torch.ger`. Elsewhere a reference can be a dict key or
    // stand for the function object itself (`{torch.ger: ...}`, `add_docstr(torch.ger, ...)`),
    // where the replacement, a different object, would change what the code does.
    edits.push_back({startOf(use.ref), endOf(use.ref), *callee});
  } else {
    return std::nullopt;
  }
  for (std::string_view module : imports) {
    auto edit = quickfix::addImport(ctx.model(), "import " + std::string(module));
    if (!edit) return std::nullopt;
    edits.push_back(std::move(*edit));
  }
  if (!quickfix::normalizeEdits(edits)) return std::nullopt;
  return Fix{s.applicability, "Use `" + std::string(s.replacement) + "`", std::move(edits)};
}

// --- Compatibility fallbacks ---------------------------------------------------------------

// Does `root`, outside `skip`, refer to the replacement (`torch.nn.attention.sdpa_kernel`) or
// import from its module?
bool mentionsReplacement(TSNode root, TSNode skip, const Symbol& s, const SemanticModel& model) {
  if (ts_node_is_null(root)) return false;
  std::string_view replacement = s.replacement;
  bool found = false;
  analysis::walkTree(
      root,
      [&](TSNode node) {
        if (found || (!ts_node_is_null(skip) && sameNode(node, skip))) return false;
        analysis::NodeKind kind = kindOf(node);
        if (kind == kind::import_from_statement) {
          std::string_view from = model.text(fieldOf(node, "module_name"));
          found = !from.empty() && replacement.starts_with(from) &&
                  (replacement.size() == from.size() || replacement[from.size()] == '.');
          return false;
        }
        if (kind == kind::attribute || kind == kind::identifier) {
          auto q = model.qualifiedName(node);
          if (q && *q == replacement) found = true;
          return !found && kind == kind::attribute && !q;
        }
        return true;
      },
      [](TSNode) {});
  return found;
}

// A condition that tests the PyTorch release or a feature: `torch_version >= version.parse("2.3")`,
// `hasattr(torch.nn, "attention")`, `_TORCH_GREATER_EQUAL_2_3`.
bool isFeatureTest(TSNode condition, std::string_view source) {
  if (ts_node_is_null(condition)) return false;
  std::string text(analysis::textOf(condition, source));
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  bool version_flag = false;
  if (text.find("torch") != std::string::npos)
    for (size_t i = 1; i + 1 < text.size() && !version_flag; ++i)
      version_flag = text[i] == '_' && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                     std::isdigit(static_cast<unsigned char>(text[i + 1]));
  return version_flag || text.find("version") != std::string::npos || text.find("hasattr") != std::string::npos;
}

// Does any condition of an `if` statement (its own or an `elif`'s) test a release or feature?
bool chainTestsFeature(TSNode if_statement, std::string_view source) {
  if (isFeatureTest(fieldOf(if_statement, "condition"), source)) return true;
  bool found = false;
  analysis::forEachNamedChild(if_statement, [&](TSNode clause) {
    if (!found && isKind(clause, kind::elif_clause)) found = isFeatureTest(fieldOf(clause, "condition"), source);
  });
  return found;
}

// True when `node` is the old-release side of code that also uses the replacement: an `except`
// handler whose `try` uses it, or a branch of an `if` (or conditional expression) chosen by a
// version or feature test whose other branch uses it. Such code supports old PyTorch releases.
bool inCompatibilityFallback(TSNode node, const Symbol& s, const Context& ctx) {
  const SemanticModel& model = ctx.model();
  TSNode child = node;
  for (TSNode parent = ts_node_parent(node); !ts_node_is_null(parent);
       child = parent, parent = ts_node_parent(parent)) {
    analysis::NodeKind kind = kindOf(parent);
    if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::module) return false;
    if (kind == kind::try_statement && isKind(child, kind::except_clause)) {
      if (mentionsReplacement(fieldOf(parent, "body"), {}, s, model)) return true;
    } else if (kind == kind::if_statement || kind == kind::conditional_expression) {
      TSNode condition = kind == kind::if_statement ? fieldOf(parent, "condition") : ts_node_named_child(parent, 1);
      bool feature = kind == kind::if_statement ? chainTestsFeature(parent, ctx.source())
                                            : isFeatureTest(condition, ctx.source());
      if (!sameNode(condition, child) && feature && mentionsReplacement(parent, child, s, model))
        return true;
    }
  }
  return false;
}

void reportUse(const Symbol& s, const Use& use, Context& ctx) {
  if (inCompatibilityFallback(use.ref, s, ctx)) return;
  TSNode range = ts_node_is_null(use.call) ? use.ref : use.call;
  Diagnostic& d = ctx.report(range, message(s, ctx, ctx.text(use.ref)));
  if (isRemoved(s, ctx)) d.severity = Severity::Error;
  d.fix = useFix(s, use, ctx);
}

TSNode callOf(TSNode ref) {
  TSNode parent = ts_node_parent(ref);
  if (isKind(parent, kind::call) && sameNode(fieldOf(parent, "function"), ref)) return parent;
  return {};
}

// --- Imports -------------------------------------------------------------------------------

std::string dottedText(TSNode node, std::string_view source) {
  if (!isKind(node, kind::dotted_name)) return std::string(analysis::textOf(node, source));
  std::string out;
  analysis::forEachNamedChild(node, [&](TSNode part) {
    if (!out.empty()) out += '.';
    out += analysis::textOf(part, source);
  });
  return out;
}

// A functorch name moved unchanged to torch.func: the import alone is rewritten.
bool movesWithImport(const Symbol& s) { return s.qualified.starts_with("functorch."); }

struct ImportedName {
  TSNode node{};           // dotted_name or aliased_import
  std::string_view bound;  // the name it binds
  const Symbol* symbol = nullptr;  // null: not a symbol reported at this version
};

bool inExceptHandler(TSNode node) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    analysis::NodeKind kind = kindOf(n);
    if (kind == kind::except_clause) return true;
    if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::module) return false;
  }
  return false;
}

// Where `word` occurs as a whole word outside [from, to), other than as an attribute name
// (`torch.linalg.cholesky` does not use a bare `cholesky`); strings and comments count.
std::vector<uint32_t> bareOccurrences(std::string_view source, std::string_view word, uint32_t from, uint32_t to) {
  std::vector<uint32_t> out;
  analysis::forEachWholeWord(source, word, [&](size_t at) {
    if ((at < from || at >= to) && !(at > 0 && source[at - 1] == '.')) out.push_back(static_cast<uint32_t>(at));
    return false;
  });
  return out;
}

bool isReferenceIn(TSNode identifier, TSNode parent) {
  analysis::NodeKind kind = kindOf(parent);
  if (kind == kind::attribute) return !sameNode(fieldOf(parent, "attribute"), identifier);
  if (kind == kind::keyword_argument) return !sameNode(fieldOf(parent, "name"), identifier);
  if (kind == kind::function_definition || kind == kind::class_definition) return !sameNode(fieldOf(parent, "name"), identifier);
  if (kind == kind::assignment || kind == kind::augmented_assignment) return !sameNode(fieldOf(parent, "left"), identifier);
  return kind != kind::global_statement && kind != kind::nonlocal_statement && kind != kind::parameters &&
         kind != kind::default_parameter && kind != kind::typed_parameter && kind != kind::typed_default_parameter &&
         kind != kind::lambda_parameters && kind != kind::dotted_name && kind != kind::aliased_import;
}

struct NameUse {
  Use use;
  const Symbol* symbol = nullptr;
  const Binding* binding = nullptr;
  std::optional<Fix> fix;  // this use alone
};

// One `from M import a, b as c` statement that imports deprecated names.
struct ImportGroup {
  TSNode statement{};
  std::vector<const NameUse*> uses;
  std::unordered_set<std::string_view> dropped;  // bound names the group fix removes
  std::optional<Fix> fix;
};

// The edit that removes `names` from the import statement (the statement itself when nothing is
// left), or nullopt when it cannot be done cleanly.
std::optional<Edit> importRemoval(TSNode statement, const std::vector<ImportedName>& all,
                                  const std::unordered_set<std::string_view>& dropped, std::string_view source) {
  bool has_comment = false;
  analysis::forEachNamedChild(statement, [&](TSNode c) { has_comment = has_comment || isKind(c, kind::comment); });
  if (has_comment) return std::nullopt;
  std::vector<std::string> kept;
  for (const ImportedName& n : all)
    if (!dropped.contains(n.bound)) kept.push_back(std::string(analysis::textOf(n.node, source)));
  Edit edit{startOf(statement), endOf(statement), {}};
  if (!kept.empty()) {
    edit.content = "from " + std::string(analysis::textOf(fieldOf(statement, "module_name"), source)) + " import " +
                   joinArgs(kept);
    return edit;
  }
  TSNode parent = ts_node_parent(statement);
  uint32_t statements = 0;
  analysis::forEachNamedChild(parent, [&](TSNode c) { statements += isKind(c, kind::comment) ? 0 : 1; });
  uint32_t line_start = startOf(statement);
  while (line_start > 0 && (source[line_start - 1] == ' ' || source[line_start - 1] == '\t')) --line_start;
  uint32_t rest = endOf(statement);
  while (rest < source.size() && (source[rest] == ' ' || source[rest] == '\t')) ++rest;
  bool own_line = line_start == 0 || source[line_start - 1] == '\n';
  if (isKind(parent, kind::block) && statements == 1) {
    edit.content = "pass";  // the block would be empty
  } else if (!own_line) {
    return std::nullopt;  // `x = 1; from torch import qr`
  } else if (rest < source.size() && source[rest] == '\n') {
    edit = {line_start, rest + 1, {}};  // the whole line
  } else if (rest < source.size() && source[rest] == '#') {
    edit = {startOf(statement), rest, {}};  // the trailing comment stays
  } else if (rest >= source.size()) {
    edit = {line_start, static_cast<uint32_t>(source.size()), {}};
  } else {
    return std::nullopt;  // `from torch import qr; x = 1`
  }
  return edit;
}

// `from functorch import make_functional, vmap as v` -> `from functorch import make_functional`
// and `from torch.func import vmap as v` on the next line, at the same indentation: the bound
// names do not change, so their uses stay. Nullopt when the statement holds a comment or does not
// stand on a line of its own.
std::optional<Fix> functorchSplit(TSNode statement, const std::vector<ImportedName>& all, const Context& ctx) {
  std::string_view source = ctx.source();
  bool has_comment = false;
  analysis::forEachNamedChild(statement, [&](TSNode c) { has_comment = has_comment || isKind(c, kind::comment); });
  if (has_comment) return std::nullopt;
  uint32_t line_start = startOf(statement);
  while (line_start > 0 && (source[line_start - 1] == ' ' || source[line_start - 1] == '\t')) --line_start;
  if (line_start > 0 && source[line_start - 1] != '\n') return std::nullopt;
  uint32_t rest = endOf(statement);
  while (rest < source.size() && (source[rest] == ' ' || source[rest] == '\t')) ++rest;
  if (rest < source.size() && source[rest] != '\n' && source[rest] != '\r' && source[rest] != '#') return std::nullopt;
  std::vector<std::string> kept, moved;
  for (const ImportedName& n : all) {
    bool moves = n.symbol != nullptr && movesWithImport(*n.symbol) && atLeast(ctx, n.symbol->replacement_since);
    (moves ? moved : kept).push_back(std::string(analysis::textOf(n.node, source)));
  }
  if (moved.empty() || kept.empty()) return std::nullopt;
  std::string indent(source.substr(line_start, startOf(statement) - line_start));
  std::string eol = source.find("\r\n") != std::string_view::npos ? "\r\n" : "\n";
  std::string text = "from functorch import " + joinArgs(kept) + eol + indent + "from torch.func import " + joinArgs(moved);
  return Fix{quickfix::Applicability::Safe, "Import " + joinArgs(moved) + " from `torch.func`",
             {{startOf(statement), endOf(statement), std::move(text)}}};
}

// Imports of deprecated names and every use of the names they bind, in one pass over the file:
// an import whose names are all rewritten at their uses is removed by the same fix, so that the
// import and its uses are fixed together.
void checkImports(TSNode root, Context& ctx) {
  const SemanticModel& model = ctx.model();
  std::string_view source = ctx.source();
  std::unordered_map<const Binding*, const Symbol*> bound;  // names whose uses are reported
  std::unordered_map<const void*, ImportGroup> groups;
  std::unordered_set<std::string_view> names;
  for (const Binding* binding : model.imports()) {
    const Symbol* s = deprecated::findSymbol(analysis::canonicalQualifiedName(binding->qualified_name));
    if (s == nullptr || !atLeast(ctx, s->deprecated)) continue;
    if (!isKind(binding->statement, kind::import_from_statement)) continue;
    // `try: from torch.func import vmap / except ImportError: from functorch import vmap`, and the
    // same choice made by a version test (`if TORCH_2: ... else: from functorch import vmap`).
    if (binding->is_fallback || inExceptHandler(binding->statement) ||
        inCompatibilityFallback(binding->statement, *s, ctx))
      continue;
    groups[binding->statement.id].statement = binding->statement;
    bound.emplace(binding, s);
    names.insert(binding->name);
  }
  if (groups.empty()) return;

  // 1. Uses of the bound names (not inside import statements).
  std::vector<NameUse> uses;
  if (!bound.empty()) {
    analysis::WordPositions words;
    for (std::string_view word : names) words.add(source, word);
    std::vector<TSNode> path;
    analysis::walkTree(
        root,
        [&](TSNode node) {
          path.push_back(node);
          if (!words.anyWithin(startOf(node), endOf(node))) return false;
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::import_statement || kind == kind::import_from_statement) return false;
          if (kind != kind::identifier) return true;
          std::string_view text = model.text(node);
          if (!names.contains(text) || path.size() < 2 || !isReferenceIn(node, path[path.size() - 2])) return true;
          const Binding* binding = model.resolve(text, node);
          auto it = bound.find(binding);
          if (it == bound.end()) return true;
          TSNode parent = path[path.size() - 2];
          TSNode call = isKind(parent, kind::call) && sameNode(fieldOf(parent, "function"), node) ? parent : TSNode{};
          uses.push_back({{node, call}, it->second, binding, std::nullopt});
          return true;
        },
        [&](TSNode) { path.pop_back(); });
  }
  for (NameUse& use : uses) {
    // A functorch name is fixed at its import (the module changes, the name stays).
    if (!movesWithImport(*use.symbol)) use.fix = useFix(*use.symbol, use.use, ctx);
    groups[use.binding->statement.id].uses.push_back(&use);
  }

  // 2. One report per import statement; its fix also rewrites the uses.
  for (auto& [id, group] : groups) {
    TSNode statement = group.statement;
    TSNode module_node = fieldOf(statement, "module_name");
    if (!isKind(module_node, kind::dotted_name)) continue;
    std::string module = dottedText(module_node, source);
    std::vector<ImportedName> all;
    std::vector<const ImportedName*> deprecated_names;
    analysis::forEachFieldChild(statement, "name", [&](TSNode name) {
      bool aliased = isKind(name, kind::aliased_import);
      TSNode dotted = aliased ? fieldOf(name, "name") : name;
      TSNode bound_node = aliased ? fieldOf(name, "alias") : name;
      const Symbol* s = deprecated::findSymbol(analysis::canonicalQualifiedName(module + "." + dottedText(dotted, source)));
      if (s != nullptr && !atLeast(ctx, s->deprecated)) s = nullptr;
      all.push_back({name, analysis::textOf(bound_node, source), s});
    });
    std::string list;
    bool removed = false;
    for (const ImportedName& n : all) {
      if (n.symbol == nullptr) continue;
      deprecated_names.push_back(&n);
      list += (list.empty() ? "`" : ", `") + std::string(n.symbol->qualified) + "`";
      removed = removed || isRemoved(*n.symbol, ctx);
    }
    if (deprecated_names.empty()) continue;
    std::string text = deprecated_names.size() == 1 ? "Import of " + message(*deprecated_names.front()->symbol, ctx, {})
                                                     : "Import of deprecated " + list + versions::judgedFor(ctx.settings());
    Diagnostic& d = ctx.report(statement, text);
    if (removed) d.severity = Severity::Error;

    // Every name moved unchanged to torch.func: rewrite the module, the uses stay.
    bool all_move = std::all_of(all.begin(), all.end(), [&](const ImportedName& n) {
      return n.symbol != nullptr && movesWithImport(*n.symbol) && atLeast(ctx, n.symbol->replacement_since);
    });
    if (all_move && module == "functorch") {
      d.fix = Fix{quickfix::Applicability::Safe, "Import from `torch.func`",
                  {{startOf(module_node), endOf(module_node), "torch.func"}}};
      group.fix = d.fix;
      continue;
    }
    if (module == "functorch") {
      // `from functorch import make_functional, vmap`: the names torch.func has move to a
      // `from torch.func import` of their own; the others (functorch's module API, which
      // torch.func replaces with a different one) stay.
      if (auto split = functorchSplit(statement, all, ctx)) {
        d.fix = std::move(split);
        group.fix = d.fix;
      } else {
        d.message += "; no fix: the statement has a comment or shares its line";
      }
      continue;
    }
    // Names whose every use is rewritten, and that occur nowhere else, are dropped.
    std::vector<Edit> edits;
    auto applicability = quickfix::Applicability::Safe;
    for (const ImportedName* n : deprecated_names) {
      if (movesWithImport(*n->symbol)) continue;
      std::vector<const NameUse*> own;
      for (const NameUse* u : group.uses)
        if (u->binding->name == n->bound) own.push_back(u);
      bool fixable = std::all_of(own.begin(), own.end(), [](const NameUse* u) { return u->fix.has_value(); });
      std::vector<uint32_t> occurrences = bareOccurrences(source, n->bound, startOf(statement), endOf(statement));
      bool only_uses = occurrences.size() == own.size() &&
                       std::all_of(own.begin(), own.end(), [&](const NameUse* u) {
                         return std::find(occurrences.begin(), occurrences.end(), startOf(u->use.ref)) != occurrences.end();
                       });
      if (!fixable || !only_uses || own.size() > 256) continue;
      group.dropped.insert(n->bound);
      for (const NameUse* u : own) {
        if (u->fix->applicability == quickfix::Applicability::Unsafe) applicability = quickfix::Applicability::Unsafe;
        for (const Edit& e : u->fix->edits) {
          bool duplicate = std::any_of(edits.begin(), edits.end(), [&](const Edit& x) {
            return x.start == e.start && x.end == e.end && x.content == e.content;
          });
          if (!duplicate) edits.push_back(e);
        }
      }
    }
    if (group.dropped.empty()) continue;
    auto removal = importRemoval(statement, all, group.dropped, source);
    if (!removal) {
      group.dropped.clear();
      continue;
    }
    edits.push_back(std::move(*removal));
    if (!quickfix::normalizeEdits(edits)) {
      group.dropped.clear();
      continue;
    }
    group.fix = Fix{applicability, "Rewrite the uses and remove the deprecated import", std::move(edits)};
    d.fix = group.fix;
  }

  // 3. The uses: with the import's fix where it covers them.
  for (NameUse& u : uses) {
    if (inCompatibilityFallback(u.use.ref, *u.symbol, ctx)) continue;
    const ImportGroup& group = groups[u.binding->statement.id];
    TSNode range = ts_node_is_null(u.use.call) ? u.use.ref : u.use.call;
    Diagnostic& d = ctx.report(range, message(*u.symbol, ctx, ctx.text(u.use.ref)));
    if (isRemoved(*u.symbol, ctx)) d.severity = Severity::Error;
    if (movesWithImport(*u.symbol)) d.fix = group.fix;  // the import's fix: `vmap` stays `vmap`
    else d.fix = group.dropped.contains(u.binding->name) ? group.fix : u.fix;
  }
}

class DeprecatedTorchFunction final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDeprecatedTorchFunction; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::module, kind::attribute}; }
  // Not the bare last segments: an everyday one (`range`, `norm`) only counts after `.` or in a
  // `from torch` import, which these words say (see mayUseSymbols).
  std::vector<std::string_view> triggers() const override {
    auto words = deprecated::prefilterWords();
    return {words.begin(), words.end()};
  }
  // Also on the text without its strings and comments (docstrings name `torch.svd` freely),
  // where a name must be a whole identifier.
  bool mayMatchSource(const analysis::PrefilterText& source, const Settings&) const override {
    // The text first unless another prefilter already made the code view (making it costs more
    // than this test), then the code.
    bool text_first = !source.codeComputed();
    if (text_first && !deprecated::mayUseSymbols(source.text())) return false;
    const std::string* code = source.code();
    return (code == nullptr || deprecated::mayUseSymbols(*code, true)) &&
           (text_first || deprecated::mayUseSymbols(source.text()));
  }
  bool mayMatchText(std::string_view text, const Settings& settings) const override {
    return mayMatchSource(analysis::PrefilterText(text), settings);
  }

  // Every attribute reported ends with a symbol's last segment (the module node is always checked).
  bool checksWithinRanges() const override { return true; }
  std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel& model,
                                                         const Settings&) const override {
    // Every whole identifier that is some symbol's last segment, in one pass over the text.
    static const analysis::WordSet members = [] {
      std::vector<std::string_view> words;
      for (std::string_view word : deprecated::symbolMembers())
        if (!word.empty()) words.push_back(word);
      return analysis::WordSet(words);
    }();
    // Attributes are code: strings and comments need no look.
    std::string_view text = analysis::codeOrText(model.file());
    std::vector<std::pair<uint32_t, uint32_t>> ranges;
    members.forEachMatchUnordered(text, [&](size_t id, size_t at) {
      size_t size = members.word(id).size();
      if (analysis::isWholeWordAt(text, at, size)) ranges.emplace_back(static_cast<uint32_t>(at), static_cast<uint32_t>(at + size));
    });
    return ranges;
  }

  void check(TSNode node, Context& ctx) const override {
    analysis::NodeKind kind = kindOf(node);
    if (kind == kind::module) return checkImports(node, ctx);
    // An attribute chain: one set lookup on its last name, one table lookup on what it resolves to.
    if (!deprecated::isSymbolMember(ctx.text(fieldOf(node, "attribute")))) return;
    auto q = ctx.model().qualifiedName(node);
    const Symbol* s = q ? deprecated::findSymbol(*q) : nullptr;
    if (s == nullptr || !atLeast(ctx, s->deprecated)) return;
    TSNode call = callOf(node);
    // A reference that is neither called nor bound to a name stands for the function object
    // itself (`{torch.ger: ...}`, `add_docstr(torch.ger, ...)`, `op=torch.qr` in a table of
    // operators): nothing runs the deprecated function there. The removed ones too: PyTorch keeps
    // them as stubs that raise when called (2.6 and 2.14 `torch/__init__.py` imports `solve`,
    // `lstsq`, `eig`, `matrix_rank`, `symeig` from `torch/_linalg_utils.py`), so the lookup works.
    if (ts_node_is_null(call) && !isAssignedValue(node)) return;
    reportUse(*s, {node, call}, ctx);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL106, DeprecatedTorchFunction)

}  // namespace ptlint::rules
