// `workspace/diagnostic`: every `*.py`/`*.pyi` of the workspace folders (the CLI's walk:
// `.gitignore`, `exclude`; notebooks on disk have no cell URIs to report under) and the open
// documents inside them, checked by the engine `ptlint check` runs (workspace/engine.h: one
// reader, settings per file, the project index, lint). Open documents are checked as the editor
// has them (and their buffers win over disk for cross-file facts); a file whose text, settings
// and cross-file facts are unchanged is reported `unchanged` to a client that sends its
// previous result id. A broken config file fails only the files under it. Runs on the heavy
// pool; stops when `cancelled()`.
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

// A file's text as `ptlint check` reads it (workspace/source_reader.h: the size limit, BOM,
// UTF-8, a notebook's joined code cells). nullopt when it cannot be read.
std::optional<std::string> readDiskText(const std::filesystem::path& path);

class WorkspaceDiagnostics {
 public:
  // `overlay`: open buffers by path (they win over disk for cross-file facts).
  using Overlay = std::function<std::optional<std::string>(const std::filesystem::path&)>;
  WorkspaceDiagnostics(DocumentStore& docs, ServerSettings& settings, const DocumentAnalyzer& analyzer,
                       Overlay overlay)
      : docs_(docs), settings_(settings), analyzer_(analyzer), overlay_(std::move(overlay)) {}

  struct Pass {
    std::vector<ServerSettings::Folder> folders;
    std::shared_ptr<workspace::ConfigResolver> walk_resolver;
    std::map<std::string, std::string> previous;  // uri -> the client's previous result id
    uint64_t generation = 0;
  };
  // nullopt when cancelled before the end.
  std::optional<WorkspaceDiagnosticReport> run(const Pass& pass, const std::function<bool()>& cancelled,
                                               WorkDoneReporter& progress) const;

 private:
  DocumentStore& docs_;
  ServerSettings& settings_;
  const DocumentAnalyzer& analyzer_;
  Overlay overlay_;
};

}  // namespace ptlint::server
