// `ptlint check` on Jupyter notebooks: the joined code cells go through the same pipeline as
// a Python file; these hooks keep fixes inside cells, map findings to cells, write back.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "cli/report.h"
#include "quickfix/fix.h"
#include "workspace/pipeline.h"
#include "workspace/notebook.h"

namespace ptlint::cli {

// Sets `report.cells` from the joined text in `report.text` (after fixes).
void mapCells(FileReport& report, const workspace::Notebook& notebook);

// `--diff` of a notebook: one unified diff per changed cell, headed `path:cell N`.
// Returns false with `error` set when the fixed text cannot be mapped back onto the cells.
// `history`: the edits from the notebook's joined text to `fixed_joined`.
bool notebookDiff(const workspace::Notebook& notebook, std::string_view fixed_joined,
                  const workspace::EditHistory& history, std::string_view display_path, std::string& diff,
                  std::string& error);

}  // namespace ptlint::cli
