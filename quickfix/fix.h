// Fixes as data: byte-offset edits plus an applicability. Rules build them; the fix loop,
// the CLI and the LSP server apply or show them. Nothing here knows rows, columns or UTF-16.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptlint::quickfix {

// Ordered by how freely a fix may be applied: display-only < unsafe < safe (as in Ruff).
enum class Applicability { DisplayOnly = 0, Unsafe = 1, Safe = 2 };

std::string_view applicabilityName(Applicability applicability);

// Replace bytes [start, end) with `content`. An insertion has start == end. `content` uses '\n'
// line breaks; they are converted to the file's own line ending when applied.
struct Edit {
  uint32_t start = 0;
  uint32_t end = 0;
  std::string content;

  friend bool operator==(const Edit&, const Edit&) = default;
};

struct Fix {
  Applicability applicability = Applicability::Safe;
  std::string message;       // "Use `torch.amp.autocast(\"cuda\")`"
  std::vector<Edit> edits;   // sorted by start, non-overlapping

  void sortEdits();
};

// Applies edits (sorted, non-overlapping) to `text`, translating '\n' in inserted content to
// `line_ending`.
std::string applyEdits(std::string_view text, const std::vector<Edit>& edits, std::string_view line_ending);

// Sorts edits and joins an insertion with an edit starting at the same byte (the fix loop treats
// two edits at one point as overlapping). False when edits truly overlap.
bool normalizeEdits(std::vector<Edit>& edits);

// The file's line ending: that of its first line break ("\r\n" or "\n"); "\n" if none.
std::string_view detectLineEnding(std::string_view text);

}  // namespace ptlint::quickfix
