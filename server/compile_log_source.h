// The server's `compileLog` setting: a torch.compile log (text log, TORCH_TRACE folder or trace
// file; a path or a glob, relative to the workspace folder) read once, mapped to the folder's
// Python files, and read again when it changes — on the client's file-watch notification, or,
// for clients that cannot watch, when an analysis finds its size or time changed (looked at no
// more than once a second). Thread-safe; no lock is held while a log is read.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rules/runtime_findings.h"

namespace ptlint::server {

class CompileLogSource {
 public:
  using Report = std::function<void(const std::string& message)>;
  explicit CompileLogSource(Report report) : report_(std::move(report)) {}

  // What the log(s) matching `pattern` under `folder` say about `file` (null: nothing). Reads or
  // re-reads them when needed.
  std::shared_ptr<const rules::RuntimeFindings> findingsFor(const std::filesystem::path& folder,
                                                            const std::string& pattern,
                                                            const std::filesystem::path& file);
  // A watched file changed: is it one of the logs read (or could a glob now match it)? Then the
  // next lookup reads the logs again; true when so.
  bool changed(const std::filesystem::path& path);

  // The paths `pattern` names under `folder` (a glob's `*`, `?` and `**` per path component).
  static std::vector<std::filesystem::path> expand(const std::filesystem::path& folder, const std::string& pattern);

 private:
  struct Loaded {
    std::vector<std::pair<std::filesystem::path, std::string>> stamps;  // log path -> size/mtime
    std::map<std::filesystem::path, std::shared_ptr<const rules::RuntimeFindings>> per_file;
    std::chrono::steady_clock::time_point checked;
    bool stale = false;
  };
  static std::vector<std::pair<std::filesystem::path, std::string>> stampsOf(const std::vector<std::filesystem::path>& logs);
  std::shared_ptr<const Loaded> load(const std::filesystem::path& folder, const std::string& pattern);

  Report report_;
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Loaded>> loaded_;  // (folder, pattern)
};

}  // namespace ptlint::server
