#include "workspace/training_scan.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/instrumentation.h"
#include "analysis/text_search.h"
#include "rules/data/epoch_trainers.h"

namespace ptlint::workspace {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t'; }

// `line` (without its newline) imports one of the trainer packages: `import X`, `import X.y`,
// `from X import ...`, `from X.y import ...`, `import a, X`.
bool importsTrainer(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && isSpace(line[i])) ++i;
  line.remove_prefix(i);
  bool from = line.starts_with("from ");
  if (!from && !line.starts_with("import ")) return false;
  std::string_view rest = line.substr(from ? 5 : 7);
  for (std::string_view trainer : rules::kEpochSettingTrainers) {
    bool found = false;
    analysis::forEachWholeWord(rest, trainer, [&](size_t at) {
      // The package itself, not a submodule of another (`foo.lightning`).
      size_t before = at;
      while (before > 0 && isSpace(rest[before - 1])) --before;
      bool first = before == 0 || rest[before - 1] == ',';
      if (from && before != 0) first = false;
      if (first && at > 0 && rest[at - 1] == '.') first = false;
      return found = first;
    });
    if (found) return true;
  }
  return false;
}

// `line` opens a `for` loop whose header names an epoch (`for epoch in range(n_epochs):`).
bool loopsOverEpochs(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && isSpace(line[i])) ++i;
  line.remove_prefix(i);
  if (line.starts_with("async ")) line.remove_prefix(6);
  if (!line.starts_with("for ")) return false;
  size_t colon = line.rfind(':');
  if (colon == std::string_view::npos) return false;
  for (size_t at = 4; at + 5 <= colon; ++at) {
    bool match = true;
    for (size_t k = 0; k < 5 && match; ++k)
      match = std::tolower(static_cast<unsigned char>(line[at + k])) == "epoch"[k];
    if (match) return true;
  }
  return false;
}

// Is the `.eval(` at `at` in the body of a top-level class, where no top-level function (the
// only kind PTL707's cross-file facts name) can hold it? So when the nearest line at or above it
// that starts at column 0 opens a class. `code`: the text with comments and plain strings
// blanked, where such a line is a statement unless it starts inside an f-string (`formatted`).
bool inClassBody(std::string_view code, size_t at, const std::vector<std::pair<size_t, size_t>>& formatted) {
  size_t end = at;
  while (true) {
    size_t start = end;
    while (start > 0 && code[start - 1] != '\n' && code[start - 1] != '\r') --start;
    std::string_view line = code.substr(start, end - start);
    size_t first = line.find_first_not_of(" \t\f\v");
    if (first == 0) {
      if (!(line.starts_with("class ") || line.starts_with("class\t"))) return false;
      return std::none_of(formatted.begin(), formatted.end(),
                          [&](const auto& span) { return span.first < start && start < span.second; });
    }
    if (start == 0) return false;
    end = start - 1;
  }
}

// Some `R.eval()` whose receiver `R` is called further on (`R(`), outside a class's body: only
// such a file can hold a function PTL707 reports.
bool setsEvalModeThenRuns(std::string_view text) {
  std::optional<std::string> code;
  std::vector<std::pair<size_t, size_t>> formatted;  // f-strings, which the code view keeps whole
  bool lexed = false;
  for (size_t at = analysis::findBytes(text, ".eval("); at != std::string_view::npos;
       at = analysis::findBytes(text, ".eval(", at + 1)) {
    size_t end = at + 6;
    while (end < text.size() && isSpace(text[end])) ++end;
    if (end >= text.size() || text[end] != ')') continue;
    size_t begin = at;
    while (begin > 0 && (analysis::isIdentifierByte(text[begin - 1]) || text[begin - 1] == '.')) --begin;
    std::string_view receiver = text.substr(begin, at - begin);
    if (receiver.empty()) continue;
    bool runs = false;
    for (size_t from = analysis::findBytes(text, receiver, end); from != std::string_view::npos && !runs;
         from = analysis::findBytes(text, receiver, from + receiver.size())) {
      if (from > 0 && (analysis::isIdentifierByte(text[from - 1]) || text[from - 1] == '.')) continue;
      size_t after = from + receiver.size();
      while (after < text.size() && isSpace(text[after])) ++after;
      runs = after < text.size() && text[after] == '(';
    }
    if (!runs) continue;
    if (analysis::prefiltersDisabled()) return true;  // the oracle's reference: the raw test alone
    if (!lexed) {
      lexed = true;
      code = analysis::blankStringsAndComments(text, &formatted);
    }
    if (!code || !inClassBody(*code, at, formatted)) return true;
  }
  return false;
}

}  // namespace

uint8_t trainingWordsOf(std::string_view text) {
  uint8_t bits = 0;
  if (analysis::findBytes(text, "set_epoch") != std::string_view::npos) bits |= kSpellsSetEpoch;
  if (setsEvalModeThenRuns(text)) bits |= kSetsEvalMode;
  // Line by line only where a line can hold what is looked for.
  bool any_import = analysis::findBytes(text, "import") != std::string_view::npos;
  bool any_epoch = analysis::findBytes(text, "poch") != std::string_view::npos ||
                   analysis::findBytes(text, "POCH") != std::string_view::npos;
  if (!any_import && !any_epoch) return bits;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (any_import && !(bits & kImportsTrainer) && importsTrainer(line)) bits |= kImportsTrainer;
    if (any_epoch && !(bits & kLoopsOverEpochs) && loopsOverEpochs(line)) bits |= kLoopsOverEpochs;
    start = end + 1;
  }
  return bits;
}

bool mayWriteVariable(std::string_view text, std::string_view variable, bool code_view) {
  if (analysis::prefiltersDisabled() || !code_view) return analysis::findBytes(text, variable) != std::string_view::npos;
  bool any = false, decided_in_tree = false;
  analysis::forEachWholeWord(text, variable, [&](size_t at) {
    any = true;
    // `"X"` (a literal naming it exactly), `\\N{X}`: only the tree tells.
    char before = at > 0 ? text[at - 1] : '\0';
    decided_in_tree = before == '"' || before == '\'' || before == '{';
    return decided_in_tree;
  });
  if (decided_in_tree) return true;
  if (!any) return false;
  // Otherwise only a name spelled so in the code (`dict(X=v)`) may set it, not a comment's or a
  // docstring's words.
  auto code = analysis::blankStringsAndComments(text);
  return !code || analysis::forEachWholeWord(*code, variable, [](size_t) { return true; });
}

}  // namespace ptlint::workspace
