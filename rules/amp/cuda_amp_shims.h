// PTL101's compatibility shims: code that already handles `torch.amp` and keeps the old
// spelling only as a fallback for old PyTorch releases is left alone.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "analysis/semantic_model.h"
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "rules/amp/cuda_amp_targets.h"

namespace ptlint::rules::cuda_amp {
// True when `node` sits in the fallback branch of code that already handles the new API: an
// `except` handler whose `try` uses `torch.amp`, another branch of an `if` (or of a conditional
// expression) that does. Such code exists to support old PyTorch releases.
class ShimDetector {
 public:
  explicit ShimDetector(const SemanticModel& model) : model_(model), source_(model.file().text()) {}

  // Whether some ancestor pair on `path` (root first) makes the leaf a compatibility shim. The
  // answer for a prefix does not depend on what lies below it, so it is remembered per depth:
  // the walker only pushes and pops at the end of `path`, which keeps each call amortised O(1)
  // (re-checking every ancestor per use was quadratic in nesting depth).
  bool isShim(Path path) {
    if (path.empty()) return false;
    size_t valid = std::min(prefix_.size(), path.size());
    while (valid > 0 && !sameNode(prefix_[valid - 1].first, path[valid - 1])) --valid;
    prefix_.resize(valid);
    for (size_t i = valid; i < path.size(); ++i) {
      bool shim = i > 0 && (prefix_[i - 1].second || pairMakesShim(path[i - 1], path[i]));
      prefix_.emplace_back(path[i], shim);
    }
    return prefix_.back().second;
  }

 private:
  bool pairMakesShim(TSNode parent, TSNode child) {
    analysis::NodeKind kind = kindOf(parent);
    if (kind == kind::try_statement && isKind(child, kind::except_clause)) return mentionsNewApi(fieldOf(parent, "body"), {});
    if (kind == kind::if_statement || kind == kind::conditional_expression) {
      // Only a branch chosen by a feature or version test: `if torch.cuda.is_available():
      // <old API> else: torch.amp.autocast("cpu")` is a real use.
      TSNode condition = kind == kind::if_statement ? fieldOf(parent, "condition") : ts_node_named_child(parent, 1);
      return !sameNode(condition, child) && isFeatureTest(condition) && mentionsNewApi(parent, child);
    }
    return false;
  }

  std::vector<std::pair<TSNode, bool>> prefix_;  // (ancestor, shim so far) per depth

  // `hasattr(torch.amp, "custom_fwd")`, `TORCH_VERSION >= (2, 4)`, `version.parse(...)`,
  // `_TORCH_GREATER_EQUAL_2_4`.
  bool isFeatureTest(TSNode condition) {
    if (ts_node_is_null(condition)) return false;
    std::string text(analysis::textOf(condition, source_));
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    // A version flag named for the release: `_TORCH_GREATER_EQUAL_2_4`, `TORCH_GE_2_3`.
    bool version_flag = false;
    if (text.find("torch") != std::string::npos)
      for (size_t i = 1; i + 1 < text.size() && !version_flag; ++i)
        version_flag = text[i] == '_' && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                       std::isdigit(static_cast<unsigned char>(text[i + 1]));
    return version_flag || text.find("version") != std::string::npos || text.find("hasattr") != std::string::npos ||
           mentionsNewApi(condition, {});
  }

  // Does `root`, outside `skip`, import or refer to `torch.amp`?
  bool mentionsNewApi(TSNode root, TSNode skip) {
    if (ts_node_is_null(root)) return false;
    uint64_t key = reinterpret_cast<uintptr_t>(root.id) ^ (reinterpret_cast<uintptr_t>(skip.id) * 31);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    bool found = false;
    analysis::walkTree(
        root,
        [&](TSNode node) {
          if (found || (!ts_node_is_null(skip) && sameNode(node, skip))) return false;
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::import_statement || kind == kind::import_from_statement) {
            found = importsNewApi(node);
            return false;
          }
          if (kind == kind::attribute || kind == kind::identifier) {
            auto q = model_.qualifiedName(node);
            if (q && isNewApi(*q)) found = true;
            return !found && kind == kind::attribute && !q;
          }
          return true;
        },
        [](TSNode) {});
    cache_[key] = found;
    return found;
  }

  bool importsNewApi(TSNode statement) {
    bool found = false;
    std::string module;
    if (isKind(statement, kind::import_from_statement)) {
      TSNode module_node = fieldOf(statement, "module_name");
      if (!isKind(module_node, kind::dotted_name)) return false;
      module = analysis::dottedNameText(module_node, source_) + ".";
    }
    analysis::forEachFieldChild(statement, "name", [&](TSNode name) {
      TSNode dotted = isKind(name, kind::aliased_import) ? fieldOf(name, "name") : name;
      found = found || isNewApi(analysis::canonicalQualifiedName(module + analysis::dottedNameText(dotted, source_)));
    });
    return found;
  }

  const SemanticModel& model_;
  std::string_view source_;
  std::unordered_map<uint64_t, bool> cache_;
};

}  // namespace ptlint::rules::cuda_amp
