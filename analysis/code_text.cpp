#include "analysis/code_text.h"

#include "analysis/parse.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {

namespace {

enum class Prefix { Plain, Formatted, Unknown };

// The string prefix in front of a quote at `quote` (`rb`, `f`, `Rb`...).
Prefix prefixBefore(std::string_view text, size_t quote, size_t& prefix_start) {
  size_t begin = quote;
  while (begin > 0 && isIdentifierByte(text[begin - 1])) --begin;
  prefix_start = begin;
  std::string_view prefix = text.substr(begin, quote - begin);
  if (prefix.size() > 2) return Prefix::Unknown;
  bool formatted = false;
  for (char c : prefix) {
    switch (c | 0x20) {
      case 'r': case 'b': case 'u': break;
      case 'f': case 't': formatted = true; break;
      default: return Prefix::Unknown;
    }
  }
  return formatted ? Prefix::Formatted : Prefix::Plain;
}

}  // namespace

std::optional<std::string> blankStringsAndComments(std::string_view text,
                                                   std::vector<std::pair<size_t, size_t>>* formatted) {
  std::string out(text);
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    char c = text[i];
    if (c == '#') {
      while (i < n && text[i] != '\n' && text[i] != '\r') out[i++] = ' ';
      continue;
    }
    if (c != '"' && c != '\'') {
      ++i;
      continue;
    }
    size_t prefix_start = 0;
    Prefix prefix = prefixBefore(text, i, prefix_start);
    if (prefix == Prefix::Unknown) return std::nullopt;
    bool triple = i + 2 < n && text[i + 1] == c && text[i + 2] == c;
    size_t quote_len = triple ? 3 : 1;
    size_t j = i + quote_len;
    int depth = 0;  // inside an f-string's `{...}`
    bool closed = false;
    while (j < n) {
      char d = text[j];
      if (d == '\\') {
        j += 2;
        continue;
      }
      if (!triple && (d == '\n' || d == '\r')) return std::nullopt;
      if (d == c && (!triple || (j + 2 < n && text[j + 1] == c && text[j + 2] == c))) {
        if (depth > 0) return std::nullopt;  // a nested string of the same quote, or not an end
        closed = true;
        break;
      }
      if (prefix == Prefix::Formatted) {
        if (d == '{') {
          if (depth == 0 && j + 1 < n && text[j + 1] == '{') {
            j += 2;
            continue;
          }
          ++depth;
        } else if (d == '}' && depth > 0) {
          --depth;
        }
      }
      ++j;
    }
    if (!closed) return std::nullopt;
    if (prefix == Prefix::Formatted && formatted != nullptr) formatted->emplace_back(prefix_start, j + quote_len);
    if (prefix == Prefix::Plain)
      for (size_t k = i + quote_len; k < j; ++k)
        if (text[k] != '\n' && text[k] != '\r') out[k] = ' ';
    i = j + quote_len;
  }
  return out;
}

namespace {
const char kCodeKey = 0;
}  // namespace

const std::optional<std::string>& codeOf(const ParsedFile& file) {
  return file.treeAnalysis<std::optional<std::string>>(&kCodeKey, [&file] {
    return std::make_shared<const std::optional<std::string>>(blankStringsAndComments(file.text()));
  });
}

void adoptCode(const ParsedFile& file, std::optional<std::string> code) {
  file.treeAnalysis<std::optional<std::string>>(&kCodeKey, [&code] {
    return std::make_shared<const std::optional<std::string>>(std::move(code));
  });
}

std::string_view codeOrText(const ParsedFile& file) {
  const std::optional<std::string>& code = codeOf(file);
  return code ? std::string_view(*code) : file.text();
}

PrefilterText::PrefilterText(const ParsedFile& file) : text_(file.text()), file_(&file) {}

}  // namespace ptlint::analysis
