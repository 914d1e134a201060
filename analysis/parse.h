// The tree-sitter front end. Parsing never fails: every input yields a tree, and syntax errors
// are data (byte ranges), not exceptions. Positions inside analysis are byte offsets.
#pragma once

#include <tree_sitter/api.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/analysis_cache.h"
#include "analysis/line_index.h"

namespace ptlint::analysis {

struct SyntaxError {
  uint32_t start = 0;
  uint32_t end = 0;
  std::string message;
};

struct TreeDeleter {
  void operator()(TSTree* tree) const { ts_tree_delete(tree); }
};
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

// A parsed source file: owns its text and its tree. Moves are cheap; copies are not allowed.
class ParsedFile {
 public:
  // Parses `text` (UTF-8, without BOM). Never fails. Valid Python that the grammar rejects (see
  // grammar_gaps.h) is no syntax error: the tree is then that of an equivalent rewrite of the text,
  // with the same byte offsets.
  static ParsedFile parse(std::string text);

  // Re-parses after one edit, reusing the previous tree (the LSP path). `edit` describes the
  // change from this file's text to `new_text`.
  ParsedFile reparse(std::string new_text, const TSInputEdit& edit) const;

  std::string_view text() const { return text_; }
  TSNode root() const { return ts_tree_root_node(tree_.get()); }
  const TSTree* tree() const { return tree_.get(); }
  const LineIndex& lines() const { return lines_; }
  const std::vector<SyntaxError>& syntaxErrors() const { return syntax_errors_; }
  bool hasSyntaxErrors() const { return !syntax_errors_.empty(); }

  // An analysis of the tree alone, built on first use and freed with the file; see AnalysisCache.
  template <typename T, typename Build>
  const T& treeAnalysis(const void* key, Build&& build) const {
    return analyses_->get<T>(key, std::forward<Build>(build));
  }

 private:
  ParsedFile(std::string text, TreePtr tree);
  // `nesting_bound`: at least the text's deepest bracket nesting.
  static ParsedFile parse(std::string text, size_t nesting_bound);
  void collectSyntaxErrors(TSNode root);

  std::string text_;
  TreePtr tree_;
  // When tree_ is the parse of a grammar-gap rewrite of text_ (see grammar_gaps.h): the parse of
  // text_ itself, which incremental re-parsing must start from.
  TreePtr raw_tree_;
  LineIndex lines_;
  std::vector<SyntaxError> syntax_errors_;
  // At least the deepest bracket nesting of text_ (exact after a full parse; re-parses add the
  // brackets an edit typed or deleted, and measure again only past the limit).
  size_t nesting_bound_ = 0;
  std::unique_ptr<AnalysisCache> analyses_ = std::make_unique<AnalysisCache>();  // movable file
};

const TSLanguage* pythonLanguage();

}  // namespace ptlint::analysis
