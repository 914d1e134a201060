#include "cli/watch.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "cli/watch_events.h"

namespace fs = std::filesystem;

namespace ptlint::cli {
namespace {

using watch::Debounce;
using watch::WatchOf;

bool isWatchedFolder(const fs::path& dir) {
  std::error_code ec;
  return watch::isWatchedFolderName(dir.filename().native()) && !fs::exists(dir / "pyvenv.cfg", ec);
}

std::string timestamp() {
  std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%H:%M:%S", std::localtime(&now));
  return buffer;
}

// A kernel setting as `name = value` (`name` alone when it cannot be read), for messages.
std::string kernelSetting(const char* name, const char* file) {
  std::ifstream in(file);
  long long value = 0;
  if (in >> value) return fmt::format("{} = {}", name, value);
  return name;
}

class Watcher {
 public:
  explicit Watcher(std::vector<fs::path> roots) : roots_(std::move(roots)) { open(); }
  ~Watcher() { close(); }
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  bool ok() const { return fd_ >= 0; }
  int openError() const { return open_errno_; }

  // Watches every root and every folder below them. Returns the first root that cannot be
  // watched at all (missing, not a folder), with the reason; nullopt when all are watched.
  std::optional<std::pair<fs::path, std::string>> watchRoots() {
    std::optional<std::pair<fs::path, std::string>> failed;
    for (const auto& root : roots_) {
      struct stat st {};
      if (::stat(root.c_str(), &st) == 0) identities_[root] = {st.st_dev, st.st_ino};
      int wd = addOne(root);
      if (wd < 0 && errno != ENOSPC && !failed) failed = {root, std::strerror(errno)};
      if (wd >= 0) root_wds_.insert(wd);
      addBelow(root);
    }
    return failed;
  }

  // Folders that could not be watched, by reason (the kernel's limit, no permission).
  size_t unwatchedByLimit() const { return over_limit_.size(); }
  size_t unwatchedByPermission() const { return no_permission_.size(); }

  // Watches left unwatched at the limit are tried again (folders may have gone since).
  void retryUnwatched() {
    std::set<fs::path> retry;
    retry.swap(over_limit_);
    retry.insert(no_permission_.begin(), no_permission_.end());
    no_permission_.clear();
    for (const auto& dir : retry) addOne(dir);
  }

  struct Outcome {
    bool changed = false;                // a re-check is due
    std::optional<fs::path> root_gone;   // a root folder was removed or moved away
    bool overflowed = false;             // events were lost (the tree was watched again)
  };

  // A root that is no longer the folder it was (removed, moved away, replaced). inotify does not
  // say so while a process (this one, when the root is its working folder) still holds it.
  std::optional<fs::path> missingRoot() const {
    for (const auto& [root, identity] : identities_) {
      struct stat st {};
      if (::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || std::make_pair(st.st_dev, st.st_ino) != identity)
        return root;
    }
    return std::nullopt;
  }

  // Folders the kernel would not watch (at its limit) are polled instead: the stat data of each
  // folder and of the sources, notebooks and config files in it, as one digest. Taken before a
  // check, so that a change made while it runs is seen.
  void notePolledState() { polled_ = pollDigest(); }

  // Waits for a change that matters, then for the debounce (cli/watch_events.h). Wakes every
  // second meanwhile to see that the roots are still there (and, every two, to poll).
  Outcome waitForChange() {
    Outcome outcome;
    Debounce debounce;
    auto next_poll = Debounce::Clock::now() + kPollEvery;
    for (;;) {
      if (!over_limit_.empty() && Debounce::Clock::now() >= next_poll) {
        if (uint64_t now = pollDigest(); now != polled_) {
          polled_ = now;
          debounce.relevant(Debounce::Clock::now());
        }
        next_poll = Debounce::Clock::now() + kPollEvery;
      }
      int timeout = 1000;
      if (auto due = debounce.deadline()) {
        auto left = std::chrono::ceil<std::chrono::milliseconds>(*due - Debounce::Clock::now()).count();
        timeout = static_cast<int>(std::clamp<long long>(left, 0, timeout));
      }
      pollfd pfd{fd_, POLLIN, 0};
      int ready = ::poll(&pfd, 1, timeout);
      if (ready > 0 && drain(outcome)) debounce.relevant(Debounce::Clock::now());
      if (!outcome.root_gone) outcome.root_gone = missingRoot();
      if (outcome.root_gone) return outcome;
      if (debounce.due(Debounce::Clock::now())) {
        outcome.changed = true;
        return outcome;
      }
    }
  }

 private:
  void open() {
    fd_ = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    open_errno_ = fd_ < 0 ? errno : 0;
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    dirs_.clear();
    root_wds_.clear();
  }

  // One folder; remembers why it could not be watched. Returns the watch or -1 (errno set).
  int addOne(const fs::path& dir) {
    int wd = inotify_add_watch(fd_, dir.c_str(), watch::watchedEventMask() | IN_ONLYDIR);
    if (wd < 0) {
      int error = errno;
      if (error == ENOSPC || error == ENOMEM) over_limit_.insert(dir);
      else if (error == EACCES) no_permission_.insert(dir);
      errno = error;
      return -1;
    }
    over_limit_.erase(dir);
    no_permission_.erase(dir);
    dirs_[wd] = dir;
    return wd;
  }

  // Every folder below `top` (iteratively; symlinks are not followed). A folder that cannot be
  // watched is still walked, so that every unwatched folder is counted.
  void addBelow(const fs::path& top) {
    std::vector<fs::path> stack{top};
    while (!stack.empty()) {
      fs::path dir = std::move(stack.back());
      stack.pop_back();
      std::error_code ec;
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code entry_ec;
        if (it->is_symlink(entry_ec) || !it->is_directory(entry_ec) || !isWatchedFolder(it->path())) continue;
        addOne(it->path());
        stack.push_back(it->path());
      }
    }
  }
  void addTree(const fs::path& top) {
    addOne(top);
    addBelow(top);
  }

  // Stops watching `top` and the folders below it (they left the tree).
  void removeTree(const fs::path& top) {
    for (auto it = dirs_.begin(); it != dirs_.end();) {
      auto rel = it->second.lexically_relative(top);
      if (!rel.empty() && *rel.begin() != "..") {
        inotify_rm_watch(fd_, it->first);
        it = dirs_.erase(it);
      } else {
        ++it;
      }
    }
    for (auto* set : {&over_limit_, &no_permission_})
      for (auto it = set->begin(); it != set->end();) {
        auto rel = it->lexically_relative(top);
        it = !rel.empty() && *rel.begin() != ".." ? set->erase(it) : std::next(it);
      }
  }

  // Events lost: start again from a fresh inotify instance, so that no watch of a folder that
  // went meanwhile is kept and every folder that came is watched.
  void rewatchEverything() {
    close();
    open();
    over_limit_.clear();
    no_permission_.clear();
    if (ok()) watchRoots();
  }

  // Reads every queued event; true when one of them calls for a re-check.
  bool drain(Outcome& outcome) {
    bool relevant = false, overflow = false;
    alignas(inotify_event) char buffer[16384];
    for (;;) {
      ssize_t n = ::read(fd_, buffer, sizeof buffer);
      if (n <= 0) break;
      for (char* p = buffer; p < buffer + n;) {
        auto* event = reinterpret_cast<inotify_event*>(p);
        p += sizeof(inotify_event) + event->len;
        std::string_view name = event->len ? std::string_view(event->name) : std::string_view();
        auto dir = dirs_.find(event->wd);
        WatchOf of = dir == dirs_.end() ? WatchOf::Unknown
                     : root_wds_.count(event->wd) ? WatchOf::Root
                                                  : WatchOf::Folder;
        auto reaction = watch::react({event->wd, event->mask, name}, of);
        relevant = relevant || reaction.relevant;
        overflow = overflow || reaction.overflow;
        if (reaction.root_gone && !outcome.root_gone) outcome.root_gone = dir->second;
        if (reaction.watch_subfolder && isWatchedFolder(dir->second / name)) addTree(dir->second / name);
        if (reaction.unwatch_subfolder) removeTree(dir->second / name);
        if (reaction.forget && dir != dirs_.end()) {
          root_wds_.erase(dir->first);
          dirs_.erase(dir);
        }
      }
    }
    if (overflow) {
      outcome.overflowed = true;
      rewatchEverything();
    }
    return relevant;
  }

  std::vector<fs::path> roots_;
  int fd_ = -1;
  int open_errno_ = 0;
  std::map<int, fs::path> dirs_;
  std::set<int> root_wds_;
  std::set<fs::path> over_limit_, no_permission_;
  std::map<fs::path, std::pair<dev_t, ino_t>> identities_;  // each root folder's device and inode
  static constexpr std::chrono::seconds kPollEvery{2};
  uint64_t polled_ = 0;

  uint64_t pollDigest() const {
    uint64_t digest = 1469598103934665603ull;  // FNV-1a over the stat fields
    auto mix = [&](uint64_t v) { digest = (digest ^ v) * 1099511628211ull; };
    auto mixStat = [&](const struct stat& st) {
      for (uint64_t v : {uint64_t(st.st_ino), uint64_t(st.st_size), uint64_t(st.st_mode), uint64_t(st.st_mtim.tv_sec),
                         uint64_t(st.st_mtim.tv_nsec), uint64_t(st.st_ctim.tv_sec), uint64_t(st.st_ctim.tv_nsec)})
        mix(v);
    };
    for (const auto& dir : over_limit_) {
      struct stat st {};
      if (::stat(dir.c_str(), &st) != 0) {
        mix(0);
        continue;
      }
      mixStat(st);
      std::error_code ec;
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().native();
        if (!watch::isRelevantName(name) || ::stat(it->path().c_str(), &st) != 0) continue;
        mix(std::hash<std::string>{}(name));
        mixStat(st);
      }
    }
    return digest;
  }
};

// The watch limit as the kernel states it; in a user namespace its own limit may be lower.
std::string watchLimit() {
  std::string global = kernelSetting("fs.inotify.max_user_watches", "/proc/sys/fs/inotify/max_user_watches");
  std::string local = kernelSetting("user.max_inotify_watches", "/proc/sys/user/max_inotify_watches");
  auto value = [](const std::string& setting) {
    auto at = setting.find('=');
    return at == std::string::npos ? std::string() : setting.substr(at);
  };
  if (value(local).empty() || value(local) == value(global)) return global;
  return global + ", " + local + " in this user namespace";
}

void warnUnwatched(const Watcher& watcher, std::ostream& err) {
  if (size_t n = watcher.unwatchedByLimit())
    err << fmt::format(
        "warning: --watch: {} folder{} not watched: the inotify watch limit ({}) is reached, so changes there "
        "are only seen by polling every 2 s; raise it (sysctl fs.inotify.max_user_watches=524288) or watch fewer "
        "paths\n",
        n, n == 1 ? " is" : "s are", watchLimit());
  if (size_t n = watcher.unwatchedByPermission())
    err << fmt::format("warning: --watch: {} folder{} not watched: permission denied\n", n, n == 1 ? " is" : "s are");
}

}  // namespace

int runWatch(const CheckOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  std::vector<fs::path> roots;
  for (const auto& root : options.paths.empty() ? std::vector<fs::path>{"."} : options.paths) {
    std::error_code ec;
    fs::path absolute = fs::absolute(root, ec).lexically_normal();
    if (absolute.has_filename() == false && absolute.has_parent_path()) absolute = absolute.parent_path();
    roots.push_back(fs::is_directory(absolute, ec) ? absolute : absolute.parent_path());
  }
  Watcher watcher(roots);
  if (!watcher.ok()) {
    int error = watcher.openError();
    err << fmt::format("error: --watch: cannot start inotify: {}{}\n", std::strerror(error),
                       error == EMFILE ? fmt::format(" (the limit {} is reached)",
                                                     kernelSetting("fs.inotify.max_user_instances",
                                                                   "/proc/sys/fs/inotify/max_user_instances"))
                                       : "");
    return 2;
  }
  if (auto failed = watcher.watchRoots()) {
    err << fmt::format("error: --watch: cannot watch {}: {}\n", failed->first.string(), failed->second);
    return 2;
  }
  out << fmt::format("[{}] Starting linter in watch mode...\n", timestamp());
  for (;;) {
    watcher.notePolledState();
    runCheck(options, in, out, err);
    warnUnwatched(watcher, err);
    out << fmt::format("[{}] Watching for file changes.\n", timestamp());
    out.flush();
    err.flush();
    auto outcome = watcher.waitForChange();
    if (outcome.root_gone) {
      out.flush();
      err << fmt::format("error: --watch: the watched folder {} was removed or moved away; stopping\n",
                         outcome.root_gone->string());
      return 2;
    }
    if (outcome.overflowed)
      err << fmt::format(
          "warning: --watch: the inotify event queue overflowed ({}): changes were lost, so everything is checked "
          "again\n",
          kernelSetting("fs.inotify.max_queued_events", "/proc/sys/fs/inotify/max_queued_events"));
    watcher.retryUnwatched();
    out << fmt::format("\n[{}] File change detected...\n", timestamp());
  }
}

}  // namespace ptlint::cli
