#include "server/project_tracker.h"

#include "server/protocol.h"
#include "server/workspace_diagnostics.h"

namespace ptlint::server {

namespace fs = std::filesystem;

namespace {

std::optional<fs::path> pathOf(const std::string& uri) {
  auto path = uriToPath(uri);
  if (!path) return std::nullopt;
  return path->lexically_normal();
}

}  // namespace

ProjectTracker::ProjectTracker(DocumentStore& docs, Relinked relinked, std::chrono::milliseconds quiet)
    : docs_(docs),
      relinked_(std::move(relinked)),
      quiet_(quiet),
      index_([](const fs::path& path) { return readDiskText(path); }) {
  index_.setOverlay([this](const fs::path& path) { return overlay(path); });
  thread_ = std::thread([this] { loop(); });
}

void ProjectTracker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::optional<std::string> ProjectTracker::overlay(const fs::path& path) const {
  std::string uri;
  {
    std::lock_guard lock(mutex_);
    auto it = open_.find(path.lexically_normal().string());
    if (it == open_.end()) return std::nullopt;
    uri = it->second;
  }
  return docs_.text(uri);  // no lock of ours held
}

std::shared_ptr<const analysis::ProjectFacts> ProjectTracker::factsFor(const fs::path& file) {
  return index_.factsFor(file);
}

void ProjectTracker::opened(const std::string& uri) {
  auto path = pathOf(uri);
  if (!path) return;
  {
    std::lock_guard lock(mutex_);
    open_[path->string()] = uri;
  }
  // Linked projects learn the buffer's text when it is first analysed (textAnalysed). A new file
  // that is not on disk yet is a module no import could find until now.
  std::error_code ec;
  if (!fs::exists(*path, ec)) markStale(index_.projectsAffectedBy(*path, std::nullopt));
}

void ProjectTracker::diskChanged(const std::string& uri, int type) {
  auto path = pathOf(uri);
  if (!path) return;
  {
    std::lock_guard lock(mutex_);
    if (open_.count(path->string())) return;  // the buffer counts, not the disk
    auto [it, inserted] = disk_changes_.try_emplace(*path, type);
    // Created or deleted, then changed: still a path that came or went.
    if (!inserted && !(type == 2 && it->second != 2)) it->second = type;
    last_change_ = std::chrono::steady_clock::now();
  }
  wake_.notify_all();
}

// Turns the disk changes seen so far into stale projects (reads files: the lock is released).
void ProjectTracker::takeDiskChanges(std::unique_lock<std::mutex>& lock) {
  std::map<fs::path, int> changes;
  changes.swap(disk_changes_);
  lock.unlock();
  std::vector<fs::path> stale;
  for (const auto& [path, type] : changes) {
    if (index_.projectsAffectedBy(path, std::nullopt).empty()) continue;  // in no linked project: not read
    std::optional<std::string> text;
    if (type == 2) {
      auto ext = path.extension();
      if (ext == ".py" || ext == ".pyi") text = readDiskText(path);
    }
    auto folders = index_.projectsAffectedBy(path, text ? std::optional<std::string_view>(*text) : std::nullopt);
    stale.insert(stale.end(), folders.begin(), folders.end());
  }
  lock.lock();
  stale_.insert(stale.begin(), stale.end());
}

void ProjectTracker::closed(const std::string& uri) {
  auto path = pathOf(uri);
  if (!path) return;
  {
    std::lock_guard lock(mutex_);
    open_.erase(path->string());
  }
  markStale(index_.projectsAffectedBy(*path, std::nullopt));  // the file on disk counts again
}

void ProjectTracker::textAnalysed(const std::string& uri, std::string_view text) {
  if (auto path = pathOf(uri)) markStale(index_.projectsAffectedBy(*path, text));
}

void ProjectTracker::markStale(const std::vector<fs::path>& folders) {
  if (folders.empty()) return;
  {
    std::lock_guard lock(mutex_);
    stale_.insert(folders.begin(), folders.end());
    last_change_ = std::chrono::steady_clock::now();
  }
  wake_.notify_all();
}

void ProjectTracker::relink(const std::vector<fs::path>& folders) {
  std::vector<fs::path> changed;
  for (const auto& folder : folders) {
    auto files = index_.relink(folder);
    changed.insert(changed.end(), files.begin(), files.end());
  }
  if (changed.empty()) return;
  ++epoch_;
  relinked_(changed);
}

void ProjectTracker::refreshAll() {
  {
    std::lock_guard lock(mutex_);
    stale_.clear();  // linked now, on this thread
  }
  relink(index_.linkedProjects());
}

void ProjectTracker::loop() {
  std::unique_lock lock(mutex_);
  while (!stopped_) {
    if (!disk_changes_.empty()) {
      takeDiskChanges(lock);
      continue;
    }
    if (stale_.empty()) {
      wake_.wait(lock);
      continue;
    }
    auto due = last_change_ + quiet_;
    if (std::chrono::steady_clock::now() < due) {
      wake_.wait_until(lock, due);
      continue;
    }
    std::vector<fs::path> folders(stale_.begin(), stale_.end());
    stale_.clear();
    lock.unlock();
    relink(folders);
    lock.lock();
  }
}

}  // namespace ptlint::server
