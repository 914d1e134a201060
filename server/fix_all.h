// Fix-all: the safe fixes of a document applied to a fixpoint (the loop `ptlint check --fix`
// runs), returned as one minimal edit. Up to ten lint passes: callers run it on the heavy pool.
#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "quickfix/fix.h"
#include "server/document_analysis.h"
#include "server/protocol.h"

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

  static constexpr std::string_view kTitle = "ptlint: Fix all auto-fixable problems";

 private:
  PositionEncoding encoding_;
};

}  // namespace ptlint::server
