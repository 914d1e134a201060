#include "server/hover.h"

#include <cctype>

#include "analysis/noqa.h"
#include "rules/registry.h"
#include "server/diagnostics.h"

namespace ptlint::server {

std::string ruleDocs(const rules::RuleMeta& meta) {
  std::string out = "**" + std::string(meta.code) + "** `" + std::string(meta.name) + "`";
  if (!meta.summary.empty()) out += ": " + std::string(meta.summary);
  out += "\n\n";
  out += std::string(meta.docs);
  return out;
}

std::optional<Hover> HoverProvider::hover(const AnalysisResult& result, const Position& position) const {
  const DocumentSnapshot& snap = *result.snapshot;
  if (!snap.in_sync) return std::nullopt;
  std::string_view text = snap.text();
  uint32_t at = toOffset(text, snap.lines, position, encoding_);
  // Only a code inside `# noqa: ...`, as Ruff's server: elsewhere in a finding another server's
  // hover (types, docstrings) must show, and the diagnostic's code link opens the docs.
  const analysis::ParsedFile& file = *snap.file;
  analysis::NoqaIndex noqa = analysis::NoqaIndex::build(file);
  const analysis::NoqaDirective* directive = noqa.directiveOnRow(file.lines().lineOf(at));
  if (directive && !directive->all && at >= directive->comment_start && at <= directive->codes_end) {
    auto isCodeChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    uint32_t start = at, end = at;
    while (start > directive->comment_start && isCodeChar(text[start - 1])) --start;
    while (end < directive->codes_end && isCodeChar(text[end])) ++end;
    if (const rules::RuleMeta* meta = rules::findMeta(text.substr(start, end - start)))
      return Hover{{"markdown", ruleDocs(*meta)}, toRange(text, snap.lines, start, end, encoding_)};
  }
  return std::nullopt;
}

}  // namespace ptlint::server
