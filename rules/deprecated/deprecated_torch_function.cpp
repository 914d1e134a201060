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
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/deprecated/call_rewrite.h"
#include "rules/deprecated/deprecated_function_use.h"
#include "rules/deprecated/deprecated_symbols.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::kindOf;
using deprecated::Symbol;
using deprecated_function::atLeast;
using deprecated_function::callOf;
using deprecated_function::checkImports;
using deprecated_function::isAssignedValue;
using deprecated_function::reportUse;

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
deprecating release may be older, and the help says so ("since PyTorch 1.13 or earlier"). The rule
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
  comment or shares its line with another statement; the help then says so.

## Releases
Each symbol carries its own dates, read in the release that deprecated or removed it
(`torch/_linalg_utils.py`, `torch/functional.py`, `torch/testing/_deprecated.py`, ... of 1.13, 2.6
and 2.14); a deprecation is reported when its replacement exists at the range's oldest release, a
removal when it falls inside the range (`torch.symeig`: removed in 2.0). Where 1.13 already
deprecates, the help says "1.13 or earlier".

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

class DeprecatedTorchFunction final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDeprecatedTorchFunction; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::module, kind::attribute}; }
  // Not the bare last segments: an everyday one (`range`, `norm`) only counts after `.` or in a
  // `from torch` import, which these words say (see mayUseSymbols).
  // Also on the text without its strings and comments (docstrings name `torch.svd` freely),
  // where a name must be a whole identifier.
  Prefilter prefilter() const override {
    auto words = deprecated::prefilterWords();
    return {.words = {words.begin(), words.end()}};
  }
  bool mayReport(const PrefilterInput& input, const Settings&) const override {
    if (input.parsed != nullptr) return true;
    const analysis::PrefilterText& source = input.source;
    // The text first unless another prefilter already made the code view (making it costs more
    // than this test), then the code. What passes on the code passes on the text (the code is the
    // text with strings and comments blanked), so the code alone answers when it is there.
    if (!source.codeComputed() && !deprecated::mayUseSymbols(source.text())) return false;
    const std::string* code = source.code();
    return code == nullptr || deprecated::mayUseSymbols(*code, true);
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
