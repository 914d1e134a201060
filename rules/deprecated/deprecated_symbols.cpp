#include "rules/deprecated/deprecated_symbols.h"

#include <array>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace ptlint::rules::deprecated {
namespace {

using quickfix::Applicability;

// Sources of the version facts:
// - v1.13.0 torch/_linalg_utils.py: `matrix_rank`, `solve`, `lstsq`, `eig` raise "This function
//   was deprecated since version 1.9 and is now removed".
// - v1.13.0 torch/_torch_docs.py and torch/functional.py: the deprecation warnings of `symeig`,
//   `qr`, `cholesky`, `ger`, `lu_solve`, `triangular_solve`, `svd`, `range`, `chain_matmul`,
//   `lu`, `norm`; torch/nn/modules/upsampling.py: `UpsamplingNearest2d` / `UpsamplingBilinear2d`
//   "deprecated in favor of interpolate"; torch/testing/_deprecated.py: `assert_allclose`
//   "deprecated since 1.12". The pull requests that added the 1.9 linalg deprecations are cited
//   per entry. Where the first deprecating release could not be established, the table uses the
//   oldest release whose source shows the deprecation (1.13): the rule may stay silent for older
//   `torch-version` settings, never report too early.
// - torch.func appeared in 2.0 (absent from 1.13): the functorch names it replaces.
constexpr std::array<Symbol, 29> kSymbols{{
    {"torch.solve", "torch.linalg.solve", {1, 9}, {1, 13}, {1, 9}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/_linalg_utils.py"},
    {"torch.lstsq", "torch.linalg.lstsq", {1, 9}, {1, 13}, {1, 9}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/_linalg_utils.py"},
    {"torch.eig", "torch.linalg.eig", {1, 9}, {1, 13}, {1, 9}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/_linalg_utils.py"},
    {"torch.matrix_rank", "torch.linalg.matrix_rank", {1, 9}, {1, 13}, {1, 9}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/_linalg_utils.py"},
    {"torch.symeig", "torch.linalg.eigh", {1, 9}, {}, {1, 9}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/pull/57732"},
    {"torch.qr", "torch.linalg.qr", {1, 9}, {}, {1, 9}, Rewrite::Qr, Applicability::Safe,
     "https://github.com/pytorch/pytorch/pull/57745"},
    {"torch.cholesky", "torch.linalg.cholesky", {1, 9}, {}, {1, 11}, Rewrite::Cholesky, Applicability::Safe,
     "https://github.com/pytorch/pytorch/pull/57725"},
    {"torch.chain_matmul", "torch.linalg.multi_dot", {1, 9}, {}, {1, 9}, Rewrite::ChainMatmul, Applicability::Safe,
     "https://github.com/pytorch/pytorch/pull/57735"},
    {"torch.ger", "torch.outer", {1, 13}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://pytorch.org/docs/stable/generated/torch.ger.html"},
    {"torch.lu", "torch.linalg.lu_factor", {1, 13}, {}, {1, 13}, Rewrite::None, Applicability::Safe,
     "https://pytorch.org/docs/stable/generated/torch.lu.html"},
    {"torch.lu_solve", "torch.linalg.lu_solve", {1, 13}, {}, {1, 13}, Rewrite::LuSolve, Applicability::Safe,
     "https://pytorch.org/docs/stable/generated/torch.lu_solve.html"},
    {"torch.triangular_solve", "torch.linalg.solve_triangular", {1, 13}, {}, {1, 13}, Rewrite::None,
     Applicability::Safe, "https://pytorch.org/docs/stable/generated/torch.triangular_solve.html"},
    {"torch.svd", "torch.linalg.svd", {1, 13}, {}, {1, 13}, Rewrite::None, Applicability::Safe,
     "https://pytorch.org/docs/stable/generated/torch.svd.html"},
    {"torch.norm", "torch.linalg.norm", {1, 13}, {}, {1, 13}, Rewrite::None, Applicability::Safe,
     "https://pytorch.org/docs/stable/generated/torch.norm.html"},
    {"torch.range", "torch.arange", {1, 13}, {}, {1, 13}, Rewrite::Range, Applicability::Unsafe,
     "https://pytorch.org/docs/stable/generated/torch.range.html"},
    {"torch.nn.UpsamplingNearest2d", "torch.nn.Upsample", {1, 13}, {}, {1, 13}, Rewrite::UpsampleNearest,
     Applicability::Safe, "https://pytorch.org/docs/stable/generated/torch.nn.UpsamplingNearest2d.html"},
    {"torch.nn.UpsamplingBilinear2d", "torch.nn.Upsample", {1, 13}, {}, {1, 13}, Rewrite::UpsampleBilinear,
     Applicability::Safe, "https://pytorch.org/docs/stable/generated/torch.nn.UpsamplingBilinear2d.html"},
    {"torch.testing.assert_allclose", "torch.testing.assert_close", {1, 12}, {}, {1, 12}, Rewrite::Rename,
     Applicability::Unsafe, "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/testing/_deprecated.py"},
    {"torch.nn.utils.weight_norm", "torch.nn.utils.parametrizations.weight_norm", {2, 1}, {}, {2, 1}, Rewrite::None,
     Applicability::Safe, "https://github.com/pytorch/pytorch/pull/103001"},
    {"torch.utils._pytree._register_pytree_node", "torch.utils._pytree.register_pytree_node", {2, 2}, {}, {2, 2},
     Rewrite::PytreeRegister, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/main/torch/utils/_pytree.py"},
    {"torch.backends.cuda.sdp_kernel", "torch.nn.attention.sdpa_kernel", {2, 3}, {}, {2, 5}, Rewrite::SdpKernel,
     Applicability::Safe, "https://github.com/pytorch/pytorch/blob/main/torch/backends/cuda/__init__.py"},
    {"functorch.vmap", "torch.func.vmap", {2, 0}, {}, {2, 0}, Rewrite::Rename, Applicability::Safe,
     "https://pytorch.org/docs/stable/func.migrating.html"},
    {"functorch.grad", "torch.func.grad", {2, 0}, {}, {2, 0}, Rewrite::Rename, Applicability::Safe,
     "https://pytorch.org/docs/stable/func.migrating.html"},
    {"functorch.vjp", "torch.func.vjp", {2, 0}, {}, {2, 0}, Rewrite::Rename, Applicability::Safe,
     "https://pytorch.org/docs/stable/func.migrating.html"},
    {"functorch.jvp", "torch.func.jvp", {2, 0}, {}, {2, 0}, Rewrite::Rename, Applicability::Safe,
     "https://pytorch.org/docs/stable/func.migrating.html"},
    {"functorch.jacrev", "torch.func.jacrev", {2, 0}, {}, {2, 0}, Rewrite::Rename, Applicability::Safe,
     "https://pytorch.org/docs/stable/func.migrating.html"},
    {"functorch.jacfwd", "torch.func.jacfwd", {2, 0}, {}, {2, 0}, Rewrite::Rename, Applicability::Safe,
     "https://pytorch.org/docs/stable/func.migrating.html"},
    {"functorch.hessian", "torch.func.hessian", {2, 0}, {}, {2, 0}, Rewrite::Rename, Applicability::Safe,
     "https://pytorch.org/docs/stable/func.migrating.html"},
    {"functorch.functionalize", "torch.func.functionalize", {2, 0}, {}, {2, 0}, Rewrite::Rename, Applicability::Safe,
     "https://pytorch.org/docs/stable/func.migrating.html"},
}};

// Where PyTorch defines or re-exports the same objects under a longer path.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kAliases{{
    {"torch.functional.norm", "torch.norm"},
    {"torch.functional.chain_matmul", "torch.chain_matmul"},
    {"torch.functional.lu", "torch.lu"},
    {"torch.nn.modules.upsampling.UpsamplingNearest2d", "torch.nn.UpsamplingNearest2d"},
    {"torch.nn.modules.UpsamplingNearest2d", "torch.nn.UpsamplingNearest2d"},
    {"torch.nn.modules.upsampling.UpsamplingBilinear2d", "torch.nn.UpsamplingBilinear2d"},
}};

std::string_view lastSegment(std::string_view name) {
  size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

struct Index {
  std::unordered_map<std::string_view, const Symbol*> by_name;
  std::unordered_set<std::string_view> members;
  std::vector<std::string> trigger_storage;
  std::vector<std::string_view> words;
  Index() {
    for (const Symbol& s : kSymbols) by_name.emplace(s.qualified, &s);
    for (auto [alias, target] : kAliases) by_name.emplace(alias, by_name.at(target));
    for (const auto& [name, symbol] : by_name) members.insert(lastSegment(name));
    // A use spells `.member` (`torch.qr`, `T.nn.UpsamplingNearest2d`) or imports the name from a
    // torch module (`from torch import qr`) or from functorch.
    trigger_storage = {"from torch", "functorch"};
    for (std::string_view member : members)
      trigger_storage.push_back("." + std::string(member));
    words.assign(trigger_storage.begin(), trigger_storage.end());
  }
};

const Index& index() {
  static const Index instance;
  return instance;
}

}  // namespace

std::span<const Symbol> symbols() { return kSymbols; }

const Symbol* findSymbol(std::string_view qualified) {
  const auto& map = index().by_name;
  auto it = map.find(qualified);
  return it == map.end() ? nullptr : it->second;
}

bool isSymbolMember(std::string_view name) { return index().members.contains(name); }

std::span<const std::string_view> triggerWords() { return index().words; }

}  // namespace ptlint::rules::deprecated
