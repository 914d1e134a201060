// The project index and the caches against the file system: how modules resolve (a package
// beats a module of the same name), the file limit (told, never silent), scan-cache verdicts
// that the file's stat cannot vouch for, and cache entries of files deleted since.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "rules/linter.h"
#include "workspace/cache.h"
#include "workspace/project_index.h"
#include "tests/unit/test_files.h"

namespace fs = std::filesystem;
using namespace ptlint;

namespace {

size_t compiledFindings(workspace::ProjectIndex& index, const fs::path& file) {
  std::string text = *test_files::readIfPresent(file);
  rules::Settings settings;
  settings.select = {"PTL501"};
  if (rules::asksProject(text, settings)) settings.project = index.factsFor(fs::absolute(file));
  if (rules::cannotMatch(text, settings)) return 0;
  auto parsed = analysis::ParsedFile::parse(text);
  return rules::lintFile(parsed, settings).diagnostics.size();
}

struct TempProject {
  fs::path dir;
  explicit TempProject(const std::string& name)
      : dir(fs::temp_directory_path() / ("ptlint-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    write("pyproject.toml", "");
  }
  ~TempProject() { fs::remove_all(dir); }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel, std::ios::binary) << text;
  }
};

const char* kHelper = "def helper(x):\n    return x.item()\n";
const char* kQuietHelper = "def helper(x):\n    return x\n";

TEST(ModuleResolution, APackageWinsOverAModuleBesideIt) {
  // Python's path finder imports `util/__init__.py`, never `util.py`, for `import util`.
  TempProject p("package-wins");
  p.write("util.py", kQuietHelper);
  p.write("util/__init__.py", kHelper);
  p.write("train.py", "import torch\nfrom util import helper\nf = torch.compile(helper)\n");
  workspace::ProjectIndex index(test_files::readIfPresent);
  EXPECT_EQ(compiledFindings(index, p.dir / "util" / "__init__.py"), 1u);
  EXPECT_EQ(compiledFindings(index, p.dir / "util.py"), 0u);
}

TEST(ModuleResolution, APackageWinsForDottedAndRelativeImports) {
  TempProject p("package-wins-dotted");
  p.write("pkg/__init__.py", "");
  p.write("pkg/ops.py", kQuietHelper);
  p.write("pkg/ops/__init__.py", kHelper);
  p.write("pkg/train.py", "import torch\nfrom .ops import helper\nf = torch.compile(helper)\n");
  p.write("main.py", "import torch\nimport pkg.ops\ng = torch.compile(pkg.ops.helper)\n");
  workspace::ProjectIndex index(test_files::readIfPresent);
  EXPECT_EQ(compiledFindings(index, p.dir / "pkg" / "ops" / "__init__.py"), 1u);
  EXPECT_EQ(compiledFindings(index, p.dir / "pkg" / "ops.py"), 0u);
}

TEST(ProjectFileLimit, PastTheLimitTheIndexSaysSoAndTheFactsAreIncomplete) {
  TempProject p("file-limit");
  for (int i = 0; i < 12; ++i) p.write("filler/f" + std::to_string(i) + ".py", "x = 1\n");
  p.write("model.py", kHelper);
  p.write("train.py", "import torch\nfrom model import helper\nf = torch.compile(helper)\n");
  workspace::ProjectIndex index(test_files::readIfPresent);
  index.setMaxProjectFiles(5);
  auto facts = index.factsFor(p.dir / "model.py");
  auto problems = index.problems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("more than 5 source files"), std::string::npos) << problems[0].message;
  EXPECT_TRUE(problems[0].limit);
  ASSERT_TRUE(facts->project);
  EXPECT_TRUE(facts->project->compiles_unknown);  // what was not listed may compile anything
}

TEST(ProjectFileLimit, UnderTheLimitNothingIsTold) {
  TempProject p("file-limit-under");
  for (int i = 0; i < 12; ++i) p.write("filler/f" + std::to_string(i) + ".py", "x = 1\n");
  p.write("model.py", kHelper);
  p.write("train.py", "import torch\nfrom model import helper\nf = torch.compile(helper)\n");
  workspace::ProjectIndex index(test_files::readIfPresent);
  index.setMaxProjectFiles(15);
  EXPECT_EQ(compiledFindings(index, p.dir / "model.py"), 1u);
  EXPECT_TRUE(index.problems().empty());
}

TEST(ProjectFileLimit, AFileTooLargeToScanIsToldNotSkipped) {
  TempProject p("size-limit");
  p.write("model.py", kHelper);
  p.write("train.py", "import torch\nfrom model import helper\nf = torch.compile(helper)\n" + std::string(200, '#') + "\n");
  workspace::ProjectIndex index(test_files::readIfPresent, 128);
  auto facts = index.factsFor(p.dir / "model.py");
  auto problems = index.problems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].message.find("train.py is larger than the 128 bytes limit"), std::string::npos)
      << problems[0].message;
  EXPECT_TRUE(problems[0].limit);
  EXPECT_TRUE(facts->project->compiles_unknown);
}

TEST(ProjectFileLimit, TheDefaultLimitIsFarAboveTwentyThousandFiles) {
  EXPECT_GE(workspace::ProjectIndex::kMaxProjectFiles, 200000u);
}

// Rewrites `rel` in place (same inode, same size) and puts its mtime back.
void rewriteKeepingStat(const TempProject& p, const std::string& rel, const std::string& text) {
  fs::path file = p.dir / rel;
  struct stat before {};
  ASSERT_EQ(::stat(file.c_str(), &before), 0);
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f << text;
  }
  struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), times, 0), 0);
  struct stat after {};
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  ASSERT_EQ(after.st_size, before.st_size);
  ASSERT_EQ(after.st_ino, before.st_ino);
  ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
}

// Sets the file's mtime an hour back: its cache entry is not "racily clean".
void age(const fs::path& file) {
  struct timespec times[2] = {{0, UTIME_OMIT}, {::time(nullptr) - 3600, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), times, 0), 0);
}

TEST(ScanCache, AnEditThatKeepsSizeInodeAndMtimeIsSeen) {
  // An old file (its entry not racy): only the ctime tells the edit.
  TempProject p("scan-stale");
  fs::path cache = p.dir / ".ptlint_cache";
  p.write("model.py", kHelper);
  p.write("train.py", "import torch\nfrom model import helper\nf = torch.Compile(helper)\n");  // no compile word
  age(p.dir / "train.py");
  {
    workspace::ProjectIndex index(test_files::readIfPresent);
    index.useScanCache(cache);
    EXPECT_EQ(compiledFindings(index, p.dir / "model.py"), 0u);
    EXPECT_TRUE(index.saveScanCache());
  }
  rewriteKeepingStat(p, "train.py", "import torch\nfrom model import helper\nf = torch.compile(helper)\n");
  {
    workspace::ProjectIndex index(test_files::readIfPresent);
    index.useScanCache(cache);
    EXPECT_EQ(compiledFindings(index, p.dir / "model.py"), 1u);
  }
}

TEST(ScanCache, AnEditThatRemovesTheSiteKeepingTheStatIsSeen) {
  // A file written just before the cache: its entry is racy and read again.
  TempProject p("scan-stale-removed");
  fs::path cache = p.dir / ".ptlint_cache";
  p.write("model.py", kHelper);
  p.write("train.py", "import torch\nfrom model import helper\nf = torch.compile(helper)\n");
  {
    workspace::ProjectIndex index(test_files::readIfPresent);
    index.useScanCache(cache);
    EXPECT_EQ(compiledFindings(index, p.dir / "model.py"), 1u);
    EXPECT_TRUE(index.saveScanCache());
  }
  rewriteKeepingStat(p, "train.py", "import torch\nfrom model import helper\nf = torch.Compile(helper)\n");
  {
    workspace::ProjectIndex index(test_files::readIfPresent);
    index.useScanCache(cache);
    EXPECT_EQ(compiledFindings(index, p.dir / "model.py"), 0u);
  }
}

TEST(ScanCache, RacyEntriesReadAgainAreWrittenAnew) {
  // Files written just before the cache are read again on the next run, and the cache is then
  // rewritten (its new time makes the entries trustworthy once the files are a tick older);
  // left as it was, every later run would read them again.
  TempProject p("scan-racy-rewrite");
  fs::path cache = p.dir / ".ptlint_cache";
  p.write("model.py", kHelper);
  p.write("train.py", "import torch\nfrom model import helper\nf = torch.compile(helper)\n");
  p.write("other.py", "x = 1\n");
  auto inodeOfCache = [&] {
    struct stat st {};
    return ::stat((cache / "project-scan.json").c_str(), &st) == 0 ? st.st_ino : 0;
  };
  {
    workspace::ProjectIndex index(test_files::readIfPresent);
    index.useScanCache(cache);
    EXPECT_EQ(compiledFindings(index, p.dir / "model.py"), 1u);
    EXPECT_TRUE(index.saveScanCache());
  }
  auto first = inodeOfCache();
  ASSERT_NE(first, 0u);
  {
    workspace::ProjectIndex index(test_files::readIfPresent);
    index.useScanCache(cache);
    EXPECT_EQ(compiledFindings(index, p.dir / "model.py"), 1u);
    EXPECT_TRUE(index.saveScanCache());
  }
  EXPECT_NE(inodeOfCache(), first);  // written again (a new file renamed over the old one)
}

nlohmann::json readJson(const fs::path& file) { return nlohmann::json::parse(*test_files::readIfPresent(file)); }

TEST(ScanCache, EntriesOfDeletedFilesAreDropped) {
  TempProject p("scan-prune");
  fs::path cache = p.dir / ".ptlint_cache";
  p.write("train.py", "import torch\ndef h(x):\n    return x.item()\nf = torch.compile(h)\n");
  for (int round = 0; round < 3; ++round) {
    std::string gen = "gen" + std::to_string(round);
    for (int i = 0; i < 5; ++i) p.write(gen + "/f" + std::to_string(i) + ".py", "x = " + std::to_string(i) + "\n");
    {
      workspace::ProjectIndex index(test_files::readIfPresent);
      index.useScanCache(cache);
      compiledFindings(index, p.dir / "train.py");
      index.saveScanCache();
    }
    fs::remove_all(p.dir / gen);
  }
  // One more run: what is left names only files that exist.
  {
    workspace::ProjectIndex index(test_files::readIfPresent);
    index.useScanCache(cache);
    compiledFindings(index, p.dir / "train.py");
    index.saveScanCache();
  }
  auto doc = readJson(cache / "project-scan.json");
  for (const auto& [path, entry] : doc.at("files").items()) EXPECT_TRUE(fs::exists(path)) << path;
  EXPECT_LE(doc.at("files").size(), 2u);
}

TEST(ResultsCache, EntriesOfDeletedFilesAreDropped) {
  TempProject p("results-prune");
  p.write("kept.py", "x = 1\n");
  p.write("gone.py", "y = 2\n");
  {
    workspace::ResultsCache cache(p.dir);
    cache.store(p.dir / "kept.py", "k1-6", {});
    cache.store(p.dir / "gone.py", "k2-6", {});
    EXPECT_TRUE(cache.save());
  }
  fs::remove(p.dir / "gone.py");
  {
    workspace::ResultsCache cache(p.dir);
    EXPECT_TRUE(cache.lookup(p.dir / "kept.py", "k1-6"));
    EXPECT_TRUE(cache.save());  // nothing stored: the deleted file's entry alone changed it
  }
  workspace::ResultsCache cache(p.dir);
  EXPECT_TRUE(cache.lookup(p.dir / "kept.py", "k1-6"));
  EXPECT_FALSE(cache.lookup(p.dir / "gone.py", "k2-6"));
  auto doc = readJson(p.dir / ".ptlint_cache" / "results.json");
  EXPECT_EQ(doc.at("entries").size(), 1u);
}

TEST(ResultsCache, AStampedEntryIsTrustedOnlyOnceItsFileIsOlderThanATickOfTheCache) {
  TempProject p("results-stamp");
  p.write("a.py", "x = 1\n");
  rules::Settings settings;
  std::string key = workspace::ResultsCache::keyFor("x = 1\n", settings);
  EXPECT_EQ(key, workspace::ResultsCache::keyFor(XXH3_64bits("x = 1\n", 6), 6, settings));
  int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
  workspace::ResultsCache::Stamp old{6, 42, now_ns - 3'600'000'000'000, now_ns - 3'600'000'000'000};
  workspace::ResultsCache::Stamp fresh{6, 43, now_ns, now_ns};
  {
    workspace::ResultsCache cache(p.dir);
    cache.store(p.dir / "a.py", "fixable:ALL,unfixable:|" + key, {}, {}, {}, old, true);
    cache.store(p.dir / "b.py", key, {}, {}, {}, fresh, false);
    EXPECT_TRUE(cache.save());
  }
  workspace::ResultsCache cache(p.dir);
  auto stamped = cache.stamped(p.dir / "a.py", old);
  ASSERT_TRUE(stamped);
  EXPECT_EQ(stamped->content_hash, XXH3_64bits("x = 1\n", 6));
  EXPECT_EQ(stamped->size, 6u);
  EXPECT_TRUE(stamped->asks_project);
  // Another stamp (a write changes the ctime even when the mtime is put back): not trusted.
  auto other = old;
  other.ctime_ns += 1;
  EXPECT_FALSE(cache.stamped(p.dir / "a.py", other));
  // Written within a tick of the cache: a second write in that tick may keep the stamp.
  EXPECT_FALSE(cache.stamped(p.dir / "b.py", fresh));
  EXPECT_FALSE(cache.stamped(p.dir / "c.py", old));
}

}  // namespace
