// Editor settings and configuration files: the workspace folders, the `ptlint` settings
// (global and per folder, from initializationOptions, didChangeConfiguration or
// workspace/configuration), one config resolver per folder, and the settings a document is
// linted with (its nearest config file merged with the editor settings; a config file wins).
//
// Thread-safe: every member is read and written under one lock, which is never held while a
// config file is read or a message is shown. Problems (a bad value, an unknown selector, a
// broken config file) go to the `Report` callback, called with no lock held; a broken config
// file is shown once.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rules/settings.h"
#include "server/compile_log_source.h"
#include "server/protocol.h"
#include "workspace/pipeline.h"
#include "workspace/config.h"

namespace ptlint::server {

class ServerSettings {
 public:
  using Report = std::function<void(MessageType type, const std::string& message)>;
  explicit ServerSettings(Report report)
      : report_(std::move(report)),
        compile_logs_([this](const std::string& message) { reportOnce(message); }) {}

  struct Folder {
    std::string uri;
    std::filesystem::path path;
  };

  // `initialize`: the workspace folders (or the root URI) and initializationOptions.
  void initialize(const InitializeParams& params);
  // `workspace/didChangeConfiguration` without workspace/configuration: the new global settings.
  void setGlobal(const json& settings);
  // `workspace/configuration`: the items to ask for, and the folder keys of their answers.
  std::pair<ConfigurationParams, std::vector<std::string>> configurationRequest() const;
  void applyConfiguration(const std::vector<std::string>& keys, const json& result);
  void changeFolders(const DidChangeWorkspaceFoldersParams& params);
  // A config file changed on disk: re-read every config file, show their errors again.
  void configFilesChanged();

  // Settings for one document: its config file (nearest above it) merged with editor settings.
  // A broken config file is shown (once) and the editor settings alone apply.
  // `fixes` (when given) receives its `fixable` / `unfixable`.
  rules::Settings settingsFor(const std::string& uri, workspace::FixSelection* fixes = nullptr);
  // The configuration of a file as the engine resolves it: its folder's resolver (editor
  // settings, nearest config file). Throws workspace::ConfigError for a broken config file.
  workspace::ResolvedConfig resolvedConfigFor(const std::filesystem::path& path);
  bool gpuCheckFor(const std::string& uri) const;
  // `compileLog`: whether the file's folder has a log, and what it says about the file.
  bool compileLogFor(const std::filesystem::path& path) const;
  // Every `compileLog` setting in effect (global and per folder).
  std::vector<std::string> compileLogPatterns() const;
  std::shared_ptr<const rules::RuntimeFindings> runtimeFor(const std::filesystem::path& path);
  // A watched file changed: true when it is a compile log (its findings are read again).
  bool compileLogChanged(const std::filesystem::path& path);
  std::vector<Folder> folders() const;
  // The resolver for files outside every folder (the workspace walk's excludes).
  std::shared_ptr<workspace::ConfigResolver> walkResolver() const;
  // Bumped by every change of settings: results computed under an older one are stale.
  uint64_t generation() const { return generation_; }

  // Pure: a bad value is named in `problems` (when given) and left unset.
  static workspace::Overrides overridesFor(const ClientSettings& s, std::vector<std::string>* problems = nullptr);

 private:
  ClientSettings effectiveLocked(const std::string& folder_key) const;
  std::string folderKeyLocked(const std::filesystem::path& path) const;
  std::string keyForLocked(const std::string& uri) const;
  void rebuildResolversLocked(std::vector<std::string>& problems);
  void reportProblems(const std::vector<std::string>& problems);
  void reportOnce(const std::string& message);
  void logTorchRangeOnce(const rules::TorchRange& range);

  Report report_;
  mutable std::mutex mutex_;
  std::vector<Folder> folders_;
  ClientSettings global_;
  std::map<std::string, ClientSettings> per_folder_;
  std::map<std::string, std::shared_ptr<workspace::ConfigResolver>> resolvers_;
  std::set<std::string> reported_;
  std::atomic<uint64_t> generation_{0};
  CompileLogSource compile_logs_;
};

}  // namespace ptlint::server
