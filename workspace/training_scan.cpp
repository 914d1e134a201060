#include "workspace/training_scan.h"

#include <cctype>

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

// Some `R.eval()` whose receiver `R` is called further on (`R(`): only such a file can hold a
// function PTL707 reports.
bool setsEvalModeThenRuns(std::string_view text) {
  for (size_t at = analysis::findBytes(text, ".eval("); at != std::string_view::npos;
       at = analysis::findBytes(text, ".eval(", at + 1)) {
    size_t end = at + 6;
    while (end < text.size() && isSpace(text[end])) ++end;
    if (end >= text.size() || text[end] != ')') continue;
    size_t begin = at;
    while (begin > 0 && (analysis::isIdentifierByte(text[begin - 1]) || text[begin - 1] == '.')) --begin;
    std::string_view receiver = text.substr(begin, at - begin);
    if (receiver.empty()) continue;
    for (size_t from = analysis::findBytes(text, receiver, end); from != std::string_view::npos;
         from = analysis::findBytes(text, receiver, from + receiver.size())) {
      if (from > 0 && (analysis::isIdentifierByte(text[from - 1]) || text[from - 1] == '.')) continue;
      size_t after = from + receiver.size();
      while (after < text.size() && isSpace(text[after])) ++after;
      if (after < text.size() && text[after] == '(') return true;
    }
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

}  // namespace ptlint::workspace
