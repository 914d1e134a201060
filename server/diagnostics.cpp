#include "server/diagnostics.h"

#include "quickfix/fix_loop.h"
#include "rules/registry.h"

namespace ptlint::server {
namespace {

DiagnosticSeverity toLspSeverity(rules::Severity severity) {
  switch (severity) {
    case rules::Severity::Error: return DiagnosticSeverity::Error;
    case rules::Severity::Warning: return DiagnosticSeverity::Warning;
    case rules::Severity::Information: return DiagnosticSeverity::Information;
    case rules::Severity::Hint: return DiagnosticSeverity::Hint;
  }
  return DiagnosticSeverity::Warning;
}

std::string withLineEnding(std::string_view content, std::string_view line_ending) {
  if (line_ending == "\n") return std::string(content);
  std::string out;
  for (char c : content) {
    if (c == '\n') out += line_ending;
    else out += c;
  }
  return out;
}

}  // namespace

Range toRange(std::string_view text, const LineTable& lines, uint32_t start, uint32_t end, PositionEncoding encoding) {
  return {toPosition(text, lines, start, encoding), toPosition(text, lines, end, encoding)};
}

std::vector<TextEdit> toTextEdits(std::string_view text, const LineTable& lines,
                                  const std::vector<quickfix::Edit>& edits, PositionEncoding encoding) {
  std::string_view line_ending = quickfix::detectLineEnding(text);
  std::vector<TextEdit> out;
  for (const auto& e : edits)
    out.push_back({toRange(text, lines, e.start, e.end, encoding), withLineEnding(e.content, line_ending)});
  return out;
}

Diagnostic toLspDiagnostic(const rules::Diagnostic& d, const std::string& uri, std::string_view text,
                           const LineTable& lines, PositionEncoding encoding, bool related) {
  Diagnostic out;
  out.range = toRange(text, lines, d.start, d.end, encoding);
  out.severity = toLspSeverity(d.severity);
  out.code = std::string(d.code);
  if (std::string url = rules::ruleDocsUrl(d.code); !url.empty()) out.codeDescriptionHref = std::move(url);
  // The message alone: editors show it inline and in one-line lists, where a second line is cut
  // or crowds the code; the help has no location of its own for `relatedInformation`, and the
  // `codeDescription` link opens the rule's docs, which give the same why.
  out.message = d.message;
  const rules::RuleMeta* meta = rules::findMeta(d.code);
  if (meta && meta->deprecated_tag) out.tags.push_back(DiagnosticTag::Deprecated);
  if (related) {
    for (const auto& r : d.related) {
      if (r.path.empty()) {
        out.relatedInformation.push_back({{uri, toRange(text, lines, r.start, r.end, encoding)}, r.message});
        continue;
      }
      // Another file (a compile site elsewhere): its position comes precomputed; the range is
      // its start.
      Position at{r.line, encoding == PositionEncoding::Utf8 ? r.column_bytes : r.column_utf16};
      out.relatedInformation.push_back({{pathToUri(r.path), Range{at, at}}, r.message});
    }
  }
  if (d.fix)
    out.fix = DiagnosticFixData{std::string(quickfix::applicabilityName(d.fix->applicability)), d.fix->message,
                                toTextEdits(text, lines, d.fix->edits, encoding)};
  return out;
}

Diagnostic fileNotice(const std::string& message) {
  Diagnostic d;
  d.severity = DiagnosticSeverity::Warning;
  d.message = message;
  return d;
}

}  // namespace ptlint::server
