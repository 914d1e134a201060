// `workspace/diagnostic`: every `*.py`/`*.pyi` of the workspace folders (the CLI's walk:
// `.gitignore`, `exclude`; notebooks on disk have no cell URIs to report under), open documents
// at their editor version, files on disk by their content (`unchanged` when the client's
// previous result id still matches). Runs on the heavy pool; stops when `cancelled()`.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "server/document_analysis.h"
#include "server/document_store.h"
#include "server/protocol.h"
#include "server/requests.h"
#include "server/server_settings.h"

namespace ptlint::server {

// A file's text for linting: regular files of sane size only (a FIFO would block forever and
// /dev/zero never ends), the UTF-8 BOM stripped. nullopt when it cannot be read.
std::optional<std::string> readDiskText(const std::filesystem::path& path);

class WorkspaceDiagnostics {
 public:
  WorkspaceDiagnostics(DocumentStore& docs, const DocumentAnalyzer& analyzer) : docs_(docs), analyzer_(analyzer) {}

  struct Pass {
    std::vector<ServerSettings::Folder> folders;
    std::shared_ptr<workspace::ConfigResolver> walk_resolver;
    std::map<std::string, std::string> previous;  // uri -> the client's previous result id
    uint64_t generation = 0;
    uint64_t project_epoch = 0;  // what the project index says changed (files on disk are keyed by it)
  };
  // nullopt when cancelled before the end.
  std::optional<WorkspaceDiagnosticReport> run(const Pass& pass, const std::function<bool()>& cancelled,
                                               WorkDoneReporter& progress) const;

 private:
  DocumentStore& docs_;
  const DocumentAnalyzer& analyzer_;
};

}  // namespace ptlint::server
