#include "analysis/parse.h"

#include <fmt/format.h>

#include "analysis/syntax.h"

extern "C" const TSLanguage* tree_sitter_python();

namespace ptlint::analysis {
namespace {

// One parser per thread: TSParser is not thread-safe, and creating one per file is wasteful.
TSParser* threadParser() {
  struct Holder {
    TSParser* parser = ts_parser_new();
    Holder() { ts_parser_set_language(parser, pythonLanguage()); }
    ~Holder() { ts_parser_delete(parser); }
  };
  thread_local Holder holder;
  return holder.parser;
}

TSTree* parseWith(TSParser* parser, const TSTree* old_tree, std::string_view text) {
  TSTree* tree = ts_parser_parse_string_encoding(parser, old_tree, text.data(),
                                                 static_cast<uint32_t>(text.size()), TSInputEncodingUTF8);
  if (tree == nullptr) {
    // Only a timeout or cancellation flag makes tree-sitter give up; we set neither, but an
    // empty module is still a valid answer if it ever happens.
    ts_parser_reset(parser);
    tree = ts_parser_parse_string(parser, nullptr, "", 0);
  }
  return tree;
}

}  // namespace

const TSLanguage* pythonLanguage() { return tree_sitter_python(); }

ParsedFile::ParsedFile(std::string text, TreePtr tree)
    : text_(std::move(text)), tree_(std::move(tree)), lines_(text_) {
  collectSyntaxErrors();
}

ParsedFile ParsedFile::parse(std::string text) {
  TSTree* tree = parseWith(threadParser(), nullptr, text);
  return ParsedFile(std::move(text), TreePtr(tree));
}

ParsedFile ParsedFile::reparse(std::string new_text, const TSInputEdit& edit) const {
  TreePtr edited(ts_tree_copy(tree_.get()));
  ts_tree_edit(edited.get(), &edit);
  TSTree* tree = parseWith(threadParser(), edited.get(), new_text);
  return ParsedFile(std::move(new_text), TreePtr(tree));
}

void ParsedFile::collectSyntaxErrors() {
  TSNode root = this->root();
  if (!ts_node_has_error(root)) return;
  // Iterative walk (inputs can nest 100,000 deep); only descend into subtrees with errors.
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  bool done = false;
  while (!done) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    bool descend = false;
    if (ts_node_is_missing(node)) {
      syntax_errors_.push_back({startOf(node), startOf(node),
                                fmt::format("Expected `{}`", ts_node_type(node))});
    } else if (isKind(node, "ERROR")) {
      syntax_errors_.push_back({startOf(node), endOf(node), "Unexpected syntax"});
    } else if (ts_node_has_error(node)) {
      descend = true;
    }
    if (descend && ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) { done = true; break; }
    }
  }
  ts_tree_cursor_delete(&cursor);
  if (syntax_errors_.empty()) syntax_errors_.push_back({0, 0, "Unexpected syntax"});
}

}  // namespace ptlint::analysis
