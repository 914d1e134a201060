// Target: `ptlint check --watch`'s decisions (cli/watch_events.h) over a stream of inotify events
// built from the input (five bytes an event): each event names a watch (a root, a folder, one already forgotten, or the
// overflow's -1), a mask of IN_* bits, a name and the time since the previous event. Checked:
//  - an overflow always asks for a re-check; an event of an unknown watch asks for nothing else;
//  - only a root's events say the root is gone; hidden, cache and vendored folders are never
//    watched; a name that is not a source, notebook or configuration file never asks for a
//    re-check unless it is a folder;
//  - the debounce: a re-check is due at most `kMaxWait` after the first relevant event since the
//    last one, and at most `kQuiet` after the last, whatever keeps arriving meanwhile; nothing is
//    due without a relevant event.

#include <sys/inotify.h>

#include <chrono>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "cli/watch_events.h"
#include "fuzz/fuzz_check.h"

using namespace ptlint::cli::watch;
namespace fuzz = ptlint::fuzz;
using namespace std::chrono_literals;

namespace {

const std::string_view kNames[] = {"",          "a.py",        "b.pyi",   "n.ipynb",        "pyproject.toml",
                                   "ptlint.toml", ".ptlint.toml", ".gitignore", "train.log", "pkg",
                                   ".git",      "__pycache__", ".venv",   "node_modules",   "a.py.swp",
                                   "4913",      "x.py~",       "setup.cfg", ".ptlint_cache", "sub.py"};
const uint32_t kBits[] = {IN_ACCESS,      IN_MODIFY,     IN_ATTRIB,   IN_CLOSE_WRITE, IN_CLOSE_NOWRITE,
                          IN_OPEN,        IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE,      IN_DELETE,
                          IN_DELETE_SELF, IN_MOVE_SELF,  IN_UNMOUNT,  IN_Q_OVERFLOW,  IN_IGNORED};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Debounce debounce;
  auto now = Debounce::Clock::time_point{} + 1h;
  bool waiting = false;  // a relevant event since the last re-check
  auto first = now, last = now;  // the first and last of them
  // Five bytes per event: the watch and the name; eight IN_* bits, from `offset` on in kBits;
  // IN_ISDIR and the time unit; the time since the previous event, in those units.
  for (size_t i = 0; i + 5 <= size; i += 5) {
    const uint8_t which = data[i], bits = data[i + 1], offset = data[i + 2], flags = data[i + 3], step = data[i + 4];
    WatchOf of = static_cast<WatchOf>(which % 3);
    uint32_t mask = (flags & 1) ? IN_ISDIR : 0;
    for (int b = 0; b < 8; ++b)
      if (bits & (1u << b)) mask |= kBits[(b + offset) % std::size(kBits)];
    std::string_view name = kNames[(which / 3) % std::size(kNames)];
    if (mask & IN_Q_OVERFLOW) of = WatchOf::Unknown, name = {};
    Reaction r = react({of == WatchOf::Unknown ? -1 : 1 + which % 7, mask, name}, of);

    if (mask & IN_Q_OVERFLOW) fuzz::require(r.overflow && r.relevant, "an overflow asks for a full re-check");
    if (of == WatchOf::Unknown && !(mask & IN_Q_OVERFLOW))
      fuzz::require(!r.relevant && !r.watch_subfolder && !r.unwatch_subfolder && !r.forget && !r.root_gone,
                    "an event of a forgotten watch does nothing");
    if (r.root_gone) fuzz::require(of == WatchOf::Root, "only a root can be gone");
    if (r.watch_subfolder || r.unwatch_subfolder) {
      fuzz::require(!name.empty() && (mask & IN_ISDIR), "only a named folder is watched or dropped");
      fuzz::require(isWatchedFolderName(name), "hidden, cache and vendored folders are not watched");
    }
    if (r.relevant && !r.overflow && !name.empty() && !(mask & IN_ISDIR))
      fuzz::require(isRelevantName(name), "only sources, notebooks and configuration files ask for a re-check");

    now += std::chrono::milliseconds(step * ((flags >> 1) & 15));  // 0 .. 3.8 s between events
    // The watcher re-checks as soon as it is due (its poll wakes at the deadline).
    if (auto due = debounce.deadline(); due && *due <= now) {
      fuzz::require(waiting, "a re-check without a relevant event");
      fuzz::require(*due <= first + Debounce::kMaxWait, "a re-check waited past the bounded wait");
      fuzz::require(*due <= last + Debounce::kQuiet, "a re-check waited past the quiet spell");
      debounce.reset();
      waiting = false;
    }
    if (r.relevant) {
      debounce.relevant(now);
      if (!waiting) first = now;
      waiting = true;
      last = now;
    }
    auto due = debounce.deadline();
    fuzz::require(due.has_value() == waiting, "something is due exactly when a relevant event waits");
    if (due) fuzz::require(*due >= first && *due <= first + Debounce::kMaxWait, "the deadline is bounded");
  }
  return 0;
}
