#include "rules/deprecated/deprecated_symbols.h"

#include "analysis/name_shapes.h"
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
// - v1.13.0, v2.6.0 and v2.14 sources alike: `torch/nn/init.py` `_make_deprecate` ("nn.init.normal is
//   now deprecated in favor of nn.init.normal_"), `torch/nn/utils/clip_grad.py` `clip_grad_norm`,
//   `torch/cuda/memory.py` `memory_cached` / `max_memory_cached` ("renamed to memory_reserved"),
//   `torch/nn/modules/loss.py` `NLLLoss2d`: all present in 1.13, the oldest checked.
// - v2.6.0: `torch/__init__.py` `set_default_tensor_type` "deprecated as of PyTorch 2.1";
//   `torch/distributed/distributed_c10d.py` `_all_gather_base` / `_reduce_scatter_base` (no warning
//   in 1.13); `torch/distributed/checkpoint` `save_state_dict` / `load_state_dict` (no
//   `torch.distributed.checkpoint` in 1.13).
// - v2.14: `all_gather_into_tensor` / `reduce_scatter_tensor` deprecated for `*_single` (absent
//   from 2.6; the releases between were not read).
constexpr std::array<Symbol, 51> kSymbols{{
    {"torch.solve", "torch.linalg.solve", {1, 9}, {1, 13}, {1, 9}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/_linalg_utils.py"},
    {"torch.lstsq", "torch.linalg.lstsq", {1, 9}, {1, 13}, {1, 9}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/_linalg_utils.py"},
    {"torch.eig", "torch.linalg.eig", {1, 9}, {1, 13}, {1, 9}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/_linalg_utils.py"},
    {"torch.matrix_rank", "torch.linalg.matrix_rank", {1, 9}, {1, 13}, {1, 9}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/_linalg_utils.py"},
    {"torch.symeig", "torch.linalg.eigh", {1, 9}, {2, 0}, {1, 9}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v2.0.0/torch/_linalg_utils.py"},
    {"torch.qr", "torch.linalg.qr", {1, 9}, {}, {1, 9}, Rewrite::Qr, Applicability::Safe,
     "https://github.com/pytorch/pytorch/pull/57745"},
    {"torch.cholesky", "torch.linalg.cholesky", {1, 9}, {}, {1, 11}, Rewrite::Cholesky, Applicability::Safe,
     "https://github.com/pytorch/pytorch/pull/57725"},
    {"torch.chain_matmul", "torch.linalg.multi_dot", {1, 9}, {}, {1, 9}, Rewrite::ChainMatmul, Applicability::Safe,
     "https://github.com/pytorch/pytorch/pull/57735"},
    {"torch.ger", "torch.outer", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://pytorch.org/docs/stable/generated/torch.ger.html"},
    {"torch.lu", "torch.linalg.lu_factor", {1, 13, true}, {}, {1, 13}, Rewrite::None, Applicability::Safe,
     "https://pytorch.org/docs/stable/generated/torch.lu.html"},
    {"torch.lu_solve", "torch.linalg.lu_solve", {1, 13, true}, {}, {1, 13}, Rewrite::LuSolve, Applicability::Safe,
     "https://pytorch.org/docs/stable/generated/torch.lu_solve.html"},
    {"torch.triangular_solve", "torch.linalg.solve_triangular", {1, 13, true}, {}, {1, 13}, Rewrite::None,
     Applicability::Safe, "https://pytorch.org/docs/stable/generated/torch.triangular_solve.html"},
    {"torch.svd", "torch.linalg.svd", {1, 13, true}, {}, {1, 13}, Rewrite::None, Applicability::Safe,
     "https://pytorch.org/docs/stable/generated/torch.svd.html"},
    {"torch.norm", "torch.linalg.norm", {1, 13, true}, {}, {1, 13}, Rewrite::None, Applicability::Safe,
     "https://pytorch.org/docs/stable/generated/torch.norm.html"},
    {"torch.range", "torch.arange", {1, 13, true}, {}, {1, 13}, Rewrite::Range, Applicability::Unsafe,
     "https://pytorch.org/docs/stable/generated/torch.range.html"},
    {"torch.nn.UpsamplingNearest2d", "torch.nn.Upsample", {1, 13, true}, {}, {1, 13}, Rewrite::UpsampleNearest,
     Applicability::Safe, "https://pytorch.org/docs/stable/generated/torch.nn.UpsamplingNearest2d.html"},
    {"torch.nn.UpsamplingBilinear2d", "torch.nn.Upsample", {1, 13, true}, {}, {1, 13}, Rewrite::UpsampleBilinear,
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
     "https://pytorch.org/docs/stable/func.migrating.html"},    {"torch.nn.init.uniform", "torch.nn.init.uniform_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/init.py"},
    {"torch.nn.init.normal", "torch.nn.init.normal_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/init.py"},
    {"torch.nn.init.constant", "torch.nn.init.constant_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/init.py"},
    {"torch.nn.init.eye", "torch.nn.init.eye_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/init.py"},
    {"torch.nn.init.dirac", "torch.nn.init.dirac_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/init.py"},
    {"torch.nn.init.xavier_uniform", "torch.nn.init.xavier_uniform_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/init.py"},
    {"torch.nn.init.xavier_normal", "torch.nn.init.xavier_normal_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/init.py"},
    {"torch.nn.init.kaiming_uniform", "torch.nn.init.kaiming_uniform_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/init.py"},
    {"torch.nn.init.kaiming_normal", "torch.nn.init.kaiming_normal_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/init.py"},
    {"torch.nn.init.orthogonal", "torch.nn.init.orthogonal_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/init.py"},
    {"torch.nn.init.sparse", "torch.nn.init.sparse_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/init.py"},
    {"torch.nn.utils.clip_grad_norm", "torch.nn.utils.clip_grad_norm_", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/utils/clip_grad.py"},
    {"torch.cuda.memory_cached", "torch.cuda.memory_reserved", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/cuda/memory.py"},
    {"torch.cuda.max_memory_cached", "torch.cuda.max_memory_reserved", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/cuda/memory.py"},
    {"torch.nn.NLLLoss2d", "torch.nn.NLLLoss", {1, 13, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v1.13.0/torch/nn/modules/loss.py"},
    {"torch.set_default_tensor_type", "torch.set_default_dtype", {2, 1}, {}, {2, 1}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v2.6.0/torch/__init__.py"},
    {"torch.distributed._all_gather_base", "torch.distributed.all_gather_into_tensor", {2, 6, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v2.6.0/torch/distributed/distributed_c10d.py"},
    {"torch.distributed._reduce_scatter_base", "torch.distributed.reduce_scatter_tensor", {2, 6, true}, {}, {1, 13}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v2.6.0/torch/distributed/distributed_c10d.py"},
    {"torch.distributed.all_gather_into_tensor", "torch.distributed.all_gather_single", {2, 14, true}, {}, {2, 14}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/main/torch/distributed/distributed_c10d.py"},
    {"torch.distributed.reduce_scatter_tensor", "torch.distributed.reduce_scatter_single", {2, 14, true}, {}, {2, 14}, Rewrite::Rename, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/main/torch/distributed/distributed_c10d.py"},
    {"torch.distributed.checkpoint.save_state_dict", "torch.distributed.checkpoint.save", {2, 6, true}, {}, {2, 6}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v2.6.0/torch/distributed/checkpoint/state_dict_saver.py"},
    {"torch.distributed.checkpoint.load_state_dict", "torch.distributed.checkpoint.load", {2, 6, true}, {}, {2, 6}, Rewrite::None, Applicability::Safe,
     "https://github.com/pytorch/pytorch/blob/v2.6.0/torch/distributed/checkpoint/state_dict_loader.py"},
}};

// Where PyTorch defines or re-exports the same objects under a longer path.
constexpr std::array<std::pair<std::string_view, std::string_view>, 13> kAliases{{
    {"torch.nn.modules.loss.NLLLoss2d", "torch.nn.NLLLoss2d"},
    {"torch.nn.modules.NLLLoss2d", "torch.nn.NLLLoss2d"},
    {"torch.nn.utils.clip_grad.clip_grad_norm", "torch.nn.utils.clip_grad_norm"},
    {"torch.cuda.memory.memory_cached", "torch.cuda.memory_cached"},
    {"torch.cuda.memory.max_memory_cached", "torch.cuda.max_memory_cached"},
    {"torch.distributed.distributed_c10d._all_gather_base", "torch.distributed._all_gather_base"},
    {"torch.distributed.distributed_c10d._reduce_scatter_base", "torch.distributed._reduce_scatter_base"},
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
constexpr std::array<std::string_view, 17> kCommonMembers{
    "solve",  "eig",     "qr",       "ger", "lu",     "svd",             "norm",            "range",
    "normal", "uniform", "constant", "eye", "sparse", "load_state_dict", "save_state_dict", "all_gather_into_tensor",
    "reduce_scatter_tensor"};

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

namespace {

// The prefilter's words, searched in one pass: the trigger words, then the spellings that alias
// torch or torch.functional.
constexpr std::array<std::string_view, 5> kAliasSpellings{"import torch as", "torch.functional as",
                                                          "torch import functional", "= torch\n", "= torch\r"};

struct SymbolWords {
  analysis::WordSet words;
  size_t aliases_begin;
  std::vector<uint8_t> common;  // per trigger word
  // Every segment but the last of every name in the table (`torch`, `nn`, `utils`, `_pytree`...):
  // the only objects that can stand before `.member` in a chain that reaches a symbol, besides
  // a name bound by an alias.
  std::unordered_set<std::string_view> segments;
  // "parent.member" for the last two segments of every name (`torch.norm`, `init.normal`).
  std::unordered_set<std::string> parents;

  static std::vector<std::string_view> all() {
    std::vector<std::string_view> all(index().words.begin(), index().words.end());
    all.insert(all.end(), kAliasSpellings.begin(), kAliasSpellings.end());
    return all;
  }
  SymbolWords() : words(all()), aliases_begin(index().words.size()) {
    for (std::string_view word : index().words) common.push_back(isCommon(word) ? 1 : 0);
    for (const auto& [name, symbol] : index().by_name) {
      size_t last = name.rfind('.');
      size_t before = last == std::string_view::npos ? std::string_view::npos : name.rfind('.', last - 1);
      if (last != std::string_view::npos)
        parents.insert(std::string(name.substr(before == std::string_view::npos ? 0 : before + 1)));
      std::string_view rest = name;
      for (size_t dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
        segments.insert(rest.substr(0, dot));
        rest = rest.substr(dot + 1);
      }
    }
  }
};

const SymbolWords& symbolWords() {
  static const SymbolWords instance;
  return instance;
}

// Is `name` bound by an import alias in `text` (`import torch.distributed.checkpoint as dcp`)?
bool importedAs(std::string_view text, std::string_view name) {
  if (name.empty()) return false;
  return analysis::forEachWholeWord(text, name, [&](size_t at) {
    size_t i = at;
    while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
    return i >= 3 && text.substr(i - 2, 2) == "as" && (text[i - 3] == ' ' || text[i - 3] == '\t') && i != at;
  });
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r' || c == '\\'; }

// Is `name` bound by an alias somewhere in `code` (`import torch as t`, `from torch import nn as
// tnn`, `t = torch`, `t: Any = torch`, `(t := torch)`)? Errs towards yes.
bool boundAsAlias(std::string_view code, std::string_view name) {
  return analysis::mayBeRebound(code, name, /*torch_imports_only=*/false);
}

// Could the occurrence at `at` be inside a `from torch... import` statement? Walks back over what
// an import list can hold (as inTorchFromImport) and looks for `from` and then `torch` there,
// whatever the spacing. Errs towards yes.
bool mayBeInTorchFromImport(std::string_view code, size_t at) {
  size_t i = at;
  while (i > 0) {
    char c = code[i - 1];
    if (!(analysis::isIdentifierByte(c) || isSpace(c) || c == ',' || c == '(' || c == '.')) break;
    --i;
  }
  std::string_view region = code.substr(i, at - i);
  return analysis::forEachWholeWord(region, "from", [&](size_t from) {
    size_t j = from + 4;
    while (j < region.size() && isSpace(region[j])) ++j;
    return region.substr(j).starts_with("torch") &&
           (j + 5 == region.size() || !analysis::isIdentifierByte(region[j + 5]));
  });
}

// In code, can the reference `object.member` whose member (of `size` bytes) starts at `at` be
// reported? Only as a call (`(` follows) or as the value of an assignment (the statement ends), or
// in an import; not as an argument, a key or an object (`op=torch.qr,`, `{torch.ger: f}`,
// `torch.lu.__doc__`), which stands for the function object and runs nothing. A line break,
// inside brackets or not, counts as yes.
bool referenceMayReport(std::string_view code, size_t at, size_t size) {
  size_t i = at + size;
  while (i < code.size()) {
    if (code[i] == ' ' || code[i] == '\t' || code[i] == '\f') ++i;
    else if (code[i] == '\\' && i + 1 < code.size() && (code[i + 1] == '\n' || code[i + 1] == '\r')) return true;
    else break;
  }
  if (i >= code.size() || code[i] == '(' || code[i] == '\n' || code[i] == '\r' || code[i] == ';') return true;
  // `import torch.x.member as m`, `from torch.x.member import y`: the import is checked.
  size_t line = code.rfind('\n', at);
  line = line == std::string_view::npos ? 0 : line + 1;
  if (line >= 2 && code[line - 2] == '\\') return true;
  std::string_view head = code.substr(line, at - line);
  size_t first = head.find_first_not_of(" \t\f");
  return first != std::string_view::npos && (head.substr(first).starts_with("import") || head.substr(first).starts_with("from"));
}

// In code (strings and comments blanked), can a whole-identifier occurrence of a member that is
// not an everyday name reach a symbol? Only as `object.member` where the object is a segment of
// some symbol's name (`torch.cholesky`, `nn.utils.weight_norm`), a parenthesised expression, or a
// name bound by an alias; or as a name in a `from torch... import`. (`torch.linalg.cholesky`, a
// definition `def cholesky(`, `_linalg.linalg_cholesky` and `self.lu_solve` cannot; nor can
// `op=torch.qr,`, see referenceMayReport.)
bool memberMayReachSymbol(std::string_view code, size_t at, size_t size) {
  size_t i = at;
  while (i > 0 && isSpace(code[i - 1])) --i;
  if (i == 0 || code[i - 1] != '.') return mayBeInTorchFromImport(code, at);
  if (!referenceMayReport(code, at, size)) return false;
  size_t end = i - 1;
  while (end > 0 && isSpace(code[end - 1])) --end;
  if (end == 0) return false;
  if (code[end - 1] == ')') return true;
  size_t begin = end;
  while (begin > 0 && analysis::isIdentifierByte(code[begin - 1])) --begin;
  if (begin == end) return false;
  std::string_view object = code.substr(begin, end - begin);
  return symbolWords().segments.contains(object) || boundAsAlias(code, object);
}

}  // namespace

std::span<const std::string_view> prefilterWords() {
  struct Words {
    std::vector<std::string> storage;
    std::vector<std::string_view> words;
    Words() {
      for (std::string_view word : index().words) storage.push_back(isCommon(word) ? "." + std::string(word) : std::string(word));
      storage.emplace_back("from torch");
      for (const std::string& w : storage) words.push_back(w);
    }
  };
  static const Words instance;
  return instance.words;
}

bool mayUseSymbols(std::string_view text, bool whole_words) {
  const SymbolWords& sw = symbolWords();
  bool aliased = false;
  std::vector<std::pair<size_t, size_t>> common;  // (word, offset) of everyday names
  // One pass over all of the text (four parts at once), which costs less than a scan in order
  // that could stop at the first hit.
  bool found = false;
  sw.words.forEachMatchUnordered(text, [&](size_t id, size_t at) {
    if (id >= sw.aliases_begin) {
      aliased = true;
      return;
    }
    if (found) return;
    std::string_view word = sw.words.word(id);
    bool whole = analysis::isWholeWordAt(text, at, word.size());
    if (sw.common[id]) {
      if (whole) common.emplace_back(id, at);
      return;
    }
    // `import functorch` / `from functorch` hold a space: never whole identifiers.
    bool identifier = word.find(' ') == std::string_view::npos;
    found = !whole_words || !identifier ||
            (whole && memberMayReachSymbol(text, at, word.size()));
  });
  if (found) return true;
  // An alias of torch or torch.functional makes any `.member` a candidate.
  for (auto [id, at] : common) {
    if (at > 0 && text[at - 1] == '.') {
      if (whole_words && !referenceMayReport(text, at, sw.words.word(id).size())) continue;
      size_t end = at - 1, begin = end;
      while (begin > 0 && analysis::isIdentifierByte(text[begin - 1])) --begin;
      std::string_view object = text.substr(begin, end - begin);
      // `torch.norm`, `functional.norm`, `init.normal`: the object is the segment before the
      // member in some symbol's name, or a name an import binds (`import torch.nn.init as I`).
      if (aliased || sw.parents.contains(std::string(object) + "." + std::string(sw.words.word(id))) ||
          importedAs(text, object))
        return true;
    } else if (inTorchFromImport(text, at)) {
      return true;
    }
  }
  return false;
}

}  // namespace ptlint::rules::deprecated
