#include "cli/watch.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace ptlint::cli {
namespace {

constexpr uint32_t kEvents = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO |
                             IN_DELETE_SELF | IN_MOVE_SELF;

bool isWatchedFolder(const fs::path& dir) {
  std::error_code ec;
  return !dir.filename().native().starts_with('.') && !fs::exists(dir / "pyvenv.cfg", ec) &&
         dir.filename() != "__pycache__" && dir.filename() != "node_modules";
}

bool isRelevantName(std::string_view name) {
  return name.ends_with(".py") || name.ends_with(".pyi") || name == "ptlint.toml" || name == ".ptlint.toml" ||
         name == "pyproject.toml";
}

std::string timestamp() {
  std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%H:%M:%S", std::localtime(&now));
  return buffer;
}

class Watcher {
 public:
  Watcher() : fd_(inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) {}
  ~Watcher() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }

  // Watches `root` and every folder below it (iteratively; symlinks are not followed).
  void addTree(const fs::path& root) {
    std::vector<fs::path> stack{root};
    while (!stack.empty()) {
      fs::path dir = stack.back();
      stack.pop_back();
      int wd = inotify_add_watch(fd_, dir.c_str(), kEvents | IN_ONLYDIR);
      if (wd < 0) continue;
      dirs_[wd] = dir;
      std::error_code ec;
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->is_symlink(ec) || !it->is_directory(ec)) continue;
        if (isWatchedFolder(it->path())) stack.push_back(it->path());
      }
    }
  }

  // Waits for a change that matters; returns after a quiet spell so a burst is one re-check.
  void waitForChange() {
    for (;;) {
      pollfd pfd{fd_, POLLIN, 0};
      if (::poll(&pfd, 1, -1) <= 0) continue;
      bool relevant = drain();
      if (!relevant) continue;
      // Debounce: editors write a file in several steps.
      while (::poll(&pfd, 1, 150) > 0) drain();
      return;
    }
  }

 private:
  bool drain() {
    bool relevant = false;
    alignas(inotify_event) char buffer[16384];
    for (;;) {
      ssize_t n = ::read(fd_, buffer, sizeof buffer);
      if (n <= 0) break;
      for (char* p = buffer; p < buffer + n;) {
        auto* event = reinterpret_cast<inotify_event*>(p);
        p += sizeof(inotify_event) + event->len;
        std::string name = event->len ? std::string(event->name) : std::string();
        auto dir = dirs_.find(event->wd);
        if (event->mask & IN_IGNORED) {
          if (dir != dirs_.end()) dirs_.erase(dir);
          continue;
        }
        if (dir == dirs_.end()) continue;
        if ((event->mask & IN_ISDIR) && (event->mask & (IN_CREATE | IN_MOVED_TO))) {
          fs::path sub = dir->second / name;
          if (isWatchedFolder(sub)) {
            addTree(sub);
            relevant = true;  // it may already hold Python files
          }
          continue;
        }
        if (isRelevantName(name)) relevant = true;
      }
    }
    return relevant;
  }

  int fd_;
  std::map<int, fs::path> dirs_;
};

}  // namespace

int runWatch(const CheckOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  Watcher watcher;
  if (!watcher.ok()) {
    err << "error: --watch: cannot start inotify\n";
    return 2;
  }
  std::vector<fs::path> roots = options.paths.empty() ? std::vector<fs::path>{"."} : options.paths;
  for (const auto& root : roots) {
    std::error_code ec;
    fs::path absolute = fs::absolute(root, ec).lexically_normal();
    watcher.addTree(fs::is_directory(absolute, ec) ? absolute : absolute.parent_path());
  }
  out << fmt::format("[{}] Starting linter in watch mode...\n", timestamp());
  for (;;) {
    runCheck(options, in, out, err);
    out << fmt::format("[{}] Watching for file changes.\n", timestamp());
    out.flush();
    err.flush();
    watcher.waitForChange();
    out << fmt::format("\n[{}] File change detected...\n", timestamp());
  }
}

}  // namespace ptlint::cli
