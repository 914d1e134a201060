// Cross-file facts for the server: one project index (workspace/project_index.h) whose files are
// read from the open documents first (an unsaved edit counts) and from disk otherwise, kept
// current as documents change.
//
// An analysed text that may change what a linked project says (the file is one of the modules
// its link read, or the text may hold a compile site), a closed document, a new document that is
// not on disk yet, or a file that is not open and changed, came or went on disk (the client's
// file watcher: `workspace/didChangeWatchedFiles`) marks that project stale. Once no such change came for `quiet`, the project is linked again on the tracker's
// thread and `Relinked` gets the files whose facts changed, so that the open ones are analysed
// again and published (push), and clients that pull are asked to refresh. Questions asked
// meanwhile are answered from the previous link: an edit never waits for a link, and a file
// with no cross-file question never consults the index at all (demand-driven, as in the CLI).
//
// Thread-safe. Its lock is never held while linking, reading a document or calling back.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "server/document_store.h"
#include "workspace/project_index.h"

namespace ptlint::server {

class ProjectTracker {
 public:
  // The files (absolute) whose facts changed in a new link; called on the tracker's thread.
  using Relinked = std::function<void(const std::vector<std::filesystem::path>& changed)>;

  ProjectTracker(DocumentStore& docs, Relinked relinked,
                 std::chrono::milliseconds quiet = std::chrono::milliseconds(200));
  ~ProjectTracker() { stop(); }
  ProjectTracker(const ProjectTracker&) = delete;
  ProjectTracker& operator=(const ProjectTracker&) = delete;

  // What the project says about `file` (never null).
  std::shared_ptr<const analysis::ProjectFacts> factsFor(const std::filesystem::path& file);

  // An open document's text, as analysed (its first analysis after opening included).
  void textAnalysed(const std::string& uri, std::string_view text);
  // A document was opened or closed: the overlay changes.
  void opened(const std::string& uri);
  void closed(const std::string& uri);

  // What the client's file watcher saw, on disk: `type` 1 created, 2 changed, 3 deleted (a file
  // or a folder). Open documents are left out (their buffers win over the disk). A created or
  // deleted path marks every linked project holding it stale (an import may resolve otherwise
  // now); a changed file when its new text may change the facts, as for an analysed text. The
  // file is read on the tracker's thread, never on the caller's.
  void diskChanged(const std::string& uri, int type);

  // Links every linked project again now, on the caller's thread (before a workspace pass:
  // files on disk may have changed without the editor). Calls `Relinked` as the thread does.
  void refreshAll();

  // An open buffer's text by path (what the index reads before disk); nullopt when not open.
  std::optional<std::string> bufferText(const std::filesystem::path& path) const { return overlay(path); }

  // Bumped by every link that changed some file's facts: results of files on disk computed
  // under an older value are stale.
  uint64_t epoch() const { return epoch_; }

  // Stops the thread (a link in progress finishes first). Idempotent.
  void stop();

 private:
  void markStale(const std::vector<std::filesystem::path>& folders);
  void takeDiskChanges(std::unique_lock<std::mutex>& lock);
  void relink(const std::vector<std::filesystem::path>& folders);
  void loop();
  std::optional<std::string> overlay(const std::filesystem::path& path) const;

  DocumentStore& docs_;
  Relinked relinked_;
  std::chrono::milliseconds quiet_;
  workspace::ProjectIndex index_;
  std::atomic<uint64_t> epoch_{0};

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<std::string, std::string> open_;  // path (normal form) -> URI
  std::set<std::filesystem::path> stale_;
  std::map<std::filesystem::path, int> disk_changes_;  // path (normal form) -> the last event's type
  std::chrono::steady_clock::time_point last_change_;
  bool stopped_ = false;
  std::thread thread_;
};

}  // namespace ptlint::server
