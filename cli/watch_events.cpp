#include "cli/watch_events.h"

#include <sys/inotify.h>

#include <algorithm>

namespace ptlint::cli::watch {

uint32_t watchedEventMask() {
  // IN_ATTRIB: a permission change decides whether a file can still be read.
  return IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB |
         IN_DELETE_SELF | IN_MOVE_SELF;
}

bool isRelevantName(std::string_view name) {
  return name.ends_with(".py") || name.ends_with(".pyi") || name.ends_with(".ipynb") || name == "ptlint.toml" ||
         name == ".ptlint.toml" || name == "pyproject.toml" || name == ".gitignore";
}

bool isWatchedFolderName(std::string_view name) {
  return !name.empty() && !name.starts_with('.') && name != "__pycache__" && name != "node_modules";
}

Reaction react(const Event& event, WatchOf of) {
  Reaction r;
  const uint32_t mask = event.mask;
  if (mask & IN_Q_OVERFLOW) {  // comes with wd -1: whatever was lost may have mattered
    r.overflow = r.relevant = true;
    return r;
  }
  if (of == WatchOf::Unknown) return r;  // an event still queued for a watch already forgotten
  if (mask & IN_IGNORED) {
    r.forget = true;
    r.root_gone = of == WatchOf::Root;
    return r;
  }
  if (event.name.empty()) {  // the watched folder itself
    if (of == WatchOf::Root && (mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT))) r.root_gone = true;
    // A sub-folder's own removal or move is seen (and handled) as an event of its parent.
    if (of == WatchOf::Root && (mask & IN_ATTRIB)) r.relevant = true;  // its permissions changed
    return r;
  }
  if (mask & IN_ISDIR) {
    if (!isWatchedFolderName(event.name)) return r;
    if (mask & (IN_CREATE | IN_MOVED_TO)) r.watch_subfolder = r.relevant = true;  // it may hold files already
    if (mask & IN_ATTRIB) r.watch_subfolder = r.relevant = true;  // it may have become searchable
    if (mask & IN_MOVED_FROM) r.unwatch_subfolder = r.relevant = true;  // its files left the tree
    if (mask & IN_DELETE) r.relevant = true;  // the kernel drops its watches (IN_IGNORED)
    return r;
  }
  if (isRelevantName(event.name) &&
      (mask & (IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB)))
    r.relevant = true;
  return r;
}

void Debounce::relevant(Clock::time_point now) {
  if (!first_) first_ = now;
  if (!last_ || *last_ < now) last_ = now;
}

std::optional<Debounce::Clock::time_point> Debounce::deadline() const {
  if (!first_) return std::nullopt;
  return std::min(*last_ + quiet_, *first_ + max_wait_);
}

}  // namespace ptlint::cli::watch
