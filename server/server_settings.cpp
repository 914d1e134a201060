#include "server/server_settings.h"

#include <fmt/format.h>

#include "rules/selectors.h"
#include "server/log.h"

namespace ptlint::server {
namespace {

namespace fs = std::filesystem;

// An unknown rule selector in the editor settings is named in `problems` and left out.
std::optional<std::vector<std::string>> validSelectors(const std::optional<std::vector<std::string>>& selectors,
                                                       const char* setting, std::vector<std::string>* problems) {
  if (!selectors) return selectors;
  std::vector<std::string> valid;
  for (const auto& selector : *selectors) {
    if (auto error = rules::selectorError(selector)) {
      if (problems) problems->push_back(fmt::format("setting `{}`: {}; it was ignored", setting, *error));
    } else {
      valid.push_back(selector);
    }
  }
  return valid;
}

// Moves the type problems found while reading settings from `where` into `problems`.
void takeProblems(ClientSettings& settings, const std::string& where, std::vector<std::string>& problems) {
  for (auto& p : settings.problems) problems.push_back(p + " (from " + where + ")");
  settings.problems.clear();
}

}  // namespace

workspace::Overrides ServerSettings::overridesFor(const ClientSettings& s, std::vector<std::string>* problems) {
  workspace::Overrides o;
  o.select = validSelectors(s.select, "select", problems);
  o.ignore = validSelectors(s.ignore, "ignore", problems);
  o.extend_select = validSelectors(s.extendSelect, "extendSelect", problems);
  o.unsafe_fixes = s.unsafeFixes;
  if (s.torchVersion) {
    o.torch_version = rules::TorchRange::parse(*s.torchVersion);
    if (o.torch_version) o.torch_version->source = "the torchVersion setting";
    if (!o.torch_version && problems)
      problems->push_back("setting `torchVersion`: `" + s.torchVersion->substr(0, 80) +
                          "` is not a version range like \">=2.1\" or \">=2.4,<2.9\"; it was ignored");
  }
  o.config_wins = true;       // a config file wins over editor settings (docs/lsp.md)
  o.recheck_modified = true;  // clients that cannot watch files still see config edits
  return o;
}

void ServerSettings::initialize(const InitializeParams& params) {
  std::vector<std::string> problems;
  {
    std::lock_guard lock(mutex_);
    for (const auto& folder : params.workspaceFolders)
      if (auto path = uriToPath(folder.uri)) folders_.push_back({folder.uri, path->lexically_normal()});
    if (folders_.empty() && params.rootUri)
      if (auto path = uriToPath(*params.rootUri)) folders_.push_back({*params.rootUri, path->lexically_normal()});
    const json& options = params.initializationOptions;
    if (!options.is_null()) {
      const json& section = options.is_object() && options.contains("settings") ? options["settings"] : options;
      global_ = section.get<ClientSettings>();
      takeProblems(global_, "initializationOptions", problems);
    }
    rebuildResolversLocked(problems);
  }
  reportProblems(problems);
}

void ServerSettings::setGlobal(const json& settings) {
  std::vector<std::string> problems;
  {
    std::lock_guard lock(mutex_);
    global_ = settings.get<ClientSettings>();
    takeProblems(global_, "workspace/didChangeConfiguration", problems);
    rebuildResolversLocked(problems);
  }
  reportProblems(problems);
}

std::pair<ConfigurationParams, std::vector<std::string>> ServerSettings::configurationRequest() const {
  ConfigurationParams params;
  std::vector<std::string> keys{""};
  params.items.push_back({std::nullopt, "ptlint"});
  std::lock_guard lock(mutex_);
  for (const auto& folder : folders_) {
    params.items.push_back({folder.uri, "ptlint"});
    keys.push_back(folder.path.string());
  }
  return {params, keys};
}

void ServerSettings::applyConfiguration(const std::vector<std::string>& keys, const json& result) {
  std::vector<std::string> problems;
  {
    std::lock_guard lock(mutex_);
    for (size_t i = 0; i < keys.size() && i < result.size(); ++i) {
      ClientSettings s = result[i].get<ClientSettings>();
      takeProblems(s, i == 0 ? std::string("workspace/configuration") : "workspace/configuration for " + keys[i],
                   problems);
      if (i == 0) global_ = s;
      else per_folder_[keys[i]] = s;
    }
    rebuildResolversLocked(problems);
  }
  reportProblems(problems);
}

void ServerSettings::changeFolders(const DidChangeWorkspaceFoldersParams& params) {
  std::vector<std::string> problems;  // shown when the settings came; not again for a folder change
  std::lock_guard lock(mutex_);
  for (const auto& removed : params.event.removed)
    std::erase_if(folders_, [&](const Folder& f) { return f.uri == removed.uri; });
  for (const auto& added : params.event.added)
    if (auto path = uriToPath(added.uri)) folders_.push_back({added.uri, path->lexically_normal()});
  rebuildResolversLocked(problems);
}

void ServerSettings::configFilesChanged() {
  std::lock_guard lock(mutex_);
  for (auto& [key, resolver] : resolvers_) resolver->invalidate();
  reported_.clear();
  ++generation_;
}

// Shows every settings problem (once per batch; a batch is one settings update). Called with no
// lock held. The server goes on with the remaining settings.
void ServerSettings::reportProblems(const std::vector<std::string>& problems) {
  std::set<std::string> seen;
  for (const auto& p : problems) {
    if (!seen.insert(p).second) continue;
    logToStderr("settings: " + p);
    report_(MessageType::Warning, "ptlint: " + p);
  }
}

// Shows an error to the user once (config errors recur on every keystroke otherwise).
void ServerSettings::reportOnce(const std::string& message) {
  {
    std::lock_guard lock(mutex_);
    if (!reported_.insert(message).second) return;
  }
  logToStderr(message);
  report_(MessageType::Error, message);
}

// The torch-version range a document is linted for and where it came from, logged the first time
// each range is used (`window/logMessage`), as `ptlint check --show-settings` prints it.
void ServerSettings::logTorchRangeOnce(const rules::TorchRange& range) {
  std::string message = fmt::format("ptlint: torch-version \"{}\" (PyTorch {} to {}), from {}", range.str(),
                                    range.floor().str(), range.newestKnown().str(),
                                    range.source.empty() ? "the default" : range.source);
  {
    std::lock_guard lock(mutex_);
    if (!reported_.insert(message).second) return;
  }
  logToStderr(message);
  report_(MessageType::Log, message);
}

ClientSettings ServerSettings::effectiveLocked(const std::string& folder_key) const {
  ClientSettings s = global_;
  auto it = per_folder_.find(folder_key);
  if (it != per_folder_.end()) {
    const ClientSettings& f = it->second;
    if (f.select) s.select = f.select;
    if (f.ignore) s.ignore = f.ignore;
    if (f.extendSelect) s.extendSelect = f.extendSelect;
    if (f.configuration) s.configuration = f.configuration;
    if (f.unsafeFixes) s.unsafeFixes = f.unsafeFixes;
    if (f.torchVersion) s.torchVersion = f.torchVersion;
    if (f.gpuCheck) s.gpuCheck = f.gpuCheck;
    if (f.compileLog) s.compileLog = f.compileLog;
  }
  return s;
}

// One resolver per workspace folder (each with its own editor settings), plus one for files
// outside every folder. Discovery is per file either way: the nearest config file wins.
void ServerSettings::rebuildResolversLocked(std::vector<std::string>& problems) {
  resolvers_.clear();
  // `configuration`: one config file for every document (a relative path is from the folder).
  auto resolverFor = [&](const std::string& key) {
    ClientSettings settings = effectiveLocked(key);
    std::optional<fs::path> config;
    if (settings.configuration) {
      fs::path file = *settings.configuration;
      if (file.is_relative() && !key.empty()) file = fs::path(key) / file;
      config = file.lexically_normal();
    }
    return std::make_shared<workspace::ConfigResolver>(overridesFor(settings, &problems), config);
  };
  for (const auto& folder : folders_) resolvers_[folder.path.string()] = resolverFor(folder.path.string());
  resolvers_[""] = resolverFor("");
  ++generation_;
}

std::string ServerSettings::folderKeyLocked(const fs::path& path) const {
  std::string best;
  for (const auto& folder : folders_) {
    auto rel = path.lexically_relative(folder.path);
    if (rel.empty() || *rel.begin() == "..") continue;
    if (folder.path.string().size() > best.size()) best = folder.path.string();
  }
  return best;
}

std::string ServerSettings::keyForLocked(const std::string& uri) const {
  std::optional<fs::path> path = uriToPath(uri);
  return path ? folderKeyLocked(*path) : (folders_.empty() ? "" : folders_.front().path.string());
}

rules::Settings ServerSettings::settingsFor(const std::string& uri, workspace::FixSelection* fixes) {
  std::optional<fs::path> path = uriToPath(uri);
  std::shared_ptr<workspace::ConfigResolver> resolver;
  ClientSettings client;
  fs::path target;
  {
    std::lock_guard lock(mutex_);
    std::string key = keyForLocked(uri);
    auto it = resolvers_.find(key);
    if (it == resolvers_.end()) it = resolvers_.find("");
    if (it != resolvers_.end()) resolver = it->second;
    client = effectiveLocked(key);
    target = path ? *path : (folders_.empty() ? fs::current_path() : folders_.front().path / "untitled.py");
  }
  if (!resolver) resolver = std::make_shared<workspace::ConfigResolver>(overridesFor(client), std::nullopt);
  try {
    workspace::ResolvedConfig config = resolver->forPath(target);
    if (fixes) *fixes = workspace::FixSelection{config.fixable, config.unfixable};
    rules::Settings settings = workspace::settingsForFile(config, target);
    logTorchRangeOnce(settings.torchRange());
    if (path && client.compileLog) {
      settings.compile_log_given = true;
      settings.runtime = runtimeFor(*path);
    }
    return settings;
  } catch (const workspace::ConfigError& e) {
    reportOnce(std::string("ptlint: ") + e.what());
  } catch (const std::exception& e) {
    reportOnce(std::string("ptlint: configuration for ") + target.string() + ": " + e.what());
  }
  // The config file is broken: lint with the editor settings alone rather than not at all.
  rules::Settings fallback;
  workspace::Overrides o = overridesFor(client);
  if (o.select) fallback.select = *o.select;
  if (o.ignore) fallback.ignore = *o.ignore;
  if (o.extend_select) fallback.extend_select = *o.extend_select;
  if (o.torch_version) fallback.setTorchRange(*o.torch_version);
  if (o.unsafe_fixes) fallback.unsafe_fixes = *o.unsafe_fixes;
  return fallback;
}

workspace::ResolvedConfig ServerSettings::resolvedConfigFor(const fs::path& path) {
  std::shared_ptr<workspace::ConfigResolver> resolver;
  {
    std::lock_guard lock(mutex_);
    auto it = resolvers_.find(folderKeyLocked(path));
    if (it == resolvers_.end()) it = resolvers_.find("");
    if (it != resolvers_.end()) resolver = it->second;
  }
  if (!resolver) resolver = std::make_shared<workspace::ConfigResolver>(overridesFor({}), std::nullopt);
  return resolver->forPath(path);  // no lock of ours held while config files are read
}

bool ServerSettings::gpuCheckFor(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  return effectiveLocked(keyForLocked(uri)).gpuCheck.value_or(false);
}

bool ServerSettings::compileLogFor(const fs::path& path) const {
  std::lock_guard lock(mutex_);
  return effectiveLocked(folderKeyLocked(path)).compileLog.has_value();
}

std::vector<std::string> ServerSettings::compileLogPatterns() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  if (global_.compileLog) out.push_back(*global_.compileLog);
  for (const auto& [key, folder] : per_folder_)
    if (folder.compileLog) out.push_back(*folder.compileLog);
  return out;
}

std::shared_ptr<const rules::RuntimeFindings> ServerSettings::runtimeFor(const fs::path& path) {
  std::optional<std::string> pattern;
  fs::path folder;
  {
    std::lock_guard lock(mutex_);
    std::string key = folderKeyLocked(path);
    pattern = effectiveLocked(key).compileLog;
    folder = key.empty() ? path.parent_path() : fs::path(key);
  }
  if (!pattern) return nullptr;
  return compile_logs_.findingsFor(folder, *pattern, path);  // no lock of ours held while logs are read
}

bool ServerSettings::compileLogChanged(const fs::path& path) {
  if (!compile_logs_.changed(path)) return false;
  ++generation_;
  return true;
}

std::vector<ServerSettings::Folder> ServerSettings::folders() const {
  std::lock_guard lock(mutex_);
  return folders_;
}

std::shared_ptr<workspace::ConfigResolver> ServerSettings::walkResolver() const {
  std::lock_guard lock(mutex_);
  auto it = resolvers_.find("");
  return it != resolvers_.end() ? it->second : std::make_shared<workspace::ConfigResolver>(workspace::Overrides{}, std::nullopt);
}

}  // namespace ptlint::server
