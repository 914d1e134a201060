// What `ptlint check --watch` does about each inotify event, as pure functions of the event, so
// that the decisions are tested and fuzzed without a file system (cli/watch.cpp does the I/O):
// which events call for a re-check, which folders to watch or stop watching, when events were
// lost (queue overflow: watch everything again and re-check), when a watched root is gone, and
// when a re-check is due (`Debounce`: a quiet spell after the last relevant event, but never
// later than a bounded wait after the first one, so a file written every 100 ms cannot hold
// re-checks off, and events that call for nothing never delay one).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ptlint::cli::watch {

// One inotify event as read: the watch it came from, its mask (IN_*), and the name of the entry
// in the watched folder (empty for an event on the folder itself, or for IN_Q_OVERFLOW).
struct Event {
  int wd = -1;
  uint32_t mask = 0;
  std::string_view name;
};

// What the watcher knows about the watch an event names.
enum class WatchOf {
  Unknown,  // no such watch (already forgotten, or the overflow's wd of -1)
  Folder,   // a folder below a root
  Root,     // a folder named on the command line (or the folder of a file named there)
};

// What to do about one event. Several may be set.
struct Reaction {
  bool relevant = false;          // a re-check is due (after the quiet spell)
  bool watch_subfolder = false;   // `name` is a folder of the event's folder to watch, with all below it
  bool unwatch_subfolder = false; // `name` (a folder) left the event's folder: stop watching it and below
  bool forget = false;            // the kernel dropped the watch `wd` (IN_IGNORED)
  bool root_gone = false;         // a root folder was removed, moved away or unmounted
  bool overflow = false;          // events were lost: watch the whole tree again, then re-check
};

// The events the watcher asks inotify for.
uint32_t watchedEventMask();

// A file whose change calls for a re-check: Python sources, notebooks, configuration files and
// `.gitignore` (the walk honours it).
bool isRelevantName(std::string_view name);
// A folder the walk may enter, by name: not hidden, not `__pycache__` or `node_modules`. (Virtual
// environments, found by their `pyvenv.cfg`, are left out by the caller, which can look.)
bool isWatchedFolderName(std::string_view name);

Reaction react(const Event& event, WatchOf of);

// When a re-check is due. A relevant event at `now` asks for one `quiet` after the last relevant
// event, and at the latest `max_wait` after the first one since the last re-check.
class Debounce {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kQuiet{150};
  static constexpr std::chrono::milliseconds kMaxWait{1000};

  explicit Debounce(std::chrono::milliseconds quiet = kQuiet, std::chrono::milliseconds max_wait = kMaxWait)
      : quiet_(quiet), max_wait_(max_wait) {}

  void relevant(Clock::time_point now);
  // When the re-check is due; nullopt when nothing relevant happened since the last reset.
  std::optional<Clock::time_point> deadline() const;
  bool due(Clock::time_point now) const {
    auto at = deadline();
    return at && now >= *at;
  }
  void reset() { first_.reset(), last_.reset(); }

 private:
  std::chrono::milliseconds quiet_, max_wait_;
  std::optional<Clock::time_point> first_, last_;
};

}  // namespace ptlint::cli::watch
