// The results cache (`.ptlint_cache/` in the working folder): re-checking an unchanged tree is
// near-instant. Entries are keyed by the ptlint build, the file's resolved settings and its
// content, and by the digest of the facts other files of the project gave the file (so a warm
// run re-lints a file whose dependencies changed what they say about it); a corrupt, foreign or stale cache is ignored, never trusted: an entry whose ranges are
// not ordered or not inside a file of the size its key records, or whose code is unknown, is a
// miss. Written atomically. Nothing in it is ever reached through a symlink (`O_NOFOLLOW`,
// `*at` calls on the folder's descriptor): when `.ptlint_cache` or one of its entries is a
// symlink, or the folder cannot be searched, the cache is not used at all (`problem()` says why).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "rules/rule.h"
#include "rules/settings.h"

namespace ptlint::workspace {

class ResultsCache {
 public:
  // Loads `<folder>/.ptlint_cache/` if present and valid for this build.
  explicit ResultsCache(std::filesystem::path folder);
  // The cache in the folder `dir` itself (`--cache-dir`).
  struct Dir {
    std::filesystem::path path;
  };
  explicit ResultsCache(Dir dir);
  ~ResultsCache();
  ResultsCache(const ResultsCache&) = delete;
  ResultsCache& operator=(const ResultsCache&) = delete;

  // Why the cache is not used (a symlink, a folder that cannot be searched), to warn once.
  const std::optional<std::string>& problem() const { return problem_; }

  static std::string keyFor(std::string_view content, const rules::Settings& settings);
  // The same key from the content's hash (XXH3 of the text) and size.
  static std::string keyFor(uint64_t content_hash, size_t size, const rules::Settings& settings);

  // A file as stat shows it: size, inode, mtime and ctime (ctime changes on every write and
  // cannot be set back).
  struct Stamp {
    uint64_t size = 0, inode = 0;
    int64_t mtime_ns = 0, ctime_ns = 0;
    bool operator==(const Stamp&) const = default;
  };
  // What the entry of `path` says of its text, when the file still has the stamp recorded with
  // it (and was not written within a timestamp tick of the cache, where a second write may
  // leave the stamp unchanged): its hash and size, and whether its lint asked for the project's
  // facts. A warm run then needs the text only for files with findings.
  struct Stamped {
    uint64_t content_hash = 0;
    size_t size = 0;
    bool asks_project = false;
  };
  std::optional<Stamped> stamped(const std::filesystem::path& path, const Stamp& now) const;

  // Whether some result for `path` is stored (whatever its key).
  bool holds(const std::filesystem::path& path) const;
  // Files of the project whose text a result read (value flow into another file's helper), by
  // path, with the hash of the text read: the result holds while each still has that text.
  using Reads = std::vector<std::pair<std::string, uint64_t>>;
  // Tells whether `path`'s text still has hash `hash` (the caller reads it as it reads sources).
  using StillRead = std::function<bool(const std::string& path, uint64_t hash)>;
  // Cached diagnostics for `path` if its key matches and every file the result read still has
  // the text it read (asked through `still_read`, with no lock held); on a hit, `dependencies`
  // (when given) receives the files stored with the result.
  std::optional<std::vector<rules::Diagnostic>> lookup(const std::filesystem::path& path, const std::string& key,
                                                       const StillRead& still_read = {},
                                                       std::vector<std::string>* dependencies = nullptr) const;
  // `dependencies`: the other files whose facts the result depends on (recorded with it; the
  // key already holds the digest of those facts). `reads`: as above.
  void store(const std::filesystem::path& path, const std::string& key, const std::vector<rules::Diagnostic>& diagnostics,
             const std::vector<std::string>& dependencies = {}, Reads reads = {},
             std::optional<Stamp> stamp = std::nullopt, bool asks_project = false);

  // Writes the cache if anything changed. Failure to write is not an error (returns false).
  bool save();

 private:
  struct Entry {
    std::string key;
    std::vector<rules::Diagnostic> diagnostics;
    std::vector<std::string> dependencies;
    Reads reads;
    std::optional<Stamp> stamp;
    bool asks_project = false;
  };
  int64_t written_ns_ = 0;  // when the loaded results.json was written
  void disable(std::string why);
  void awaitEntries() const;
  void readEntries(int fd);  // parses results.json (consumes `fd`) into entries_
  bool openFolder();

  std::filesystem::path dir_;
  int dir_fd_ = -1;
  bool disabled_ = false;
  std::optional<std::string> problem_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  // Paths looked up or stored in this run: they exist. Any other entry whose file is gone is
  // dropped on save.
  mutable std::unordered_set<std::string> touched_;
  mutable bool dirty_ = false;  // guarded by mutex_
  // results.json, opened and checked by the constructor, is parsed on a thread of its own.
  std::shared_future<void> loaded_;
};

// Identifies this ptlint build (version + executable size and mtime): a rebuilt binary never
// reads results of another.
const std::string& buildIdentity();

}  // namespace ptlint::workspace
