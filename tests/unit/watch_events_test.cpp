// `ptlint check --watch`'s decisions about inotify events (cli/watch_events.h), without a file
// system: which events call for a re-check, which folders are watched or dropped, overflow, a
// root that goes, and the debounce with its bounded wait.
#include "cli/watch_events.h"

#include <gtest/gtest.h>
#include <sys/inotify.h>

namespace ptlint::cli::watch {
namespace {

using namespace std::chrono_literals;
using Clock = Debounce::Clock;

Reaction on(uint32_t mask, std::string_view name, WatchOf of = WatchOf::Folder) { return react({3, mask, name}, of); }

TEST(WatchEvents, SourcesNotebooksAndConfigFilesCallForARecheck) {
  for (const char* name : {"a.py", "stubs.pyi", "analysis.ipynb", "pyproject.toml", "ptlint.toml", ".ptlint.toml",
                           ".gitignore"})
    for (uint32_t mask : {IN_CLOSE_WRITE, IN_MODIFY, IN_CREATE, IN_DELETE, IN_MOVED_FROM, IN_MOVED_TO, IN_ATTRIB})
      EXPECT_TRUE(on(mask, name).relevant) << name << " " << mask;
}

TEST(WatchEvents, OtherFilesNeverDo) {
  for (const char* name : {"train.log", "a.py.swp", "a.pyc", "notes.txt", "model.pt", "4913", ".a.py.un~"})
    for (uint32_t mask : {IN_CLOSE_WRITE, IN_MODIFY, IN_CREATE, IN_DELETE, IN_ATTRIB}) {
      auto r = on(mask, name);
      EXPECT_FALSE(r.relevant || r.watch_subfolder || r.overflow || r.root_gone) << name;
    }
}

TEST(WatchEvents, PermissionChangesCount) {
  EXPECT_TRUE(on(IN_ATTRIB, "a.py").relevant);
  auto folder = on(IN_ATTRIB | IN_ISDIR, "pkg");  // a folder that may have become searchable
  EXPECT_TRUE(folder.relevant);
  EXPECT_TRUE(folder.watch_subfolder);
  EXPECT_TRUE(on(IN_ATTRIB, "", WatchOf::Root).relevant);
  EXPECT_TRUE((watchedEventMask() & IN_ATTRIB) != 0);
}

TEST(WatchEvents, NewFoldersAreWatchedAndLeavingOnesDropped) {
  auto created = on(IN_CREATE | IN_ISDIR, "pkg");
  EXPECT_TRUE(created.watch_subfolder && created.relevant);
  auto moved_in = on(IN_MOVED_TO | IN_ISDIR, "pkg");
  EXPECT_TRUE(moved_in.watch_subfolder && moved_in.relevant);
  auto moved_out = on(IN_MOVED_FROM | IN_ISDIR, "pkg");
  EXPECT_TRUE(moved_out.unwatch_subfolder && moved_out.relevant);
  EXPECT_TRUE(on(IN_DELETE | IN_ISDIR, "pkg").relevant);
  for (const char* name : {".git", ".venv", "__pycache__", "node_modules", ".ptlint_cache"}) {
    auto hidden = on(IN_CREATE | IN_ISDIR, name);
    EXPECT_FALSE(hidden.watch_subfolder || hidden.relevant) << name;
  }
}

TEST(WatchEvents, OverflowIsAlwaysAFullRecheck) {
  auto r = react({-1, IN_Q_OVERFLOW, ""}, WatchOf::Unknown);
  EXPECT_TRUE(r.overflow);
  EXPECT_TRUE(r.relevant);
}

TEST(WatchEvents, ARootThatGoesIsSaid) {
  EXPECT_TRUE(on(IN_DELETE_SELF, "", WatchOf::Root).root_gone);
  EXPECT_TRUE(on(IN_MOVE_SELF, "", WatchOf::Root).root_gone);
  EXPECT_TRUE(on(IN_UNMOUNT, "", WatchOf::Root).root_gone);
  auto ignored = on(IN_IGNORED, "", WatchOf::Root);
  EXPECT_TRUE(ignored.root_gone && ignored.forget);
  // A folder below a root: its parent's event handles it; the kernel's IN_IGNORED forgets it.
  EXPECT_FALSE(on(IN_DELETE_SELF, "", WatchOf::Folder).root_gone);
  EXPECT_FALSE(on(IN_MOVE_SELF, "", WatchOf::Folder).root_gone);
  auto folder_ignored = on(IN_IGNORED, "", WatchOf::Folder);
  EXPECT_TRUE(folder_ignored.forget);
  EXPECT_FALSE(folder_ignored.root_gone);
}

TEST(WatchEvents, EventsOfForgottenWatchesDoNothing) {
  auto r = react({42, IN_CLOSE_WRITE, "a.py"}, WatchOf::Unknown);
  EXPECT_FALSE(r.relevant || r.forget || r.root_gone || r.watch_subfolder);
}

TEST(WatchDebounce, NothingIsDueWithoutARelevantEvent) {
  Debounce d;
  EXPECT_FALSE(d.deadline());
  EXPECT_FALSE(d.due(Clock::now() + 1h));
}

TEST(WatchDebounce, ABurstIsOneRecheckAfterAQuietSpell) {
  Debounce d(150ms, 1000ms);
  auto t0 = Clock::time_point{} + 10s;
  d.relevant(t0);
  d.relevant(t0 + 50ms);
  d.relevant(t0 + 100ms);
  EXPECT_FALSE(d.due(t0 + 200ms));
  EXPECT_TRUE(d.due(t0 + 250ms));
  d.reset();
  EXPECT_FALSE(d.deadline());
}

TEST(WatchDebounce, AFileWrittenEvery100msCannotHoldARecheckOff) {
  Debounce d(150ms, 1000ms);
  auto t0 = Clock::time_point{} + 10s;
  auto t = t0;
  for (; !d.due(t); t += 100ms) d.relevant(t);
  EXPECT_LE(t - t0, 1000ms);
  EXPECT_EQ(*d.deadline(), t0 + 1000ms);
}

}  // namespace
}  // namespace ptlint::cli::watch
