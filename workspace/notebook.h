// Jupyter notebooks (nbformat 4): the code cells joined into one Python source, and the
// notebook written back with only the changed cells' `source` values replaced.
//
// The notebook's JSON is scanned once, without building a document: outputs and metadata are
// validated as JSON and skipped. The byte range of every cell's `source` value is recorded so
// that a fixed cell is spliced into the original bytes; every other byte (indentation, key
// order, escapes, outputs, trailing newline) stays as it was.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quickfix/fix.h"

namespace ptlint::workspace {

// A line that separates two cells in the joined source: a comment, so it neither changes the
// meaning of the code nor matches a rule, and a fix spanning it is refused.
inline constexpr std::string_view kCellSeparator = "#\xE2\x80\x8B ptlint cell boundary \xE2\x80\x8B#";

struct NotebookCell {
  size_t index = 0;                  // position among all cells, 0-based
  size_t source_begin = 0, source_end = 0;  // byte range of the `source` value in the file
  bool source_is_list = false;
  std::string source;                // decoded source as the notebook holds it
  std::string masked;                // `source` with magics replaced by neutral Python (same length)
  bool added_newline = false;        // the joined text ends this cell with a '\n' it lacks
};

struct Notebook {
  std::vector<NotebookCell> code_cells;  // Python code cells, in order
  std::string joined;                    // masked code cells separated by kCellSeparator lines
  int indent_width = 1;                  // the JSON's indentation unit (spaces)
};

// Parses `bytes` (UTF-8, without BOM). On failure returns nullopt and sets `error` to a
// sentence saying what is wrong (without the file name).
std::optional<Notebook> parseNotebook(std::string_view bytes, std::string& error);

// Replaces IPython syntax (line magics `%time`, cell magics `%%bash`, shell escapes `!ls`,
// `x = !ls`, help `?obj` / `obj?`) with Python of the same length. Only lines that start a
// logical line are touched (not a line inside brackets, a string or after a backslash).
std::string maskMagics(std::string_view source);

// Where a cell starts in a joined text.
struct CellSpan {
  size_t index = 0;   // position among all cells, 0-based
  size_t begin = 0;   // byte offset of the cell's first byte in the joined text
  size_t end = 0;     // one past its last byte (before the separator line)
};

// Splits a joined text (possibly changed by fixes) at its separator lines. Returns nullopt
// when it does not hold one cell per code cell of `notebook`.
std::optional<std::vector<CellSpan>> splitJoined(const Notebook& notebook, std::string_view joined);

// The notebook's bytes with each code cell's source taken from `joined`: the joined text after
// the passes of edits in `history` (workspace/notebook_edits.h). Cells whose text is unchanged
// keep their bytes; masked lines get their original text back at the positions the edits moved
// them to. Returns nullopt with `error` set when the text cannot be mapped back onto the cells.
std::optional<std::string> renderNotebook(std::string_view original_bytes, const Notebook& notebook,
                                          std::string_view joined, const std::vector<std::vector<quickfix::Edit>>& history,
                                          std::string& error);

// The per-cell source texts of a fixed joined text, unmasked; nullopt as renderNotebook.
std::optional<std::vector<std::string>> cellSources(const Notebook& notebook, std::string_view joined,
                                                    const std::vector<std::vector<quickfix::Edit>>& history,
                                                    std::string& error);

// A notebook made of the given code cell sources (as an editor holds them): `index` is the
// position in `sources`. No byte ranges: it cannot be rendered back to a file.
Notebook notebookFromCells(const std::vector<std::string>& sources);

// True when `path` names a notebook (`.ipynb`).
bool isNotebookPath(std::string_view path);

}  // namespace ptlint::workspace
