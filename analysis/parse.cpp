#include "analysis/parse.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

#include <fmt/format.h>

#include "analysis/grammar_gaps.h"
#include "analysis/instrumentation.h"
#include "analysis/syntax.h"

extern "C" const TSLanguage* tree_sitter_python();

namespace ptlint::analysis {
namespace {

// tree-sitter's own allocator aborts the process when memory runs out (under `ulimit -v`, a
// huge file): these throw std::bad_alloc instead, through tree-sitter's frames (compiled with
// unwind tables, as every amd64 and arm64 object is), to the caller that reports the one file or
// request. Plain malloc/free underneath: objects made before the switch are freed the same way.
void* mallocOrThrow(size_t size) {
  void* p = std::malloc(size);
  if (p == nullptr && size != 0) throw std::bad_alloc();
  return p;
}
void* callocOrThrow(size_t count, size_t size) {
  void* p = std::calloc(count, size);
  if (p == nullptr && count != 0 && size != 0) throw std::bad_alloc();
  return p;
}
void* reallocOrThrow(void* old, size_t size) {
  void* p = std::realloc(old, size);
  if (p == nullptr && size != 0) throw std::bad_alloc();  // `old` is still valid, and still owned
  return p;
}

void installAllocator() {
  static const bool installed = [] {
    ts_set_allocator(&mallocOrThrow, &callocOrThrow, &reallocOrThrow, &std::free);
    return true;
  }();
  (void)installed;
}

// True when `text` ends a line with a lone '\r' (valid Python, as in classic Mac files).
bool hasLoneCr(std::string_view text) {
  for (size_t at = text.find('\r'); at != std::string_view::npos; at = text.find('\r', at + 1))
    if (at + 1 >= text.size() || text[at + 1] != '\n') return true;
  return false;
}

// Feeds tree-sitter the text with each lone '\r' read as '\n': the grammar only knows "\n" and
// "\r\n" as line ends. Same length, so every byte offset in the tree is an offset in `text`.
struct LoneCrReader {
  std::string_view text;
  std::string chunk;
  static const char* read(void* payload, uint32_t byte, TSPoint, uint32_t* bytes_read) {
    auto* self = static_cast<LoneCrReader*>(payload);
    if (byte >= self->text.size()) {
      *bytes_read = 0;
      return "";
    }
    size_t n = std::min<size_t>(self->text.size() - byte, 64 * 1024);
    self->chunk.assign(self->text.substr(byte, n));
    for (size_t i = 0; i < n; ++i) {
      size_t at = byte + i;
      if (self->chunk[i] == '\r' && (at + 1 >= self->text.size() || self->text[at + 1] != '\n')) self->chunk[i] = '\n';
    }
    *bytes_read = static_cast<uint32_t>(n);
    return self->chunk.data();
  }
};

// A new parser for every parse. tree-sitter 0.20's parser keeps state from one parse to the next
// that changes how it recovers from a syntax error: the same text, parsed after others, gave
// another tree (a `def` with an unclosed call became an ERROR node), so a file's findings and the
// project index's facts depended on what was parsed before. A parser costs microseconds.
TSTree* parseWith(const TSTree* old_tree, std::string_view text) {
  installAllocator();
  TSParser* parser = ts_parser_new();
  if (!ts_parser_set_language(parser, pythonLanguage())) {
    ts_parser_delete(parser);
    return nullptr;
  }
  // When std::bad_alloc unwinds through tree-sitter's frames, its parse stack may be half updated
  // (reference counts included) and deleting the parser can assert: it is abandoned (its memory
  // leaks, once per failure).
  TSTree* tree = nullptr;
  if (hasLoneCr(text)) {
    LoneCrReader reader{text, {}};
    tree = ts_parser_parse(parser, old_tree, TSInput{&reader, &LoneCrReader::read, TSInputEncodingUTF8});
  } else {
    tree = ts_parser_parse_string_encoding(parser, old_tree, text.data(), static_cast<uint32_t>(text.size()),
                                           TSInputEncodingUTF8);
  }
  if (tree == nullptr) {
    // Only a timeout or cancellation flag makes tree-sitter give up; we set neither, but an
    // empty module is still a valid answer if it ever happens.
    ts_parser_reset(parser);
    tree = ts_parser_parse_string(parser, nullptr, "", 0);
  }
  ts_parser_delete(parser);
  return tree;
}

}  // namespace

const TSLanguage* pythonLanguage() { return tree_sitter_python(); }

ParsedFile::ParsedFile(std::string text, TreePtr tree)
    : text_(std::move(text)), tree_(std::move(tree)), lines_(text_) {
  if (!ts_node_has_error(root())) return;
  // Where the grammar, not the code, is at fault (see grammar_gaps.h), the rewritten text parses:
  // its tree is the file's tree, and what still fails there is the file's syntax errors.
  std::string probe = text_;
  TreePtr probe_tree;
  for (int round = 0; round < 3; ++round) {
    TSNode last = probe_tree ? ts_tree_root_node(probe_tree.get()) : root();
    if (!rewriteGrammarGaps(probe, last)) break;
    probe_tree.reset(parseWith(nullptr, probe));
    if (!ts_node_has_error(ts_tree_root_node(probe_tree.get()))) {
      raw_tree_ = std::move(tree_);
      tree_ = std::move(probe_tree);
      return;
    }
  }
  collectSyntaxErrors(probe_tree ? ts_tree_root_node(probe_tree.get()) : root());
}

// Debian's libtree-sitter 0.20 corrupts its heap freeing trees of unclosed brackets nested
// ~50,000 deep. No real program nests like that: past this depth the file is treated as one
// syntax error (an empty tree), so it is reported, never fixed, and never crashes anything.
constexpr int kMaxBracketDepth = 30000;

// The deepest bracket nesting of `text`, or a bound on it: a text this short cannot nest deeper
// than its length.
static size_t deepestNesting(std::string_view text) {
  if (text.size() <= static_cast<size_t>(kMaxBracketDepth)) return text.size();
  // One table load and no branch per byte (this runs on every edit of a large file): +1 for an
  // opening bracket, -1 for a closing one, the depth never below 0.
  static const std::array<int8_t, 256> delta = [] {
    std::array<int8_t, 256> out{};
    for (char c : {'(', '[', '{'}) out[static_cast<unsigned char>(c)] = 1;
    for (char c : {')', ']', '}'}) out[static_cast<unsigned char>(c)] = -1;
    return out;
  }();
  int depth = 0, deepest = 0;
  for (char c : text) {
    depth = std::max(0, depth + delta[static_cast<unsigned char>(c)]);
    deepest = std::max(deepest, depth);
  }
  return static_cast<size_t>(deepest);
}

static size_t bracketsIn(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return c == '(' || c == '[' || c == '{' || c == ')' || c == ']' || c == '}';
  }));
}

ParsedFile ParsedFile::parse(std::string text) {
  size_t nesting = deepestNesting(text);
  return parse(std::move(text), nesting);
}

ParsedFile ParsedFile::parse(std::string text, size_t nesting_bound) {
  if (nesting_bound > static_cast<size_t>(kMaxBracketDepth)) {
    ParsedFile file(std::move(text), TreePtr(parseWith(nullptr, "")));
    file.syntax_errors_.push_back({0, 0, "Brackets nested more than 30000 deep; the file is not analysed"});
    file.nesting_bound_ = nesting_bound;
    return file;
  }
  uint64_t start = timings::enabled() ? timings::nowNs() : 0;
  TSTree* tree = parseWith(nullptr, text);
  if (timings::enabled()) timings::add("parse", text.size(), timings::nowNs() - start);
  ParsedFile file(std::move(text), TreePtr(tree));
  file.nesting_bound_ = nesting_bound;
  return file;
}

ParsedFile ParsedFile::reparse(std::string new_text, const TSInputEdit& edit) const {
  // Each bracket typed or deleted moves the depth after it by at most one (the depth is clamped
  // at 0, which keeps that true), so the old bound plus those brackets bounds the new depth; only
  // when that passes the limit is the new text measured again.
  size_t nesting_bound = nesting_bound_;
  if (edit.start_byte <= edit.old_end_byte && edit.old_end_byte <= text_.size() &&
      edit.start_byte <= edit.new_end_byte && edit.new_end_byte <= new_text.size()) {
    nesting_bound += bracketsIn(std::string_view(text_).substr(edit.start_byte, edit.old_end_byte - edit.start_byte)) +
                     bracketsIn(std::string_view(new_text).substr(edit.start_byte, edit.new_end_byte - edit.start_byte));
  } else {
    nesting_bound = static_cast<size_t>(kMaxBracketDepth) + 1;
  }
  if (nesting_bound > static_cast<size_t>(kMaxBracketDepth)) nesting_bound = deepestNesting(new_text);
  // A placeholder tree (see deepestNesting) does not describe the old text: parse afresh.
  if (nesting_bound > static_cast<size_t>(kMaxBracketDepth) || (ts_node_end_byte(root()) == 0 && !text_.empty()))
    return parse(std::move(new_text), nesting_bound);
  // The tree of the text as written (not of its grammar-gap rewrite) is the one that matches it.
  TreePtr edited(ts_tree_copy(raw_tree_ ? raw_tree_.get() : tree_.get()));
  ts_tree_edit(edited.get(), &edit);
  TSTree* tree = parseWith(edited.get(), new_text);
  ParsedFile file(std::move(new_text), TreePtr(tree));
  file.nesting_bound_ = nesting_bound;
  return file;
}

void ParsedFile::collectSyntaxErrors(TSNode root) {
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
    } else if (isKind(node, kind::error)) {
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
}

}  // namespace ptlint::analysis
