#include "analysis/noqa.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "analysis/syntax.h"

namespace ptlint::analysis {
namespace {

bool startsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  return true;
}

// The `q`s and `Q`s of a text in order, each case found by memchr once (two cursors).
class QFinder {
 public:
  explicit QFinder(std::string_view text) : text_(text), lower_(find('q', 0)), upper_(find('Q', 0)) {}
  // The next one at or after `from`; npos when none.
  size_t next(size_t from) {
    if (lower_ < from) lower_ = find('q', from);
    if (upper_ < from) upper_ = find('Q', from);
    return std::min(lower_, upper_);
  }

 private:
  size_t find(char c, size_t from) const {
    if (from >= text_.size()) return std::string_view::npos;
    const void* at = std::memchr(text_.data() + from, c, text_.size() - from);
    return at ? static_cast<size_t>(static_cast<const char*>(at) - text_.data()) : std::string_view::npos;
  }
  std::string_view text_;
  size_t lower_, upper_;
};

void skipSpaces(std::string_view text, size_t& i) {
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
}

// Parses the codes after `noqa` at `i`: `: A, B` or `:A B`. Returns false for a bare noqa.
bool parseCodes(std::string_view text, size_t& i, std::vector<std::string>& codes, size_t& codes_end,
                std::vector<std::pair<uint32_t, uint32_t>>* ranges = nullptr) {
  size_t j = i;
  skipSpaces(text, j);
  if (j >= text.size() || text[j] != ':') return false;
  ++j;
  for (;;) {
    skipSpaces(text, j);
    size_t start = j;
    while (j < text.size() && std::isalnum(static_cast<unsigned char>(text[j]))) ++j;
    if (j == start) break;
    codes.emplace_back(text.substr(start, j - start));
    if (ranges) ranges->emplace_back(static_cast<uint32_t>(start), static_cast<uint32_t>(j));
    codes_end = j;
    skipSpaces(text, j);
    if (j < text.size() && text[j] == ',') ++j;
  }
  i = j;
  return !codes.empty();
}

}  // namespace

bool codeMatches(std::string_view pattern, std::string_view code) {
  if (pattern == "ALL") return true;
  return code.substr(0, pattern.size()) == pattern;
}

NoqaIndex NoqaIndex::build(const ParsedFile& file) {
  NoqaIndex index;
  std::string_view source = file.text();
  // Every directive lives in a comment that spells `noqa` (in any case: `# NOQA` is common), so
  // instead of walking the whole tree for comments, look at each `noqa` in the text and ask the
  // tree for the node there: only comments count, each once (strings and code never do). The
  // `q`s are found with memchr: most files hold few and many none.
  TSNode root = file.root();
  uint32_t done_until = 0;  // end of the last comment handled
  QFinder qs(source);
  for (size_t q = qs.next(2); q != std::string_view::npos; q = qs.next(q + 1)) {
    size_t pos = q - 2;
    if (!startsWithIgnoreCase(source.substr(pos, 4), "noqa")) continue;
    if (pos < done_until) continue;
    TSNode node = ts_node_descendant_for_byte_range(root, static_cast<uint32_t>(pos), static_cast<uint32_t>(pos + 4));
    if (!isKind(node, kind::comment)) continue;
    done_until = endOf(node);
    std::string_view text = textOf(node, source);
    uint32_t base = startOf(node);
    uint32_t row = file.lines().lineOf(base);
    // A comment may hold several `#` sections: `# type: ignore # noqa: PTL101`.
    for (size_t hash = text.find('#'); hash != std::string_view::npos; hash = text.find('#', hash + 1)) {
      size_t i = hash + 1;
      skipSpaces(text, i);
      if (startsWithIgnoreCase(text.substr(i), "ptlint:")) {
        size_t j = i + 7;
        skipSpaces(text, j);
        if (!startsWithIgnoreCase(text.substr(j), "noqa")) continue;
        j += 4;
        std::vector<std::string> codes;
        size_t end = 0;
        if (parseCodes(text, j, codes, end))
          index.file_codes_.insert(index.file_codes_.end(), codes.begin(), codes.end());
        else
          index.file_all_ = true;
        continue;
      }
      if (!startsWithIgnoreCase(text.substr(i), "noqa")) continue;
      size_t j = i + 4;
      if (j < text.size() && std::isalnum(static_cast<unsigned char>(text[j]))) continue;  // "noqaxyz"
      NoqaDirective directive;
      directive.comment_start = base;
      directive.comment_end = endOf(node);
      directive.section_start = base + static_cast<uint32_t>(hash);
      size_t codes_end = 0;
      if (parseCodes(text, j, directive.codes, codes_end, &directive.code_ranges)) {
        directive.codes_end = base + static_cast<uint32_t>(codes_end);
        for (auto& [s, e] : directive.code_ranges) s += base, e += base;
        directive.section_end = directive.codes_end;
      } else {
        directive.all = true;
        directive.section_end = base + static_cast<uint32_t>(i + 4);
      }
      index.by_row_[row] = std::move(directive);
      break;
    }
  }
  return index;
}

bool NoqaIndex::suppresses(std::string_view code, uint32_t row) const {
  if (file_all_) return true;
  for (const auto& c : file_codes_)
    if (codeMatches(c, code)) return true;
  auto it = by_row_.find(row);
  if (it == by_row_.end()) return false;
  if (it->second.all) return true;
  for (const auto& c : it->second.codes)
    if (codeMatches(c, code)) return true;
  return false;
}

const NoqaDirective* NoqaIndex::directiveOnRow(uint32_t row) const {
  auto it = by_row_.find(row);
  return it == by_row_.end() ? nullptr : &it->second;
}

}  // namespace ptlint::analysis
