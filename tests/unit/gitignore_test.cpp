// workspace::GitIgnore against git itself: repositories with generated .gitignore files,
// info/exclude and excludes files, every path of their trees asked of both
// `git check-ignore --no-index` (the oracle) and the matcher.
#include "workspace/gitignore.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <algorithm>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_files.h"

namespace fs = std::filesystem;
using ptlint::workspace::GitIgnore;
using ptlint::workspace::GitUserConfig;
using ptlint::workspace::parseIgnorePatterns;
using ptlint::workspace::wildmatch;

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void writeFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A scratch folder holding a repository (`repo/`) and a home folder (`home/`) for git's user
// configuration, removed afterwards.
class Scratch {
 public:
  Scratch() {
    std::string tmpl = (fs::temp_directory_path() / "ptlint-gitignore.XXXXXX").string();
    root_ = ::mkdtemp(tmpl.data());
    fs::create_directories(repo());
    fs::create_directories(home());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  fs::path root() const { return root_; }
  fs::path repo() const { return root_ / "repo"; }
  fs::path home() const { return root_ / "home"; }
  GitUserConfig user() const { return {home().string(), (home() / ".config").string()}; }

  // git with this home and no other user configuration; stdout into `out`.
  int git(const fs::path& dir, const std::string& args, std::string* out = nullptr, const std::string& input = "") {
    fs::path in = root_ / "stdin", o = root_ / "stdout";
    writeFile(in, input);
    std::string cmd = "env -u XDG_CONFIG_HOME -u GIT_DIR -u GIT_WORK_TREE HOME=" + quote(home().string()) +
                      " git -C " + quote(dir.string()) + " " + args + " <" + quote(in.string()) + " >" +
                      quote(o.string()) + " 2>&1";
    int rc = std::system(cmd.c_str());
    if (out) *out = ptlint::test_files::readFile(o);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }

 private:
  fs::path root_;
};

struct Verdict {
  bool ignored = false;
  std::string why;  // git's "source:line:pattern"
};

// `git check-ignore --no-index -v -n -z --stdin`: each path's last matching pattern, or none.
std::map<std::string, Verdict> askGit(Scratch& s, const std::vector<std::string>& paths) {
  std::string input;
  for (const auto& p : paths) input += p + '\0';
  std::string out;
  int rc = s.git(s.repo(), "check-ignore --no-index -v -n -z --stdin", &out, input);
  EXPECT_TRUE(rc == 0 || rc == 1) << "git check-ignore failed (" << rc << "): " << out;
  std::vector<std::string> fields;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t nul = out.find('\0', pos);
    if (nul == std::string::npos) break;
    fields.push_back(out.substr(pos, nul - pos));
    pos = nul + 1;
  }
  std::map<std::string, Verdict> verdicts;
  for (size_t i = 0; i + 3 < fields.size(); i += 4) {
    Verdict v;
    v.ignored = !fields[i + 2].empty() && fields[i + 2][0] != '!';
    v.why = fields[i] + ":" + fields[i + 1] + ":" + fields[i + 2];
    verdicts[fields[i + 3]] = v;
  }
  EXPECT_EQ(verdicts.size(), paths.size()) << out;
  return verdicts;
}

// Every file and folder below the repository (not .git), relative, `/`-separated.
std::vector<std::pair<std::string, bool>> treeOf(const fs::path& repo) {
  std::vector<std::pair<std::string, bool>> out;
  for (auto it = fs::recursive_directory_iterator(repo); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->path().filename() == ".gitignore") continue;
    out.emplace_back(it->path().lexically_relative(repo).generic_string(), it->is_directory());
  }
  return out;
}

// Compares every path of the tree; returns the number compared (and counts git's ignored ones).
size_t compareWithGit(Scratch& s, const std::string& context, size_t* ignored = nullptr) {
  auto tree = treeOf(s.repo());
  std::vector<std::string> paths;
  for (const auto& [p, dir] : tree) paths.push_back(p);
  auto verdicts = askGit(s, paths);
  GitIgnore matcher(s.user());
  for (const auto& [p, dir] : tree) {
    bool ours = matcher.isIgnored(s.repo() / p, dir);
    const Verdict& git = verdicts[p];
    if (ignored && git.ignored) ++*ignored;
    EXPECT_EQ(ours, git.ignored) << "path `" << p << "`" << (dir ? " (folder)" : "") << ": git says "
                                 << (git.ignored ? "ignored" : "not ignored") << " [" << git.why << "]\n"
                                 << context;
  }
  return tree.size();
}

std::string describeIgnoreFiles(const fs::path& repo, const std::vector<fs::path>& extra) {
  std::ostringstream out;
  for (auto it = fs::recursive_directory_iterator(repo); it != fs::recursive_directory_iterator(); ++it)
    if (it->path().filename() == ".gitignore" && it->is_regular_file())
      out << "--- " << it->path().lexically_relative(repo).string() << "\n" << ptlint::test_files::readFile(it->path());
  for (const auto& p : extra)
    if (fs::exists(p)) out << "--- " << p.string() << "\n" << ptlint::test_files::readFile(p);
  return out.str();
}

}  // namespace

TEST(Wildmatch, GitSemantics) {
  EXPECT_TRUE(wildmatch("*.py", "a.py", true));
  EXPECT_FALSE(wildmatch("*.py", "d/a.py", true));
  EXPECT_TRUE(wildmatch("**/a.py", "a.py", true));
  EXPECT_TRUE(wildmatch("**/a.py", "x/y/a.py", true));
  EXPECT_TRUE(wildmatch("x/**/a.py", "x/a.py", true));
  EXPECT_TRUE(wildmatch("x/**", "x/y/z", true));
  EXPECT_FALSE(wildmatch("x/**", "x", true));
  EXPECT_TRUE(wildmatch("[!a]b", "cb", true));
  EXPECT_TRUE(wildmatch("[^a]b", "cb", true));
  EXPECT_TRUE(wildmatch("[[:digit:]]x", "7x", true));
  EXPECT_FALSE(wildmatch("[[:bogus:]]x", "7x", true));
  EXPECT_TRUE(wildmatch("\\*", "*", true));
  EXPECT_FALSE(wildmatch("\\*", "a", true));
  EXPECT_FALSE(wildmatch("a\\", "a", true));  // a trailing backslash matches nothing
  // Exponential-looking patterns finish (git's abort codes bound the backtracking).
  EXPECT_FALSE(wildmatch("*a*a*a*a*a*a*a*a*a*a*a*a*b", std::string(200, 'a'), true));
  EXPECT_FALSE(wildmatch("**/**/**/**/**/**/**/**/**/b", std::string(100, 'a') + "/c", true));
}

// Arbitrary bytes as ignore files and paths: no crash, and no pattern takes long (git's abort
// codes bound wildmatch's backtracking; ctest's timeout catches a regression).
TEST(GitIgnoreParse, ArbitraryBytes) {
  std::mt19937 rng(7);
  const std::string alphabet = "ab/*?[]!^-:\\ #\n\r\xEF\xBB\xBF";
  auto text = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += rng() % 8 ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng());
    return s;
  };
  size_t hits = 0;
  for (int i = 0; i < 20000; ++i) {
    auto patterns = parseIgnorePatterns(text(rng() % 60));
    std::string path = text(1 + rng() % 30);
    while (!path.empty() && path.back() == '/') path.pop_back();
    if (path.empty() || path.front() == '/') continue;
    if (ptlint::workspace::matchIgnorePatterns(patterns, "", path, rng() % 2 == 0)) ++hits;
    ptlint::workspace::matchIgnorePatterns(patterns, "a/", "a/" + path, false);
  }
  EXPECT_GT(hits, 0u);
}

TEST(GitIgnoreParse, Syntax) {
  auto p = parseIgnorePatterns("\xEF\xBB\xBF# comment\n\n!keep.py\nbuild/\n/top\n\\#hash\ntrail  \nesc\\ \nwin\r\n");
  ASSERT_EQ(p.size(), 7u);
  EXPECT_TRUE(p[0].negative);
  EXPECT_EQ(p[0].pattern, "keep.py");
  EXPECT_TRUE(p[1].dir_only && p[1].basename);
  EXPECT_FALSE(p[2].basename);
  EXPECT_EQ(p[3].pattern, "\\#hash");
  EXPECT_EQ(p[4].pattern, "trail");
  EXPECT_EQ(p[5].pattern, "esc\\ ");
  EXPECT_EQ(p[6].pattern, "win");
}

class GitIgnoreOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string out;
    if (s_.git(s_.root(), "--version", &out) != 0) GTEST_FAIL() << "git is needed as the oracle: " << out;
    ASSERT_EQ(s_.git(s_.repo(), "init -q"), 0);
  }
  void touch(const std::string& rel) { writeFile(s_.repo() / rel, ""); }
  void mkdir(const std::string& rel) { fs::create_directories(s_.repo() / rel); }
  Scratch s_;
};

// Each feature of gitignore(5) by hand, every file kind at once.
TEST_F(GitIgnoreOracle, HandWrittenCases) {
  writeFile(s_.repo() / ".gitignore",
            "# comment\n"
            "*.pyc\n"
            "!keep.pyc\n"
            "build/\n"
            "/top.py\n"
            "docs/*.md\n"
            "**/gen/**\n"
            "a/**/z.py\n"
            "\\#lit\n"
            "\\!bang\n"
            "sp\\ ace \n"
            "trailing.py   \n"
            "data/\n"
            "!data/keep.py\n"       // cannot re-include: its folder is ignored
            "cache\n"
            "[Tt]emp*\n"
            "[!x]y.txt\n"
            "*/mid/*.py\n"
            "win.py\r\n");
  writeFile(s_.repo() / "sub/.gitignore", "!*.pyc\nlocal.py\n/anchored.py\n");
  writeFile(s_.repo() / ".git/info/exclude", "excluded_by_info.py\nprec.py\n!prec2.py\n");
  writeFile(s_.home() / ".config/git/ignore", "global_ignored.py\n!keep_global.py\n!prec.py\nprec2.py\n");
  for (const char* f : {"a.pyc", "keep.pyc", "sub/b.pyc", "sub/local.py", "sub/anchored.py", "sub/deep/anchored.py",
                        "top.py", "sub/top.py", "docs/x.md", "docs/deep/x.md", "x/gen/y.py", "gen/z.py",
                        "a/z.py", "a/b/c/z.py", "#lit", "!bang", "sp ace", "trailing.py", "data/keep.py",
                        "cache/x.py", "sub/cache", "Temp1.py", "temp2.py", "ay.txt", "xy.txt", "q/mid/r.py",
                        "q/w/mid/r.py", "win.py", "excluded_by_info.py", "global_ignored.py", "keep_global.py",
                        "plain.py", "prec.py", "prec2.py"})
    touch(f);
  for (const char* d : {"build", "sub/build", "empty_dir"}) mkdir(d);
  touch("build/x.py");
  size_t n = compareWithGit(s_, describeIgnoreFiles(s_.repo(), {}));
  EXPECT_GT(n, 30u);
}

// core.excludesFile from the repository's config (relative to the top, and with `~/`).
TEST_F(GitIgnoreOracle, ExcludesFileSetting) {
  writeFile(s_.home() / "my-ignore", "from_home.py\n");
  writeFile(s_.home() / ".config/git/ignore", "from_default.py\n");
  ASSERT_EQ(s_.git(s_.repo(), "config core.excludesFile '~/my-ignore'"), 0);
  for (const char* f : {"from_home.py", "from_default.py", "sub/from_home.py"}) touch(f);
  compareWithGit(s_, "core.excludesFile = ~/my-ignore");
  ASSERT_EQ(s_.git(s_.repo(), "config core.excludesFile rel-ignore"), 0);
  writeFile(s_.repo() / "rel-ignore", "from_rel.py\n");
  touch("from_rel.py");
  compareWithGit(s_, "core.excludesFile = rel-ignore");
}

// A symlinked .gitignore is not followed (git refuses it too).
TEST_F(GitIgnoreOracle, SymlinkedGitignoreIsNotRead) {
  writeFile(s_.root() / "elsewhere", "*.py\n");
  fs::create_symlink(s_.root() / "elsewhere", s_.repo() / ".gitignore");
  touch("a.py");
  compareWithGit(s_, "symlinked .gitignore");
}

// A linked worktree (`.git` is a `gitdir:` file) reads the main repository's info/exclude.
TEST_F(GitIgnoreOracle, LinkedWorktreeSharesInfoExclude) {
  writeFile(s_.repo() / ".git/info/exclude", "*.log.py\n");
  touch("seed.txt");
  ASSERT_EQ(s_.git(s_.repo(), "add seed.txt"), 0);
  ASSERT_EQ(s_.git(s_.repo(), "-c user.name=t -c user.email=t@t commit -q -m seed"), 0);
  fs::path wt = s_.root() / "wt";
  std::string out;
  ASSERT_EQ(s_.git(s_.repo(), "worktree add -q " + quote(wt.string()), &out), 0) << out;
  writeFile(wt / "x.log.py", "");
  writeFile(wt / "y.py", "");
  GitIgnore matcher(s_.user());
  EXPECT_TRUE(matcher.isIgnored(wt / "x.log.py", false));
  EXPECT_FALSE(matcher.isIgnored(wt / "y.py", false));
  ASSERT_EQ(s_.git(wt, "check-ignore -q x.log.py"), 0);
  ASSERT_EQ(s_.git(wt, "check-ignore -q y.py"), 1);
}

// Outside a work tree nothing is ignored; a nested repository is out of the outer one's reach.
TEST_F(GitIgnoreOracle, RepositoryBoundaries) {
  writeFile(s_.repo() / ".gitignore", "*.py\n");
  writeFile(s_.root() / "outside/a.py", "");
  fs::create_directories(s_.repo() / "inner");
  ASSERT_EQ(s_.git(s_.repo() / "inner", "init -q"), 0);
  writeFile(s_.repo() / "inner/b.py", "");
  GitIgnore matcher(s_.user());
  EXPECT_FALSE(matcher.isIgnored(s_.root() / "outside/a.py", false));
  EXPECT_FALSE(matcher.isIgnored(s_.repo() / "inner/b.py", false));
  EXPECT_FALSE(matcher.isIgnored(s_.repo() / "inner", true));
  std::string out;
  EXPECT_EQ(s_.git(s_.repo() / "inner", "check-ignore -q b.py", &out), 1) << out;
}

// Generated repositories: random trees of awkward names, random patterns built from the features
// above at several levels, compared path by path with git.
TEST_F(GitIgnoreOracle, GeneratedCorpus) {
  const std::vector<std::string> names = {"a",   "b",    "ab",      "foo.py", "bar.py", "x.pyc", "build", "Build",
                                          "#h",  "!n",   "sp ace",  "[x]",    "a*b",   "q?",    "dir.d", "deep",
                                          "gen", "test", "test_a.py", "aab",  "\\e",   "z.md"};
  const std::vector<std::string> atoms = {
      "a",     "b",     "ab",     "foo.py", "*.py",     "*.pyc", "build",  "Build",   "\\#h",     "#h",
      "\\!n",  "sp ace", "sp\\ ace", "\\[x]", "[x]",     "a\\*b", "a*b",   "q?",      "q\\?",     "dir.d",
      "*",     "**",    "?",      "[ab]*",  "[!a]*",    "[^a]b", "[a-c]*", "[[:alpha:]]*", "[[:digit:]]", "*.d",
      "te*",   "*_a.py", "a**",   "**b",    "[]ab]",    "[!]]*", "*[",    "deep",    "gen",      "\\e",
      "*.md",  "z.*",   "a?b",    "[a-]*"};
  std::mt19937 rng(20261204);
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  auto pattern = [&]() {
    std::string p;
    int parts = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < parts; ++i) {
      if (i > 0) p += "/";
      int r = static_cast<int>(rng() % 10);
      p += r == 0 ? std::string("**") : pick(atoms);
    }
    if (rng() % 5 == 0) p = "/" + p;
    if (rng() % 5 == 0) p += "/";
    if (rng() % 4 == 0) p = "!" + p;
    if (rng() % 12 == 0) p += "  ";
    if (rng() % 15 == 0) p += "\\ ";
    if (rng() % 20 == 0) p = "#" + p;
    return p;
  };
  size_t compared = 0, ignored = 0;
  for (int round = 0; round < 40; ++round) {
    fs::remove_all(s_.root() / "repo");
    fs::remove_all(s_.home());
    fs::create_directories(s_.repo());
    fs::create_directories(s_.home());
    ASSERT_EQ(s_.git(s_.repo(), "init -q"), 0);
    std::vector<std::string> dirs = {""};
    for (int i = 0; i < 45; ++i) {
      std::string parent = pick(dirs);
      std::string rel = (parent.empty() ? "" : parent + "/") + pick(names);
      fs::path full = s_.repo() / rel;
      if (fs::exists(full)) continue;
      if (rng() % 3 == 0 && std::count(rel.begin(), rel.end(), '/') < 4) {
        fs::create_directories(full);
        dirs.push_back(rel);
      } else {
        writeFile(full, "");
      }
    }
    auto lines = [&](int n) {
      std::string text;
      for (int i = 0; i < n; ++i) text += pattern() + "\n";
      return text;
    };
    writeFile(s_.repo() / ".gitignore", lines(2 + static_cast<int>(rng() % 6)));
    for (const auto& d : dirs)
      if (!d.empty() && rng() % 3 == 0) writeFile(s_.repo() / d / ".gitignore", lines(1 + static_cast<int>(rng() % 4)));
    if (rng() % 2) writeFile(s_.repo() / ".git/info/exclude", lines(2));
    if (rng() % 2) writeFile(s_.home() / ".config/git/ignore", lines(2));
    std::string context = "round " + std::to_string(round) + "\n" +
                          describeIgnoreFiles(s_.repo(), {s_.repo() / ".git/info/exclude",
                                                          s_.home() / ".config/git/ignore"});
    compared += compareWithGit(s_, context, &ignored);
    if (HasFailure()) break;
  }
  EXPECT_GT(compared, 1000u);
  // Both answers are common, so that the corpus tells matchers apart.
  EXPECT_GT(ignored, compared / 5);
  EXPECT_LT(ignored, compared * 4 / 5);
  std::cout << compared << " paths compared, " << ignored << " ignored\n";
}
