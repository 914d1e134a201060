// Fix-all: a document's safe fixes (and the unsafe ones with `unsafeFixes`) applied to a fixpoint
// by the loop `ptlint check --fix` runs (workspace::fixText: the same `fixable` / `unfixable`),
// returned as one minimal edit. Up to ten lint passes: callers run it on the heavy pool.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "quickfix/fix.h"
#include "server/document_analysis.h"
#include "server/protocol.h"
#include "workspace/notebook.h"

namespace ptlint::server {

// The smallest single edit turning `before` into `after`, never splitting a UTF-8 sequence or a
// "\r\n" pair (so that its positions exist in every encoding).
quickfix::Edit minimalEdit(std::string_view before, std::string_view after);

class FixAll {
 public:
  explicit FixAll(PositionEncoding encoding) : encoding_(encoding) {}

  // nullopt when nothing changes (or the document is out of sync). Throws LspError
  // RequestCancelled, before the next lint pass, once `cancelled()` returns true.
  std::optional<TextEdit> edit(const AnalysisResult& result, const std::function<bool()>& cancelled) const;

  // The same as edits; for a notebook's joined text (`notebook`: its cells, whose joined text
  // must be the snapshot's), fixes stay in one cell and off masked IPython lines, and the
  // result is one minimal edit per stretch between masked lines and cell boundaries (never
  // one spanning a magic). Empty when nothing changes.
  std::vector<TextEdit> edits(const AnalysisResult& result, const std::function<bool()>& cancelled,
                              const workspace::Notebook* notebook) const;

  static constexpr std::string_view kTitle = "ptlint: Fix all auto-fixable problems";

 private:
  PositionEncoding encoding_;
};

}  // namespace ptlint::server
