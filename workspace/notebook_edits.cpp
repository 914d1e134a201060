#include "workspace/notebook_edits.h"

#include <algorithm>

#include "analysis/line_index.h"
#include "quickfix/fix_loop.h"

namespace ptlint::workspace {
namespace {

constexpr uint32_t kSeparatorLine = static_cast<uint32_t>(kCellSeparator.size() + 1);

std::string_view bodyOf(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

JoinedTracker::JoinedTracker(const Notebook& notebook) : notebook_(&notebook) {
  uint32_t pos = 0;
  for (size_t k = 0; k < notebook.code_cells.size(); ++k) {
    const NotebookCell& cell = notebook.code_cells[k];
    if (k > 0) {
      separators_.push_back(pos);
      pos += kSeparatorLine;
    }
    if (cell.masked != cell.source) {
      auto masked_lines = analysis::splitLines(cell.masked), source_lines = analysis::splitLines(cell.source);
      uint32_t at = pos;
      for (size_t l = 0; l < masked_lines.size() && l < source_lines.size(); ++l) {
        if (masked_lines[l] != source_lines[l])
          masked_.push_back({k, at, bodyOf(masked_lines[l]), bodyOf(source_lines[l])});
        at += static_cast<uint32_t>(masked_lines[l].size());
      }
    }
    pos += static_cast<uint32_t>(cell.masked.size()) + (cell.added_newline ? 1 : 0);
  }
}

namespace {

// Shifts sorted offsets through sorted edits in one sweep (as quickfix::shiftOffset does one).
template <typename Offsets, typename Get>
void shiftAll(Offsets& offsets, const std::vector<quickfix::Edit>& edits, Get get) {
  size_t e = 0;
  int64_t delta = 0;
  for (auto& item : offsets) {
    uint32_t& offset = get(item);
    while (e < edits.size() && !(edits[e].start > offset || (edits[e].start == offset && edits[e].end > offset)) &&
           edits[e].end <= offset) {
      delta += static_cast<int64_t>(edits[e].content.size()) - static_cast<int64_t>(edits[e].end - edits[e].start);
      ++e;
    }
    if (e < edits.size() && edits[e].start < offset && edits[e].end > offset)
      offset = static_cast<uint32_t>(static_cast<int64_t>(edits[e].start) + delta);  // inside an edit: its start
    else
      offset = static_cast<uint32_t>(static_cast<int64_t>(offset) + delta);
  }
}

}  // namespace

void JoinedTracker::apply(const std::vector<quickfix::Edit>& edits) {
  if (edits.empty()) return;
  shiftAll(separators_, edits, [](uint32_t& s) -> uint32_t& { return s; });
  shiftAll(masked_, edits, [](Masked& m) -> uint32_t& { return m.offset; });
}

long JoinedTracker::cellOf(uint32_t offset) const {
  // Cell k runs from the end of separator k-1 to the start of separator k (inclusive: an
  // insertion there ends the cell).
  size_t k = static_cast<size_t>(std::lower_bound(separators_.begin(), separators_.end(), offset) - separators_.begin());
  uint32_t begin = k == 0 ? 0 : separators_[k - 1] + kSeparatorLine;
  return offset >= begin ? static_cast<long>(k) : -1;
}

std::vector<std::pair<uint32_t, uint32_t>> JoinedTracker::cellRanges(size_t text_size) const {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (size_t k = 0; k < notebook_->code_cells.size(); ++k) {
    uint32_t begin = k == 0 ? 0 : separators_[k - 1] + kSeparatorLine;
    uint32_t end = k < separators_.size() ? separators_[k] : static_cast<uint32_t>(text_size);
    out.emplace_back(begin, std::max(begin, end));
  }
  return out;
}

bool JoinedTracker::allows(const quickfix::Edit& edit) const {
  if (edit.content.find(kCellSeparator) != std::string::npos) return false;
  if (cellOf(edit.start) < 0 || cellOf(edit.start) != cellOf(edit.end)) return false;
  // The masked lines near the edit (sorted by offset).
  auto it = std::lower_bound(masked_.begin(), masked_.end(), edit.start, [](const Masked& m, uint32_t at) {
    return m.offset + static_cast<uint32_t>(m.masked.size()) < at;
  });
  for (; it != masked_.end() && it->offset <= edit.end; ++it) {
    uint32_t line_end = it->offset + static_cast<uint32_t>(it->masked.size());
    if (edit.start > line_end) continue;
    // Whole lines ending right before a masked line leave it as it is.
    if (edit.end == it->offset && !edit.content.empty() && edit.content.back() == '\n') continue;
    if (edit.end == it->offset && edit.start < edit.end && edit.content.empty()) continue;
    return false;
  }
  return true;
}

bool JoinedTracker::allows(const quickfix::Fix& fix) const {
  long cell = -2;
  for (const auto& edit : fix.edits) {
    if (!allows(edit)) return false;
    long c = cellOf(edit.start);
    if (cell != -2 && c != cell) return false;
    cell = c;
  }
  return true;
}

std::optional<std::vector<std::string>> JoinedTracker::cellSources(std::string_view joined, std::string& error) const {
  for (uint32_t s : separators_)
    if (s + kSeparatorLine > joined.size() || joined.substr(s, kCellSeparator.size()) != kCellSeparator ||
        joined[s + kCellSeparator.size()] != '\n' || (s > 0 && joined[s - 1] != '\n')) {
      error = "a fix changed the boundaries between cells; the notebook was not changed";
      return std::nullopt;
    }
  std::vector<std::string> sources;
  auto ranges = cellRanges(joined.size());
  size_t next = 0;
  for (size_t k = 0; k < ranges.size(); ++k) {
    const NotebookCell& cell = notebook_->code_cells[k];
    auto [begin, end] = ranges[k];
    std::string restored;
    uint32_t at = begin;
    for (; next < masked_.size() && masked_[next].cell == k; ++next) {
      const Masked& m = masked_[next];
      uint32_t line_end = m.offset + static_cast<uint32_t>(m.masked.size());
      bool in_place = m.offset >= at && line_end <= end && joined.substr(m.offset, m.masked.size()) == m.masked &&
                      (m.offset == 0 || joined[m.offset - 1] == '\n' || joined[m.offset - 1] == '\r') &&
                      (line_end == joined.size() || joined[line_end] == '\n' || joined[line_end] == '\r');
      if (!in_place) {
        error = "a fix changed a line holding an IPython magic in cell " + std::to_string(cell.index + 1) +
                "; the notebook was not changed";
        return std::nullopt;
      }
      restored.append(joined.substr(at, m.offset - at));
      restored.append(m.original);
      at = line_end;
    }
    restored.append(joined.substr(at, end - at));
    if (cell.added_newline && !restored.empty() && restored.back() == '\n') restored.pop_back();
    sources.push_back(std::move(restored));
  }
  return sources;
}

}  // namespace ptlint::workspace
