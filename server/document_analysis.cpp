#include "server/document_analysis.h"

#include "server/diagnostics.h"
#include "workspace/source_reader.h"

namespace ptlint::server {
namespace {

bool sameFacts(const std::shared_ptr<const analysis::ProjectFacts>& a,
               const std::shared_ptr<const analysis::ProjectFacts>& b) {
  if (!a || !b) return !a && !b;
  return a == b || a->digest == b->digest;
}

}  // namespace

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
  // The pipeline every front end calls, on the document's own tree; someone waits on this one
  // file's answer: both cores on it.
  workspace::LintRequest request{result->settings, result->fixes, false, snap->file, true, {}};
  auto outcome = workspace::lintSource(std::string(snap->text()), request, workspace::LoneCr::None, nullptr);
  result->lint.diagnostics = std::move(outcome.diagnostics);
  for (const auto& d : result->lint.diagnostics)
    result->diagnostics.push_back(toLspDiagnostic(d, *snap, encoding_, related_));
  // Not linted (over the size limit): said at the top of the file, as the CLI says it.
  if (outcome.too_large) result->diagnostics.push_back(fileNotice(*outcome.notice));
  return result;
}

ResultPtr DocumentAnalyzer::analyzeText(const std::string& uri, std::string text) const {
  auto snap = std::make_shared<DocumentSnapshot>();
  snap->uri = uri;
  snap->lines = LineTable(text);
  snap->file = std::make_shared<const analysis::ParsedFile>(analysis::ParsedFile::parse(std::move(text)));
  return analyze(snap);
}

std::vector<Diagnostic> DocumentAnalyzer::analyzeFile(const std::string& uri) const {
  auto path = uriToPath(uri);
  if (!path) throw LspError(ErrorCode::InvalidParams, "cannot read " + uri);
  std::string error;
  auto source = workspace::readLintSource(*path, error);
  if (!source && workspace::isTooLargeMessage(error)) return {fileNotice(error)};
  if (!source) throw LspError(ErrorCode::InvalidParams, "cannot read " + uri + ": " + error);
  return analyzeText(uri, std::move(source->text))->diagnostics;
}

}  // namespace ptlint::server
