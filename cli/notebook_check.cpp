#include "cli/notebook_check.h"

#include <algorithm>

#include "cli/diff.h"

namespace ptlint::cli {

void mapCells(FileReport& report, const workspace::Notebook& notebook) {
  report.cells.clear();
  auto spans = workspace::splitJoined(notebook, report.text);
  if (!spans) return;
  uint32_t row = 0;
  size_t pos = 0;
  for (const auto& span : *spans) {
    row += static_cast<uint32_t>(std::count(report.text.begin() + static_cast<long>(pos),
                                            report.text.begin() + static_cast<long>(span.begin), '\n'));
    pos = span.begin;
    report.cells.emplace_back(row, static_cast<uint32_t>(span.index + 1));
  }
}

bool notebookDiff(const workspace::Notebook& notebook, std::string_view fixed_joined,
                  const workspace::EditHistory& history, std::string_view display_path, std::string& diff,
                  std::string& error) {
  auto sources = workspace::cellSources(notebook, fixed_joined, history, error);
  if (!sources) return false;
  diff.clear();
  for (size_t k = 0; k < sources->size(); ++k) {
    const auto& cell = notebook.code_cells[k];
    if ((*sources)[k] == cell.source) continue;
    std::string path = std::string(display_path) + ":cell " + std::to_string(cell.index + 1);
    diff += unifiedDiff(cell.source, (*sources)[k], path);
  }
  return true;
}

}  // namespace ptlint::cli
