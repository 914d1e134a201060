#include "workspace/notebook.h"

#include "workspace/notebook_edits.h"

#include "quickfix/edit_guard.h"

#include <nlohmann/json.hpp>

#include "analysis/line_index.h"
#include "analysis/text_search.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace ptlint::workspace {
namespace {

using analysis::isIdentifierByte;
using analysis::splitLines;

using nlohmann::json;

// What a JSON value is to the notebook, decided by its parent and key.
enum class Role {
  None, Root, NbFormat, Cells, Cell, CellType, CellSource, Metadata, Kernelspec, KernelLanguage,
  LanguageInfo, LanguageName, CellMetadata, CellVscode, CellLanguageId
};

Role childRole(Role parent, std::string_view raw_key) {
  switch (parent) {
    case Role::Root:
      if (raw_key == "\"nbformat\"") return Role::NbFormat;
      if (raw_key == "\"cells\"") return Role::Cells;
      if (raw_key == "\"metadata\"") return Role::Metadata;
      return Role::None;
    case Role::Cells: return Role::Cell;
    case Role::Cell:
      if (raw_key == "\"cell_type\"") return Role::CellType;
      if (raw_key == "\"source\"") return Role::CellSource;
      if (raw_key == "\"metadata\"") return Role::CellMetadata;
      return Role::None;
    case Role::Metadata:
      if (raw_key == "\"kernelspec\"") return Role::Kernelspec;
      if (raw_key == "\"language_info\"") return Role::LanguageInfo;
      return Role::None;
    case Role::Kernelspec: return raw_key == "\"language\"" ? Role::KernelLanguage : Role::None;
    case Role::LanguageInfo: return raw_key == "\"name\"" ? Role::LanguageName : Role::None;
    case Role::CellMetadata: return raw_key == "\"vscode\"" ? Role::CellVscode : Role::None;
    case Role::CellVscode: return raw_key == "\"languageId\"" ? Role::CellLanguageId : Role::None;
    default: return Role::None;
  }
}

struct RawCell {
  std::optional<std::string> type, language;
  bool has_source = false;
  size_t source_begin = 0, source_end = 0;
};

struct Range {
  size_t begin = 0, end = 0;
};

// A validating JSON scanner without recursion and without a document: strings are skipped
// byte by byte, only the values the notebook needs are decoded.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  bool run() {
    ws();
    if (i_ >= s_.size()) return fail("the file is empty");
    if (s_[i_] != '{') return fail("the file is not a JSON object");
    if (!value(Role::Root)) return false;
    while (!stack_.empty()) {
      ws();
      if (i_ >= s_.size()) return fail("the JSON ends early");
      Frame& f = stack_.back();
      char c = s_[i_];
      if (f.object) {
        if (f.expect_item) {
          if (c == '}' && f.count == 0) {
            close();
            continue;
          }
          if (c != '"') return fail("expected a key");
          size_t key_begin = i_;
          if (!string()) return false;
          std::string_view key = s_.substr(key_begin, i_ - key_begin);
          ws();
          if (i_ >= s_.size() || s_[i_] != ':') return fail("expected ':'");
          ++i_;
          ws();
          f.expect_item = false;
          ++f.count;
          Role role = childRole(f.role, key);
          if (!value(role)) return false;
        } else if (c == ',') {
          ++i_;
          f.expect_item = true;
        } else if (c == '}') {
          close();
        } else {
          return fail("expected ',' or '}'");
        }
      } else {
        if (f.expect_item) {
          if (c == ']' && f.count == 0) {
            close();
            continue;
          }
          f.expect_item = false;
          ++f.count;
          if (!value(childRole(f.role, {}))) return false;
        } else if (c == ',') {
          ++i_;
          f.expect_item = true;
        } else if (c == ']') {
          close();
        } else {
          return fail("expected ',' or ']'");
        }
      }
    }
    ws();
    if (i_ != s_.size()) return fail("unexpected text after the JSON");
    return true;
  }

  std::string error;
  std::optional<long> nbformat;
  bool cells_is_array = false, saw_cells = false;
  std::vector<RawCell> cells;
  std::optional<std::string> kernel_language, language_name;

 private:
  struct Frame {
    bool object;
    Role role;
    size_t begin;
    size_t count = 0;
    bool expect_item = true;
  };

  bool fail(std::string_view what) {
    size_t line = 1, column = 1;
    for (size_t k = 0; k < std::min(i_, s_.size()); ++k) {
      if (s_[k] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    error = "invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(column) + ": " +
            std::string(what);
    return false;
  }

  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }

  bool string() {
    ++i_;  // opening quote
    while (i_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c == '\\') {
        if (i_ + 1 >= s_.size()) break;
        char e = s_[i_ + 1];
        if (e == 'u') {
          if (i_ + 6 > s_.size()) break;
          for (size_t k = i_ + 2; k < i_ + 6; ++k)
            if (!std::isxdigit(static_cast<unsigned char>(s_[k]))) return fail("bad \\u escape");
          i_ += 6;
          continue;
        }
        if (!std::strchr("\"\\/bfnrt", e) || e == 0) return fail("bad escape in a string");
        i_ += 2;
        continue;
      }
      if (c < 0x20) return fail("control character in a string");
      ++i_;
    }
    return fail("unterminated string");
  }

  bool scalar() {
    char c = s_[i_];
    if (c == '"') return string();
    if (c == '-' || (c >= '0' && c <= '9')) {
      size_t start = i_;
      while (i_ < s_.size() && std::strchr("+-0123456789.eE", s_[i_]) && s_[i_] != 0) ++i_;
      // Validated by the standard grammar through nlohmann on the short token.
      if (!json::accept(s_.substr(start, i_ - start))) return fail("bad number");
      return true;
    }
    for (std::string_view word : {"true", "false", "null"})
      if (s_.substr(i_, word.size()) == word) {
        i_ += word.size();
        return true;
      }
    return fail("unexpected character");
  }

  bool value(Role role) {
    if (i_ >= s_.size()) return fail("the JSON ends early");
    char c = s_[i_];
    if (role == Role::Cell) cells.emplace_back();
    if (c == '{' || c == '[') {
      stack_.push_back(Frame{c == '{', role, i_});
      ++i_;
      return true;
    }
    size_t begin = i_;
    if (!scalar()) return false;
    finished(role, begin, i_);
    return true;
  }

  void close() {
    Frame f = stack_.back();
    stack_.pop_back();
    ++i_;
    finished(f.role, f.begin, i_);
  }

  std::optional<std::string> decodeString(size_t begin, size_t end) const {
    if (s_[begin] != '"') return std::nullopt;
    try {
      return json::parse(s_.substr(begin, end - begin)).get<std::string>();
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  void finished(Role role, size_t begin, size_t end) {
    switch (role) {
      case Role::NbFormat:
        if (std::isdigit(static_cast<unsigned char>(s_[begin])))
          nbformat = std::strtol(std::string(s_.substr(begin, end - begin)).c_str(), nullptr, 10);
        else
          nbformat = -1;
        break;
      case Role::Cells:
        saw_cells = true;
        cells_is_array = s_[begin] == '[';
        break;
      case Role::CellType:
        if (!cells.empty()) cells.back().type = decodeString(begin, end);
        break;
      case Role::CellLanguageId:
        if (!cells.empty()) cells.back().language = decodeString(begin, end);
        break;
      case Role::CellSource:
        if (!cells.empty()) {
          cells.back().has_source = true;
          cells.back().source_begin = begin;
          cells.back().source_end = end;
        }
        break;
      case Role::KernelLanguage: kernel_language = decodeString(begin, end); break;
      case Role::LanguageName: language_name = decodeString(begin, end); break;
      default: break;
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  std::vector<Frame> stack_;
};

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string_view withoutEnding(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// `t` is a line's text from its first non-blank character, without the line ending.
bool isMagicLine(std::string_view t) {
  if (t.empty()) return false;
  if (t[0] == '%' || t[0] == '!' || t[0] == '?') return true;
  // `obj?`, `obj.attr??`: nothing else ends a logical line with '?'.
  std::string_view trimmed = t;
  while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t')) trimmed.remove_suffix(1);
  if (!trimmed.empty() && trimmed.back() == '?' && trimmed.find('#') == std::string_view::npos &&
      trimmed.find('"') == std::string_view::npos && trimmed.find('\'') == std::string_view::npos)
    return true;
  // Automagics (IPython runs `pip install x` as `%pip install x`): a name of the set followed
  // by a word, which Python never allows.
  for (std::string_view name : {"pip", "conda", "mamba", "micromamba", "cd", "ls", "pwd", "env"}) {
    if (!t.starts_with(name) || t.size() <= name.size() || (t[name.size()] != ' ' && t[name.size()] != '\t')) continue;
    size_t w = t.find_first_not_of(" \t", name.size());
    if (w != std::string_view::npos && (std::isalpha(static_cast<unsigned char>(t[w])) || t[w] == '_')) {
      std::string_view word = t.substr(w);
      size_t end = 0;
      while (end < word.size() && isIdentifierByte(word[end])) ++end;
      std::string_view first = word.substr(0, end);
      // `ls if x else y`, `cd in paths`: Python keywords make it Python.
      static const std::vector<std::string_view> keywords{"if", "else", "in", "is", "and", "or", "not", "for", "async", "await", "lambda"};
      if (std::find(keywords.begin(), keywords.end(), first) == keywords.end()) return true;
    }
  }
  // `x = !ls`, `files = %sx ls`: targets made of names, dots, commas.
  size_t k = 0;
  while (k < t.size() && (isIdentifierByte(t[k]) || t[k] == '.' || t[k] == ',' || t[k] == ' ' || t[k] == '\t')) ++k;
  if (k == 0 || k >= t.size() || t[k] != '=' || !isIdentifierByte(t[0])) return false;
  ++k;
  while (k < t.size() && (t[k] == ' ' || t[k] == '\t')) ++k;
  return k < t.size() && (t[k] == '!' || t[k] == '%');
}

// Replaces [begin, end) of `out` by a statement of the same length.
void maskRange(std::string& out, size_t begin, size_t end, bool blank = false) {
  size_t length = end - begin;
  if (length == 0) return;
  std::string replacement = blank ? "" : length >= 4 ? "pass" : "0";
  replacement.resize(length, ' ');
  out.replace(begin, length, replacement);
}

// The cell magics whose body IPython runs as Python: the body is linted, the first line masked.
bool bodyIsPython(std::string_view magic) {
  for (std::string_view name : {"time", "timeit", "capture", "prun", "debug"})
    if (magic == name) return true;
  return false;
}

}  // namespace

void joinCells(Notebook& notebook);

bool isNotebookPath(std::string_view path) { return path.size() >= 6 && path.substr(path.size() - 6) == ".ipynb"; }

std::string maskMagics(std::string_view source) {
  std::string out(source);
  std::vector<std::string_view> lines = splitLines(source);
  size_t first = 0, offset = 0;
  // Blank lines and comments (Colab's `#@title` form lines) may come before a cell magic.
  auto skippable = [](std::string_view line) {
    size_t p = line.find_first_not_of(" \t");
    return p == std::string_view::npos || line[p] == '#';
  };
  while (first < lines.size() && skippable(withoutEnding(lines[first]))) {
    offset += lines[first].size();
    ++first;
  }
  if (first < lines.size() && lines[first].starts_with("%%")) {
    std::string_view head = withoutEnding(lines[first]).substr(2);
    std::string_view name = head.substr(0, head.find_first_of(" \t"));
    bool python_body = bodyIsPython(name);
    size_t at = offset;
    for (size_t k = first; k < lines.size(); ++k) {
      maskRange(out, at, at + withoutEnding(lines[k]).size());
      at += lines[k].size();
      if (python_body) break;
    }
    if (!python_body) return out;
    lines.erase(lines.begin(), lines.begin() + static_cast<long>(first) + 1);
    offset = at;
  } else {
    offset = 0;
    first = 0;
  }
  // Python's tokenizer state across lines: open brackets, an open string, a backslash.
  int depth = 0;
  char quote = 0;
  bool triple = false, continued = false, magic_continues = false;
  size_t at = offset;
  for (std::string_view line : lines) {
    std::string_view text = withoutEnding(line);
    size_t line_start = at;
    at += line.size();
    if (magic_continues) {
      // A shell command continued with `\`: blank (Python ignores blank lines at any indent).
      maskRange(out, line_start, line_start + text.size(), true);
      magic_continues = !text.empty() && text.back() == '\\';
      continue;
    }
    if (depth == 0 && quote == 0 && !continued) {
      size_t p = text.find_first_not_of(" \t");
      if (p != std::string_view::npos && isMagicLine(text.substr(p))) {
        maskRange(out, line_start + p, line_start + text.size());
        magic_continues = text.back() == '\\';
        continue;
      }
    }
    bool comment = false;
    for (size_t k = 0; k < text.size(); ++k) {
      char c = text[k];
      if (quote) {
        if (c == '\\') {
          ++k;
        } else if (c == quote) {
          if (!triple) {
            quote = 0;
          } else if (text.substr(k, 3) == std::string(3, quote)) {
            quote = 0;
            k += 2;
          }
        }
        continue;
      }
      if (c == '#') {
        comment = true;
        break;
      }
      if (c == '"' || c == '\'') {
        quote = c;
        triple = text.substr(k, 3) == std::string(3, c);
        if (triple) k += 2;
      } else if (c == '(' || c == '[' || c == '{') {
        ++depth;
      } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
        --depth;
      }
    }
    continued = !comment && !text.empty() && text.back() == '\\';
    if (quote && !triple && !continued) quote = 0;  // an unterminated string ends with its line
  }
  return out;
}

std::optional<Notebook> parseNotebook(std::string_view bytes, std::string& error) {
  Scanner scanner(bytes);
  if (!scanner.run()) {
    error = "not a valid notebook: " + scanner.error;
    return std::nullopt;
  }
  if (!scanner.nbformat) {
    error = "not a valid notebook: it has no top-level \"nbformat\" number";
    return std::nullopt;
  }
  if (*scanner.nbformat != 4) {
    error = "nbformat " + std::to_string(*scanner.nbformat) +
            " notebooks are not supported (only nbformat 4); convert it with "
            "`jupyter nbconvert --to notebook --inplace` or by saving it in a current Jupyter";
    return std::nullopt;
  }
  if (!scanner.saw_cells || !scanner.cells_is_array) {
    error = "not a valid notebook: it has no top-level \"cells\" list";
    return std::nullopt;
  }
  Notebook notebook;
  // The JSON's indentation unit: the spaces before the first key.
  size_t nl = bytes.find('\n');
  if (nl != std::string_view::npos) {
    size_t k = nl + 1;
    while (k < bytes.size() && bytes[k] == ' ') ++k;
    if (k > nl + 1) notebook.indent_width = static_cast<int>(k - nl - 1);
  }
  std::optional<std::string> language = scanner.language_name ? scanner.language_name : scanner.kernel_language;
  bool python = !language || lower(*language) == "python";
  for (size_t index = 0; index < scanner.cells.size(); ++index) {
    const RawCell& raw = scanner.cells[index];
    if (!raw.type || *raw.type != "code") continue;
    if (!raw.has_source) {
      error = "not a valid notebook: cell " + std::to_string(index + 1) + " has no \"source\"";
      return std::nullopt;
    }
    NotebookCell cell;
    cell.index = index;
    cell.source_begin = raw.source_begin;
    cell.source_end = raw.source_end;
    std::string_view value = bytes.substr(raw.source_begin, raw.source_end - raw.source_begin);
    bool ok = false;
    try {
      json decoded = json::parse(value);
      if (decoded.is_string()) {
        cell.source = decoded.get<std::string>();
        ok = true;
      } else if (decoded.is_array()) {
        cell.source_is_list = true;
        ok = true;
        for (const auto& part : decoded) {
          if (!part.is_string()) {
            ok = false;
            break;
          }
          cell.source += part.get<std::string>();
        }
      }
    } catch (const std::exception&) {
      ok = false;
    }
    if (!ok) {
      error = "not a valid notebook: the \"source\" of cell " + std::to_string(index + 1) +
              " is neither a string nor a list of strings";
      return std::nullopt;
    }
    if (!python || (raw.language && *raw.language != "python")) continue;
    cell.masked = maskMagics(cell.source);
    notebook.code_cells.push_back(std::move(cell));
  }
  joinCells(notebook);
  return notebook;
}

Notebook notebookFromCells(const std::vector<std::string>& sources) {
  Notebook notebook;
  for (size_t k = 0; k < sources.size(); ++k) {
    NotebookCell cell;
    cell.index = k;
    cell.source = sources[k];
    cell.masked = maskMagics(cell.source);
    notebook.code_cells.push_back(std::move(cell));
  }
  joinCells(notebook);
  return notebook;
}

void joinCells(Notebook& notebook) {
  for (size_t k = 0; k < notebook.code_cells.size(); ++k) {
    NotebookCell& cell = notebook.code_cells[k];
    // A half-typed cell (an open bracket, string or `\` at its end) would swallow the cells
    // after it, which Jupyter compiles on their own: it is blanked (lines kept), so the others
    // are read as they run and fixed; it gets no findings and no fix until it is complete.
    if (quickfix::LexicalMap(cell.masked).endsOpen())
      for (char& c : cell.masked)
        if (c != '\n' && c != '\r') c = ' ';
    if (k > 0) {
      notebook.joined += kCellSeparator;
      notebook.joined += '\n';
    }
    notebook.joined += cell.masked;
    if (!cell.masked.empty() && cell.masked.back() != '\n') {
      notebook.joined += '\n';
      cell.added_newline = true;
    }
  }
}

std::optional<std::vector<CellSpan>> splitJoined(const Notebook& notebook, std::string_view joined) {
  std::vector<CellSpan> spans;
  size_t pos = 0;
  for (size_t k = 0; k < notebook.code_cells.size(); ++k) {
    CellSpan span;
    span.index = notebook.code_cells[k].index;
    span.begin = pos;
    if (k + 1 == notebook.code_cells.size()) {
      span.end = joined.size();
    } else {
      size_t search = pos;
      size_t found = std::string_view::npos;
      while ((found = joined.find(kCellSeparator, search)) != std::string_view::npos) {
        bool line_start = found == 0 || joined[found - 1] == '\n';
        size_t after = found + kCellSeparator.size();
        if (line_start && after < joined.size() && joined[after] == '\n') break;
        search = found + 1;
      }
      if (found == std::string_view::npos) return std::nullopt;
      span.end = found;
      pos = found + kCellSeparator.size() + 1;
    }
    spans.push_back(span);
  }
  if (notebook.code_cells.empty() && !joined.empty()) return std::nullopt;
  if (!spans.empty() && joined.substr(spans.back().begin).find(kCellSeparator) != std::string_view::npos)
    return std::nullopt;
  return spans;
}

std::optional<std::vector<std::string>> cellSources(const Notebook& notebook, std::string_view joined,
                                                    const EditHistory& history, std::string& error) {
  JoinedTracker tracker(notebook);
  tracker.apply(history);
  return tracker.cellSources(joined, error);
}

namespace {

// The JSON text of a source value in the notebook's own style.
// `ascii_only`: the file escapes every non-ASCII character (decided once per notebook).
std::string renderSource(std::string_view bytes, const NotebookCell& cell, const std::string& text, int indent_width,
                         bool ascii_only) {
  auto escape = [&](const std::string& s) { return json(s).dump(-1, ' ', ascii_only, json::error_handler_t::replace); };
  if (!cell.source_is_list) return escape(text);
  std::vector<std::string_view> lines = splitLines(text);
  if (lines.empty()) return "[]";
  std::string_view old = bytes.substr(cell.source_begin, cell.source_end - cell.source_begin);
  // Reuse the bytes of unchanged lines (their escapes as written).
  std::vector<std::pair<std::string, std::string_view>> old_items;
  std::string open_ws, close_ws, between = ",";
  {
    size_t k = 1;
    auto skip = [&] {
      size_t s = k;
      while (k < old.size() && (old[k] == ' ' || old[k] == '\n' || old[k] == '\r' || old[k] == '\t')) ++k;
      return std::string(old.substr(s, k - s));
    };
    open_ws = skip();
    bool first = true;
    while (k < old.size() && old[k] == '"') {
      size_t s = k++;
      while (k < old.size() && old[k] != '"') k += old[k] == '\\' ? 2 : 1;
      ++k;
      std::string_view raw = old.substr(s, k - s);
      try {
        old_items.emplace_back(json::parse(raw).get<std::string>(), raw);
      } catch (const std::exception&) {
      }
      std::string after = skip();
      if (k < old.size() && old[k] == ',') {
        ++k;
        std::string gap = skip();
        if (first) between = after + "," + gap;
        first = false;
      } else {
        close_ws = after;
      }
    }
    if (old_items.empty()) {
      // An empty list: indent one level deeper than the "source" key's line.
      size_t line_start = bytes.rfind('\n', cell.source_begin);
      size_t indent = 0;
      if (line_start != std::string_view::npos)
        while (bytes[line_start + 1 + indent] == ' ') ++indent;
      open_ws = "\n" + std::string(indent + static_cast<size_t>(indent_width), ' ');
      close_ws = "\n" + std::string(indent, ' ');
      between = "," + open_ws;
    } else if (old_items.size() == 1) {
      between = "," + open_ws;
    }
  }
  std::string out = "[" + open_ws;
  size_t reuse = 0;
  for (size_t l = 0; l < lines.size(); ++l) {
    if (l > 0) out += between;
    std::string line(lines[l]);
    bool reused = false;
    for (size_t r = reuse; r < old_items.size(); ++r)
      if (old_items[r].first == line) {
        out += old_items[r].second;
        reuse = r + 1;
        reused = true;
        break;
      }
    if (!reused) out += escape(line);
  }
  out += close_ws + "]";
  return out;
}

}  // namespace

std::optional<std::string> renderNotebook(std::string_view original_bytes, const Notebook& notebook,
                                          std::string_view joined, const EditHistory& history, std::string& error) {
  auto sources = cellSources(notebook, joined, history, error);
  if (!sources) return std::nullopt;
  bool ascii_only = std::none_of(original_bytes.begin(), original_bytes.end(),
                                 [](char c) { return static_cast<unsigned char>(c) >= 0x80; }) &&
                    original_bytes.find("\\u") != std::string_view::npos;
  std::string out;
  out.reserve(original_bytes.size() + 256);
  size_t pos = 0;
  for (size_t k = 0; k < notebook.code_cells.size(); ++k) {
    const NotebookCell& cell = notebook.code_cells[k];
    if ((*sources)[k] == cell.source) continue;
    out.append(original_bytes.substr(pos, cell.source_begin - pos));
    out += renderSource(original_bytes, cell, (*sources)[k], notebook.indent_width, ascii_only);
    pos = cell.source_end;
  }
  out.append(original_bytes.substr(pos));
  return out;
}

}  // namespace ptlint::workspace
