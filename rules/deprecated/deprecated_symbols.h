// The table of deprecated and removed PyTorch functions, classes and module aliases that PTL106
// reports: one entry per symbol, with the versions that deprecated and removed it, its
// replacement and how a use is rewritten. Every version is checked against PyTorch's sources.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "quickfix/fix.h"

namespace ptlint::rules::deprecated {

struct Version {
  int major = 0, minor = 0;
  // The release is the oldest one checked, not the first one: the fact already holds there and
  // may go back further (the table's "1.13 or earlier").
  bool or_earlier = false;
  bool known() const { return major != 0 || minor != 0; }
};

// How a use is rewritten (the replacement's own argument conventions).
enum class Rewrite {
  None,              // no mechanical rewrite: results or signatures differ
  Rename,            // same arguments, new name (`functorch.vmap` -> `torch.func.vmap`)
  Qr,                // qr(A, some) -> linalg.qr(A, mode="complete" when some=False)
  Cholesky,          // cholesky(A, upper=True) -> linalg.cholesky(A).mH
  ChainMatmul,       // chain_matmul(a, b, c) -> linalg.multi_dot([a, b, c])
  LuSolve,           // lu_solve(b, LU, pivots) -> linalg.lu_solve(LU, pivots, b)
  Range,             // range(a, b[, s]) -> arange(a, b + s[, s])
  UpsampleNearest,   // nn.UpsamplingNearest2d(...) -> nn.Upsample(..., mode="nearest")
  UpsampleBilinear,  // nn.UpsamplingBilinear2d(...) -> nn.Upsample(..., mode="bilinear", align_corners=True)
  SdpKernel,         // sdp_kernel(flags) -> nn.attention.sdpa_kernel([backends])
  PytreeRegister,    // _register_pytree_node(cls, f, u) -> register_pytree_node(cls, f, u)
};

struct Symbol {
  std::string_view qualified;    // "torch.qr"
  std::string_view replacement;  // "torch.linalg.qr"
  Version deprecated;            // the release whose docs or warnings first deprecate it
  Version removed;               // the first release without it (unknown: {})
  Version replacement_since;     // the first release that has the rewrite's target
  Rewrite rewrite = Rewrite::None;
  quickfix::Applicability applicability = quickfix::Applicability::Safe;
  std::string_view reference;    // PyTorch source or docs behind the version facts
};

std::span<const Symbol> symbols();
// One lookup per resolved name (aliases such as `torch.functional.norm` included); null if absent.
const Symbol* findSymbol(std::string_view qualified);
// True when `name` is the last segment of some symbol: the cheap test before resolving a chain.
bool isSymbolMember(std::string_view name);
// Every such last segment (unordered).
std::vector<std::string_view> symbolMembers();
// Byte strings one of which every file using a symbol contains: each last segment, and
// `functorch`.
std::span<const std::string_view> triggerWords();
// The finer test before parsing: false when no occurrence of a last segment can name a symbol
// (`x.norm()` on an object other than torch, `range(3)` outside a `from torch import`).
// With `whole_words`, for code whose strings and comments are blanked: a last segment counts only
// as a whole identifier (not `cholesky` in `cholesky_solve`), after an object that can lead to a
// symbol (`torch.cholesky`, not `torch.linalg.cholesky` or `self.cholesky`) or in a
// `from torch... import`.
bool mayUseSymbols(std::string_view text, bool whole_words = false);
// Byte strings one of which every text that passes mayUseSymbols(text) contains (so a rule may
// trigger on them): the last segments that are not everyday names, `.` + each everyday one
// (`.norm`), `from torch`, and the functorch imports.
std::span<const std::string_view> prefilterWords();

}  // namespace ptlint::rules::deprecated
