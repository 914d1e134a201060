// The analysis of one document version: its settings (config file + editor settings), what the
// project index says about it when a rule asks (demand-driven), the per-file pipeline every front
// end calls (workspace/pipeline.h, on the document's own tree), and the findings as LSP
// diagnostics. Stateless between calls and thread-safe; it never publishes.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/module_summary.h"
#include "rules/linter.h"
#include "server/document_store.h"
#include "server/protocol.h"
#include "server/server_settings.h"
#include "workspace/pipeline.h"

namespace ptlint::server {

struct AnalysisResult {
  std::shared_ptr<const DocumentSnapshot> snapshot;
  rules::Settings settings;  // settings.project: what the project said (null: not asked)
  workspace::FixSelection fixes;  // the configuration's `fixable` / `unfixable`
  rules::LintResult lint;
  std::vector<Diagnostic> diagnostics;  // LSP form, parallel to lint.diagnostics (then a file notice)
  uint64_t generation = 0;              // settings generation it was computed under

  // Changes with the text, the settings and what the project says about the file (another file
  // changed on disk): a pulling client that sends the previous id gets the new findings.
  std::string resultId() const {
    std::string id = std::to_string(snapshot->revision) + "." + std::to_string(generation);
    if (settings.project) id += "." + std::to_string(std::hash<std::string>{}(settings.project->digest));
    return id;
  }
};
using ResultPtr = std::shared_ptr<const AnalysisResult>;

class DocumentAnalyzer {
 public:
  // What the project says about a file (the project index); null: nothing.
  using FactsProvider =
      std::function<std::shared_ptr<const analysis::ProjectFacts>(const std::filesystem::path& file)>;

  DocumentAnalyzer(ServerSettings& settings, FactsProvider facts) : settings_(settings), facts_(std::move(facts)) {}

  // Set once, at `initialize`, before any analysis.
  void configure(PositionEncoding encoding, bool related_information) {
    encoding_ = encoding;
    related_ = related_information;
  }
  PositionEncoding encoding() const { return encoding_; }
  bool relatedInformation() const { return related_; }

  // The analysis of `snap`. `previous` (the document's last result) is returned unchanged when
  // the text, the settings generation and what the project says about the file are all the same
  // (a re-analysis asked because another file changed).
  ResultPtr analyze(const std::shared_ptr<const DocumentSnapshot>& snap, const ResultPtr& previous = nullptr) const;

  // A file that is not open, from its text on disk.
  ResultPtr analyzeText(const std::string& uri, std::string text) const;
  // A file that is not open, read from disk through the engine's reader (the same size limit:
  // a file over it gets one note instead of findings). Throws LspError when it cannot be read.
  std::vector<Diagnostic> analyzeFile(const std::string& uri) const;

 private:
  ServerSettings& settings_;
  FactsProvider facts_;
  PositionEncoding encoding_ = PositionEncoding::Utf16;
  bool related_ = false;
};


}  // namespace ptlint::server
