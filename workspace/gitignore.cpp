#include "workspace/gitignore.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace fs = std::filesystem;

namespace ptlint::workspace {
namespace {

// ---- wildmatch: a transcription of git's wildmatch.c (dowild), ASCII classes, no case folding ----
enum { kMatch = 0, kNoMatch = 1, kAbortAll = -1, kAbortToStarStar = -2 };

bool isGlobSpecial(unsigned char c) { return c == '*' || c == '?' || c == '[' || c == '\\'; }
bool isUpper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
bool isLower(unsigned char c) { return c >= 'a' && c <= 'z'; }
bool isDigit(unsigned char c) { return c >= '0' && c <= '9'; }
bool isAlpha(unsigned char c) { return isUpper(c) || isLower(c); }
bool isAlnum(unsigned char c) { return isAlpha(c) || isDigit(c); }
bool isSpace(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }  // git's sane_ctype
bool isPrint(unsigned char c) { return c >= 0x20 && c < 0x7f; }
bool isGraph(unsigned char c) { return isPrint(c) && c != ' '; }
bool isPunct(unsigned char c) { return isGraph(c) && !isAlnum(c); }
bool isCntrl(unsigned char c) { return c < 0x20 || c == 0x7f; }
bool isXdigit(unsigned char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Both strings NUL-terminated; `pattern` is where the whole pattern starts (for `**`).
int dowild(const unsigned char* p, const unsigned char* text, const unsigned char* pattern, bool pathname) {
  unsigned char p_ch;
  for (; (p_ch = *p) != '\0'; text++, p++) {
    int matched;
    bool match_slash, negated;
    unsigned char t_ch = *text, prev_ch;
    if (t_ch == '\0' && p_ch != '*') return kAbortAll;
    switch (p_ch) {
      case '\\':
        p_ch = *++p;  // literal match with the next character; a trailing `\` matches nothing
        if (p_ch == '\0') return kNoMatch;
        [[fallthrough]];
      default:
        if (t_ch != p_ch) return kNoMatch;
        continue;
      case '?':
        if (pathname && t_ch == '/') return kNoMatch;
        continue;
      case '*':
        if (*++p == '*') {
          const unsigned char* prev_p = p - 2;
          while (*++p == '*') {
          }
          if ((prev_p < pattern || *prev_p == '/') && (*p == '\0' || *p == '/' || (p[0] == '\\' && p[1] == '/'))) {
            // `**/`: try it as matching no folder at all first.
            if (p[0] == '/' && dowild(p + 1, text, pattern, pathname) == kMatch) return kMatch;
            match_slash = true;
          } else {
            match_slash = !pathname;
          }
        } else {
          match_slash = !pathname;
        }
        if (*p == '\0') {
          // A trailing `**` matches everything, a trailing `*` only what has no more `/`.
          if (!match_slash && std::strchr(reinterpret_cast<const char*>(text), '/')) return kNoMatch;
          return kMatch;
        }
        if (!match_slash && *p == '/') {
          // One `*` then `/`: matches up to the next folder separator.
          const char* slash = std::strchr(reinterpret_cast<const char*>(text), '/');
          if (!slash) return kNoMatch;
          text = reinterpret_cast<const unsigned char*>(slash);
          break;  // the loop consumes the slash on both sides
        }
        while (true) {
          if (t_ch == '\0') break;
          if (!isGlobSpecial(*p)) {
            // A literal follows: skip ahead to its next occurrence.
            p_ch = *p;
            while ((t_ch = *text) != '\0' && (match_slash || t_ch != '/')) {
              if (t_ch == p_ch) break;
              text++;
            }
            if (t_ch != p_ch) return kNoMatch;
          }
          if ((matched = dowild(p, text, pattern, pathname)) != kNoMatch) {
            if (!match_slash || matched != kAbortToStarStar) return matched;
          } else if (!match_slash && t_ch == '/') {
            return kAbortToStarStar;
          }
          t_ch = *++text;
        }
        return kAbortAll;
      case '[': {
        p_ch = *++p;
        if (p_ch == '^') p_ch = '!';
        negated = p_ch == '!';
        if (negated) p_ch = *++p;
        prev_ch = 0;
        matched = 0;
        do {
          if (!p_ch) return kAbortAll;
          if (p_ch == '\\') {
            p_ch = *++p;
            if (!p_ch) return kAbortAll;
            if (t_ch == p_ch) matched = 1;
          } else if (p_ch == '-' && prev_ch && p[1] && p[1] != ']') {
            p_ch = *++p;
            if (p_ch == '\\') {
              p_ch = *++p;
              if (!p_ch) return kAbortAll;
            }
            if (t_ch <= p_ch && t_ch >= prev_ch) matched = 1;
            p_ch = 0;  // so that prev_ch becomes 0
          } else if (p_ch == '[' && p[1] == ':') {
            const unsigned char* s;
            for (s = p += 2; (p_ch = *p) && p_ch != ']'; p++) {
            }
            if (!p_ch) return kAbortAll;
            long i = p - s - 1;
            if (i < 0 || p[-1] != ':') {
              // No `:]`: a plain `[` in the set.
              p = s - 2;
              p_ch = '[';
              if (t_ch == p_ch) matched = 1;
              continue;
            }
            std::string_view cls(reinterpret_cast<const char*>(s), static_cast<size_t>(i));
            bool (*test)(unsigned char) = nullptr;
            if (cls == "alnum") test = isAlnum;
            else if (cls == "alpha") test = isAlpha;
            else if (cls == "blank") test = [](unsigned char c) { return c == ' ' || c == '\t'; };
            else if (cls == "cntrl") test = isCntrl;
            else if (cls == "digit") test = isDigit;
            else if (cls == "graph") test = isGraph;
            else if (cls == "lower") test = isLower;
            else if (cls == "print") test = isPrint;
            else if (cls == "punct") test = isPunct;
            else if (cls == "space") test = isSpace;
            else if (cls == "upper") test = isUpper;
            else if (cls == "xdigit") test = isXdigit;
            else return kAbortAll;  // malformed [:class:]
            if (test(t_ch)) matched = 1;
            p_ch = 0;
          } else if (t_ch == p_ch) {
            matched = 1;
          }
        } while (prev_ch = p_ch, (p_ch = *++p) != ']');
        if (matched == static_cast<int>(negated) || (pathname && t_ch == '/')) return kNoMatch;
        continue;
      }
    }
  }
  return *text ? kNoMatch : kMatch;
}

// ---- files ----
constexpr size_t kMaxPatternFile = 100u << 20;  // git ignores larger pattern files

// A regular file's bytes, never through a symlink (git opens in-tree .gitignore files so too).
std::optional<std::string> readSmallFile(const std::string& path, bool nofollow) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<size_t>(st.st_size) > kMaxPatternFile) {
    ::close(fd);
    return std::nullopt;
  }
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > kMaxPatternFile) break;
  }
  ::close(fd);
  return out;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '\n')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n')) --e;
  return std::string(s.substr(b, e - b));
}

std::string lower(std::string s) {
  for (char& c : s)
    if (isUpper(static_cast<unsigned char>(c))) c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// `core.excludesFile` from one git config file, if it sets it (the last setting wins). Only what
// this key needs of git's config syntax: sections, `key = value`, quotes, escapes, comments.
void readExcludesFileSetting(const std::string& path, std::optional<std::string>& value) {
  auto text = readSmallFile(path, false);
  if (!text) return;
  std::string section;
  size_t pos = 0;
  while (pos < text->size()) {
    size_t eol = text->find('\n', pos);
    if (eol == std::string::npos) eol = text->size();
    std::string line = trim(std::string_view(*text).substr(pos, eol - pos));
    pos = eol + 1;
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      size_t end = line.find_first_of(" \t\"].", 1);
      section = lower(line.substr(1, end == std::string::npos ? std::string::npos : end - 1));
      size_t close = line.find(']');
      if (close == std::string::npos) continue;
      line = trim(std::string_view(line).substr(close + 1));  // `[core] excludesFile = x`
      if (line.empty()) continue;
    }
    if (section != "core") continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    if (lower(trim(std::string_view(line).substr(0, eq))) != "excludesfile") continue;
    std::string raw = trim(std::string_view(line).substr(eq + 1)), parsed;
    bool quoted = false;
    for (size_t i = 0; i < raw.size(); ++i) {
      char c = raw[i];
      if (c == '"') {
        quoted = !quoted;
      } else if (c == '\\' && i + 1 < raw.size()) {
        char n = raw[++i];
        parsed += n == 'n' ? '\n' : n == 't' ? '\t' : n;
      } else if (!quoted && (c == '#' || c == ';')) {
        break;
      } else {
        parsed += c;
      }
    }
    value = trim(parsed);
  }
}

}  // namespace

bool wildmatch(std::string_view pattern, std::string_view text, bool pathname) {
  std::string p(pattern), t(text);  // NUL-terminated copies: dowild reads one past the end
  auto* pp = reinterpret_cast<const unsigned char*>(p.c_str());
  return dowild(pp, reinterpret_cast<const unsigned char*>(t.c_str()), pp, pathname) == kMatch;
}

std::vector<IgnorePattern> parseIgnorePatterns(std::string_view text) {
  std::vector<IgnorePattern> out;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.empty() || line[0] == '#') continue;
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (size_t nul = line.find('\0'); nul != std::string_view::npos) line = line.substr(0, nul);  // a C string to git
    // Trailing spaces go unless escaped with `\`.
    size_t last_space = std::string_view::npos;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == ' ') {
        if (last_space == std::string_view::npos) last_space = i;
      } else if (line[i] == '\\') {
        if (++i == line.size()) {
          last_space = std::string_view::npos;
          break;
        }
        last_space = std::string_view::npos;
      } else {
        last_space = std::string_view::npos;
      }
    }
    if (last_space != std::string_view::npos) line = line.substr(0, last_space);
    IgnorePattern pattern;
    if (line.starts_with('!')) {
      pattern.negative = true;
      line.remove_prefix(1);
    }
    if (line.ends_with('/')) {
      pattern.dir_only = true;
      line.remove_suffix(1);
    }
    if (line.empty()) continue;  // matches nothing
    pattern.basename = line.find('/') == std::string_view::npos;
    pattern.pattern = std::string(line);
    size_t literal = 0;
    while (literal < line.size() && !isGlobSpecial(static_cast<unsigned char>(line[literal]))) ++literal;
    pattern.literal_prefix = literal;
    out.push_back(std::move(pattern));
  }
  return out;
}

std::optional<bool> matchIgnorePatterns(const std::vector<IgnorePattern>& patterns, std::string_view base,
                                        std::string_view path, bool is_dir) {
  size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (auto it = patterns.rbegin(); it != patterns.rend(); ++it) {
    const IgnorePattern& p = *it;
    if (p.dir_only && !is_dir) continue;
    bool hit;
    if (p.basename) {
      hit = p.literal_prefix == p.pattern.size() ? name == p.pattern : wildmatch(p.pattern, name, false);
    } else {
      // Relative to the folder of the file (git's match_pathname): its base must lead the path.
      if (path.size() < base.size() + 1 || !path.starts_with(base)) continue;
      std::string_view rest = path.substr(base.size());
      std::string_view pat = p.pattern;
      size_t prefix = p.literal_prefix;
      if (pat.starts_with('/')) {
        pat.remove_prefix(1);
        --prefix;
      }
      // The literal prefix is compared apart and the rest matched on its own, as git does: a
      // `**` right after that prefix counts as leading.
      if (prefix > rest.size() || rest.substr(0, prefix) != pat.substr(0, prefix)) continue;
      pat.remove_prefix(prefix);
      rest.remove_prefix(prefix);
      hit = pat.empty() ? rest.empty() : wildmatch(pat, rest, true);
    }
    if (hit) return !p.negative;
  }
  return std::nullopt;
}

GitUserConfig GitUserConfig::fromEnvironment() {
  GitUserConfig c;
  if (const char* home = std::getenv("HOME")) c.home = home;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME")) c.xdg_config_home = xdg;
  return c;
}

struct GitIgnore::WorkTree {
  std::string root;  // absolute, no trailing `/`
  std::vector<IgnorePattern> excludes_file, info_exclude;
  std::unordered_map<std::string, std::vector<IgnorePattern>> per_folder;  // by folder relative to root
  std::unordered_map<std::string, bool> folder_ignored;                     // ancestors already decided

  const std::vector<IgnorePattern>& patternsOf(const std::string& folder) {
    auto it = per_folder.find(folder);
    if (it != per_folder.end()) return it->second;
    std::string file = root + (folder.empty() ? "" : "/" + folder) + "/.gitignore";
    auto text = readSmallFile(file, true);
    return per_folder.emplace(folder, text ? parseIgnorePatterns(*text) : std::vector<IgnorePattern>{}).first->second;
  }

  // The lists that apply to `path` (its folders' .gitignore files, deepest first, then
  // info/exclude, then the excludes file), without looking at its ancestors' own verdicts.
  bool decide(const std::string& path, bool is_dir) {
    std::vector<size_t> slashes;
    for (size_t i = 0; i < path.size(); ++i)
      if (path[i] == '/') slashes.push_back(i);
    for (size_t k = slashes.size() + 1; k-- > 0;) {
      std::string folder = k == 0 ? std::string() : path.substr(0, slashes[k - 1]);
      std::string base = folder.empty() ? folder : folder + "/";
      if (auto r = matchIgnorePatterns(patternsOf(folder), base, path, is_dir)) return *r;
    }
    if (auto r = matchIgnorePatterns(info_exclude, "", path, is_dir)) return *r;
    if (auto r = matchIgnorePatterns(excludes_file, "", path, is_dir)) return *r;
    return false;
  }

  bool isIgnored(const std::string& path, bool is_dir) {
    // A path inside an ignored folder is ignored: no pattern can re-include it.
    for (size_t i = path.find('/'); i != std::string::npos; i = path.find('/', i + 1)) {
      std::string folder = path.substr(0, i);
      auto it = folder_ignored.find(folder);
      bool ignored = it != folder_ignored.end() ? it->second : (folder_ignored[folder] = decide(folder, true));
      if (ignored) return true;
    }
    return decide(path, is_dir);
  }
};

GitIgnore::GitIgnore(GitUserConfig user) : user_(std::move(user)) {}
GitIgnore::~GitIgnore() = default;

GitIgnore::WorkTree* GitIgnore::workTreeFor(const std::string& dir) {
  std::vector<std::string> visited;
  WorkTree* found = nullptr;
  std::string d = dir;
  while (true) {
    if (auto it = by_folder_.find(d); it != by_folder_.end()) {
      found = it->second;
      break;
    }
    visited.push_back(d);
    std::string dot_git = (d == "/" ? "" : d) + "/.git";
    struct stat st {};
    std::string git_dir;
    if (::lstat(dot_git.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        git_dir = dot_git;
      } else if (S_ISREG(st.st_mode)) {
        // A linked worktree or a submodule: `gitdir: PATH`.
        if (auto text = readSmallFile(dot_git, true); text && text->starts_with("gitdir:")) {
          std::string target = trim(std::string_view(*text).substr(7));
          git_dir = target.starts_with('/') ? target : (d == "/" ? "" : d) + "/" + target;
        }
      }
      if (!git_dir.empty() && ::stat((git_dir + "/HEAD").c_str(), &st) != 0) git_dir.clear();
    }
    if (!git_dir.empty()) {
      auto& tree = trees_[d];
      if (!tree) {
        tree = std::make_unique<WorkTree>();
        tree->root = d == "/" ? "" : d;
        // A linked worktree shares info/exclude and the config with the main repository.
        std::string common = git_dir;
        if (auto text = readSmallFile(git_dir + "/commondir", true)) {
          std::string rel = trim(*text);
          if (!rel.empty()) common = rel.starts_with('/') ? rel : git_dir + "/" + rel;
        }
        if (auto text = readSmallFile(common + "/info/exclude", false))
          tree->info_exclude = parseIgnorePatterns(*text);
        // core.excludesFile: system, then the user's (XDG, then ~/.gitconfig), then the
        // repository's; the last setting wins. Unset: $XDG_CONFIG_HOME/git/ignore.
        std::string xdg = !user_.xdg_config_home.empty() ? user_.xdg_config_home
                          : !user_.home.empty()          ? user_.home + "/.config"
                                                         : std::string();
        std::optional<std::string> excludes;
        readExcludesFileSetting("/etc/gitconfig", excludes);
        if (!xdg.empty()) readExcludesFileSetting(xdg + "/git/config", excludes);
        if (!user_.home.empty()) readExcludesFileSetting(user_.home + "/.gitconfig", excludes);
        readExcludesFileSetting(common + "/config", excludes);
        std::string file;
        if (excludes) {
          file = *excludes;
          if (file.starts_with("~/") && !user_.home.empty()) file = user_.home + file.substr(1);
          else if (!file.empty() && !file.starts_with('/')) file = tree->root + "/" + file;  // git runs at the top
        } else if (!xdg.empty()) {
          file = xdg + "/git/ignore";
        }
        if (!file.empty())
          if (auto text = readSmallFile(file, false)) tree->excludes_file = parseIgnorePatterns(*text);
      }
      found = tree.get();
      break;
    }
    if (d == "/" || d.empty()) break;
    size_t slash = d.rfind('/');
    d = slash == 0 ? "/" : d.substr(0, slash);
  }
  for (const auto& v : visited) by_folder_[v] = found;
  return found;
}

bool GitIgnore::isIgnored(const fs::path& path, bool is_dir) {
  std::string p = path.lexically_normal().native();
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  size_t slash = p.rfind('/');
  if (slash == std::string::npos) return false;
  // A folder is looked up from itself: its own `.git` makes it the root of a nested repository,
  // which the outer one's patterns do not reach.
  WorkTree* tree = workTreeFor(is_dir ? p : (slash == 0 ? std::string("/") : p.substr(0, slash)));
  if (tree == nullptr) return false;
  if (p.size() <= tree->root.size() + 1 || p.compare(0, tree->root.size(), tree->root) != 0 ||
      p[tree->root.size()] != '/')
    return false;  // the root itself
  return tree->isIgnored(p.substr(tree->root.size() + 1), is_dir);
}

}  // namespace ptlint::workspace
