// Edits on a notebook's joined text, mapped back onto its cells. The joined text holds masked
// IPython lines (`pass` where `%matplotlib inline` was) and separator lines; both are followed
// by position through every pass of edits, so that a fix stays inside one cell and off every
// masked line, and a fixed text gets each magic back at its own line (never by matching text:
// a real `pass` line can equal a mask).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quickfix/fix.h"
#include "workspace/notebook.h"

namespace ptlint::workspace {

using EditHistory = std::vector<std::vector<quickfix::Edit>>;

class JoinedTracker {
 public:
  // Positions in `notebook.joined`; `notebook` must outlive the tracker.
  explicit JoinedTracker(const Notebook& notebook);

  // Follows one pass of edits (sorted, non-overlapping, on the current text).
  void apply(const std::vector<quickfix::Edit>& edits);
  void apply(const EditHistory& history) {
    for (const auto& pass : history) apply(pass);
  }

  // True when every edit of `fix` lies in one cell and touches neither a separator nor a masked
  // line (whole lines may be inserted before a masked one).
  bool allows(const quickfix::Fix& fix) const;
  bool allows(const quickfix::Edit& edit) const;

  // The cell (position among code cells) holding `offset`; -1 on a separator line.
  long cellOf(uint32_t offset) const;
  // [begin, end) of each code cell in the current text (end: the start of the next separator).
  std::vector<std::pair<uint32_t, uint32_t>> cellRanges(size_t text_size) const;
  // Offsets where the masked lines now start, and each one's length.
  struct Masked {
    size_t cell = 0;
    uint32_t offset = 0;
    std::string_view masked;    // the line as joined (without its line ending)
    std::string_view original;  // the line as the cell holds it
  };
  const std::vector<Masked>& masked() const { return masked_; }

  // The cells' own sources for `joined` (the current text): masked lines given their text back.
  // nullopt with `error` when a separator or a masked line is not where it was followed to.
  std::optional<std::vector<std::string>> cellSources(std::string_view joined, std::string& error) const;

 private:
  const Notebook* notebook_;
  std::vector<uint32_t> separators_;  // start of each separator line
  std::vector<Masked> masked_;        // in text order
};

}  // namespace ptlint::workspace
