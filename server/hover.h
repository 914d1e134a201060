// Hover: on a rule code inside a `# noqa:` comment, the rule's documentation; nothing elsewhere.
#pragma once

#include <optional>
#include <string>

#include "rules/rule.h"
#include "server/document_analysis.h"
#include "server/protocol.h"

namespace ptlint::server {

// The rule's documentation as Markdown.
std::string ruleDocs(const rules::RuleMeta& meta);

class HoverProvider {
 public:
  explicit HoverProvider(PositionEncoding encoding) : encoding_(encoding) {}
  // nullopt: nothing to show (also when the document is out of sync: positions in the editor's
  // text mean nothing in the server's).
  std::optional<Hover> hover(const AnalysisResult& result, const Position& position) const;

 private:
  PositionEncoding encoding_;
};

}  // namespace ptlint::server
