#include "server/document_analysis.h"

#include "server/diagnostics.h"

namespace ptlint::server {
namespace {

bool sameFacts(const std::shared_ptr<const analysis::ProjectFacts>& a,
               const std::shared_ptr<const analysis::ProjectFacts>& b) {
  if (!a || !b) return !a && !b;
  return a == b || a->digest == b->digest;
}

}  // namespace

rules::LintResult lintDocument(const DocumentSnapshot& snap, const rules::Settings& settings) {
  // Someone waits on this one file's answer: both cores on it.
  return rules::lintFileConcurrently(*snap.file, settings);
}

ResultPtr DocumentAnalyzer::analyze(const std::shared_ptr<const DocumentSnapshot>& snap,
                                    const ResultPtr& previous) const {
  auto result = std::make_shared<AnalysisResult>();
  result->snapshot = snap;
  result->generation = settings_.generation();  // read first: a later settings change makes this stale
  result->settings = settings_.settingsFor(snap->uri, &result->fixes);
  if (!snap->in_sync) return result;  // the text is not the editor's: nothing to say about it
  // The project index only when a rule asks (a file without a cross-file question costs nothing).
  if (facts_ && rules::asksProject(snap->text(), result->settings))
    if (auto path = uriToPath(snap->uri)) result->settings.project = facts_(*path);
  if (previous && previous->snapshot->revision == snap->revision && previous->generation == result->generation &&
      sameFacts(previous->settings.project, result->settings.project))
    return previous;
  result->lint = lintDocument(*snap, result->settings);
  workspace::dropUnfixable(result->lint.diagnostics, result->fixes);
  for (const auto& d : result->lint.diagnostics)
    result->diagnostics.push_back(toLspDiagnostic(d, *snap, encoding_, related_));
  return result;
}

ResultPtr DocumentAnalyzer::analyzeText(const std::string& uri, std::string text) const {
  auto snap = std::make_shared<DocumentSnapshot>();
  snap->uri = uri;
  snap->lines = LineTable(text);
  snap->file = std::make_shared<const analysis::ParsedFile>(analysis::ParsedFile::parse(std::move(text)));
  return analyze(snap);
}

}  // namespace ptlint::server
