#include "rules/deprecated/deprecated_symbols.h"

#include "analysis/text_search.h"

#include <algorithm>
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
  std::vector<std::string_view> words;
  Index() {
    for (const Symbol& s : kSymbols) by_name.emplace(s.qualified, &s);
    for (auto [alias, target] : kAliases) by_name.emplace(alias, by_name.at(target));
    for (const auto& [name, symbol] : by_name) members.insert(lastSegment(name));
    // functorch's names (`grad`, `vmap`) are only reachable through a `functorch` import.
    for (const auto& [name, symbol] : by_name)
      if (!name.starts_with("functorch.")) words.push_back(lastSegment(name));
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    words.push_back("import functorch");
    words.push_back("from functorch");
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

std::vector<std::string_view> symbolMembers() { return {index().members.begin(), index().members.end()}; }

std::span<const std::string_view> triggerWords() { return index().words; }

namespace {

// Last segments that are also everyday names (`x.norm()`, `range(3)`, a parameter `lu`): a file
// that holds one of them only counts when the text around it can name the torch symbol.
constexpr std::array<std::string_view, 8> kCommonMembers{"solve", "eig", "qr", "ger", "lu", "svd", "norm", "range"};

bool isCommon(std::string_view member) {
  return std::find(kCommonMembers.begin(), kCommonMembers.end(), member) != kCommonMembers.end();
}

// Is the occurrence at `at` inside a `from torch... import (...)` statement? Walks back over what
// an import list can hold (names, commas, parentheses, line breaks, comments) to its `from`.
bool inTorchFromImport(std::string_view text, size_t at) {
  size_t i = at;
  while (i > 0) {
    char c = text[i - 1];
    if (analysis::isIdentifierByte(c) || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '(' ||
        c == '\\' || c == '.') {
      --i;
      continue;
    }
    // A comment on this line (`from torch import (  # noqa`): continue before its `#`.
    size_t line_start = text.rfind('\n', i - 1);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    size_t hash = text.find('#', line_start);
    if (hash != std::string_view::npos && hash < i - 1) {
      i = hash;
      continue;
    }
    break;
  }
  // The last `from ` at the start of a line in [i, at).
  std::string_view region = text.substr(i, at - i);
  for (size_t pos = region.rfind("from "); pos != std::string_view::npos; pos = pos == 0 ? std::string_view::npos : region.rfind("from ", pos - 1)) {
    size_t before = pos;
    while (before > 0 && (region[before - 1] == ' ' || region[before - 1] == '\t')) --before;
    bool line_start = before == 0 ? (i == 0 || text[i - 1] == '\n' || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == ';')
                                  : region[before - 1] == '\n';
    if (!line_start) continue;
    std::string_view statement = region.substr(pos);
    return statement.starts_with("from torch") && statement.size() > 10 &&
           (statement[10] == ' ' || statement[10] == '.') && statement.find(" import") != std::string_view::npos;
  }
  return false;
}

}  // namespace

bool mayUseSymbols(std::string_view text, bool whole_words) {
  for (std::string_view word : index().words) {
    if (isCommon(word)) continue;
    // `import functorch` / `from functorch` hold a space: never whole identifiers.
    bool identifier = word.find(' ') == std::string_view::npos;
    if (whole_words && identifier ? analysis::forEachWholeWord(text, word, [](size_t) { return true; })
                                  : analysis::findBytes(text, word) != std::string_view::npos)
      return true;
  }
  // An alias of torch or torch.functional makes any `.member` a candidate.
  bool aliased = false;
  for (std::string_view alias : {"import torch as", "torch.functional as", "torch import functional", "= torch\n", "= torch\r"})
    aliased = aliased || analysis::findBytes(text, alias) != std::string_view::npos;
  for (std::string_view member : kCommonMembers) {
    bool found = analysis::forEachWholeWord(text, member, [&](size_t at) {
      if (at > 0 && text[at - 1] == '.') {
        size_t end = at - 1, begin = end;
        while (begin > 0 && analysis::isIdentifierByte(text[begin - 1])) --begin;
        std::string_view object = text.substr(begin, end - begin);
        return aliased || object == "torch" || object == "functional";
      }
      return inTorchFromImport(text, at);
    });
    if (found) return true;
  }
  return false;
}

}  // namespace ptlint::rules::deprecated
