// A compile log's events on the checked files: each log path mapped to the checked file with the
// longest common path suffix (at least the file name; a tie is ambiguous and not mapped), frames
// that are not user code skipped, repeats counted, and one message per finding.
#include <fmt/format.h>

#include <functional>
#include <set>
#include <unordered_map>

#include "workspace/compile_log.h"

namespace fs = std::filesystem;

namespace ptlint::workspace {
namespace {

std::vector<std::string_view> components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find_first_of("/\\", start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

class FileMatcher {
 public:
  explicit FileMatcher(const std::vector<fs::path>& files) {
    for (const fs::path& f : files) {
      if (f.extension() == ".ipynb") continue;  // notebook cells are not in the logs by path
      by_name_[f.filename().string()].push_back(f);
    }
  }

  // The checked file a log path names; nullopt when none (or several equally) match.
  std::optional<fs::path> match(const std::string& log_path, bool& ambiguous) {
    if (auto it = cache_.find(log_path); it != cache_.end()) {
      ambiguous = it->second.second;
      return it->second.first;
    }
    std::vector<std::string_view> wanted = components(log_path);
    std::optional<fs::path> best;
    size_t best_len = 0;
    ambiguous = false;
    if (!wanted.empty()) {
      if (auto it = by_name_.find(std::string(wanted.back())); it != by_name_.end()) {
        for (const fs::path& candidate : it->second) {
          std::string s = candidate.string();
          std::vector<std::string_view> have = components(s);
          size_t len = 0;
          while (len < have.size() && len < wanted.size() && have[have.size() - 1 - len] == wanted[wanted.size() - 1 - len])
            ++len;
          if (len > best_len) {
            best_len = len;
            best = candidate;
            ambiguous = false;
          } else if (len == best_len && len > 0) {
            ambiguous = true;
          }
        }
      }
    }
    if (ambiguous) best.reset();
    cache_[log_path] = {best, ambiguous};
    return best;
  }

 private:
  std::unordered_map<std::string, std::vector<fs::path>> by_name_;
  std::unordered_map<std::string, std::pair<std::optional<fs::path>, bool>> cache_;
};

std::string plural(size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string listOf(const std::set<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

std::string idsOf(const std::vector<std::string>& ids, size_t limit = 4) {
  std::string out;
  size_t shown = 0;
  for (const std::string& id : ids) {
    if (id.empty()) continue;
    if (shown == limit) return out + ", ...";
    out += (out.empty() ? "" : ", ") + id;
    ++shown;
  }
  return out;
}

// A finding under construction: its events' union.
struct Pending {
  rules::RuntimeFinding finding;
  std::string head;  // what the finding is (reason, function), without counts
  size_t count = 0;
  std::set<int> ranks;
  std::vector<std::string> compile_ids;
  LogPlace first;
  std::vector<std::string> guards;
  bool limit_hit = false;
  std::string limit;
  std::string function;
  std::string resumed;  // the function a resume function continues
};

void addUnique(std::vector<std::string>& to, const std::string& item) {
  if (std::find(to.begin(), to.end(), item) == to.end()) to.push_back(item);
}

std::string provenance(const Pending& p) {
  std::string ids = idsOf(p.compile_ids);
  return fmt::format("[log {}:{}{}]", p.first.log, p.first.line,
                     ids.empty() ? "" : fmt::format(", compile id{} {}", p.compile_ids.size() > 1 ? "s" : "", ids));
}

std::string breakMessage(const Pending& p, const GraphBreakEvent& e) {
  // (the count is of log records: a loop, the ranks, and Dynamo tracing the callers' frames
  // again after the break each log it once more)
  std::string what = e.gb_type.empty() ? e.reason : e.gb_type;
  std::string msg = fmt::format("Graph break: {}", what.empty() ? "(no reason given)" : what);
  if (!e.explanation.empty()) msg += fmt::format(" ({})", e.explanation);
  if (!e.gb_id.empty()) msg += fmt::format("; {} {}", e.gb_id, e.url);
  else if (!e.url.empty()) msg += fmt::format("; {}", e.url);
  if (p.count > 1) msg += fmt::format("; logged {}", plural(p.count, "time", "times"));
  if (!p.ranks.empty()) msg += fmt::format("; rank{} {}", p.ranks.size() > 1 ? "s" : "", listOf(p.ranks));
  return msg + " " + provenance(p);
}

std::string recompileMessage(const Pending& p) {
  std::string name = p.resumed.empty() ? fmt::format("`{}`", p.function)
                                       : fmt::format("`{}` (resumed after a graph break)", p.resumed);
  std::string msg;
  if (p.count > 0) msg = fmt::format("{} was compiled again {}", name, plural(p.count, "time", "times"));
  else msg = name;
  if (!p.guards.empty()) {
    msg += fmt::format("; failing guard{}: ", p.guards.size() > 1 ? "s" : "");
    size_t shown = std::min<size_t>(p.guards.size(), 4);
    for (size_t i = 0; i < shown; ++i) msg += (i ? "; " : "") + p.guards[i];
    if (p.guards.size() > shown) msg += fmt::format("; and {} more", p.guards.size() - shown);
  }
  if (p.limit_hit)
    msg += fmt::format("{} hit the recompile limit{}: Dynamo no longer compiles it and runs it eagerly",
                       p.count > 0 ? "; then it" : "", p.limit.empty() ? "" : " (" + p.limit + ")");
  if (!p.ranks.empty()) msg += fmt::format("; rank{} {}", p.ranks.size() > 1 ? "s" : "", listOf(p.ranks));
  return msg + " " + provenance(p);
}

}  // namespace

CompileLogMapping mapCompileLog(const CompileLog& log, const std::vector<fs::path>& files) {
  CompileLogMapping out;
  FileMatcher matcher(files);
  std::map<std::string, size_t> unmatched;  // log path -> events
  std::set<std::string> ambiguous_paths;
  std::map<fs::path, std::map<std::string, Pending>> pending;  // file -> key -> finding
  std::map<fs::path, std::map<std::string, const GraphBreakEvent*>> first_break;
  size_t internal_only = 0;

  auto mapPath = [&](const std::string& path) -> std::optional<fs::path> {
    bool ambiguous = false;
    auto file = matcher.match(path, ambiguous);
    if (!file) {
      ++unmatched[path];
      if (ambiguous) ambiguous_paths.insert(path);
    }
    return file;
  };

  for (const GraphBreakEvent& e : log.breaks) {
    // The innermost user frame; the break's own location when the log gives no stack.
    std::vector<LogFrame> user;
    for (const LogFrame& f : e.stack)
      if (isUserFrame(f)) user.push_back(f);
    if (user.empty() && isUserFrame(e.at)) user.push_back(e.at);
    if (user.empty()) {
      ++internal_only;
      continue;
    }
    const LogFrame& at = user.back();
    auto file = mapPath(at.file);
    if (!file) continue;
    std::string what = e.gb_type.empty() ? e.reason : e.gb_type;
    std::string key = fmt::format("{}\x1f{}", at.line, what);
    Pending& p = pending[*file][key];
    if (p.count++ == 0) {
      p.finding.kind = rules::RuntimeFinding::Kind::GraphBreak;
      p.finding.line = at.line;
      p.first = e.place;
      first_break[*file][key] = &e;
      // The callers in the same file, innermost first.
      for (size_t i = user.size() - 1; i-- > 0;) {
        bool ambiguous = false;
        if (matcher.match(user[i].file, ambiguous) != file || user[i].function == "<module>") continue;
        std::string fn = user[i].function;
        if (auto resumed = resumeFunction(fn)) fn = resumed->first;
        p.finding.related.emplace_back(user[i].line, fmt::format("the graph break is reached from `{}` here", fn));
      }
    }
    // A break logged in full once and then "details suppressed" counts the same; the full one
    // (with its stack and gb_type) makes the message.
    const GraphBreakEvent*& best = first_break[*file][key];
    if (best->stack.empty() && !e.stack.empty()) best = &e;
    if (e.rank >= 0) p.ranks.insert(e.rank);
    if (!e.compile_id.empty()) addUnique(p.compile_ids, e.compile_id);
  }
  for (auto& [file, by_key] : pending)
    for (auto& [key, p] : by_key) p.finding.message = breakMessage(p, *first_break[file][key]);

  // A compile the limit refused is not a recompile: its id has a limit event.
  std::set<std::pair<int, std::string>> refused;
  for (const RecompileEvent& e : log.recompiles)
    if (e.limit_hit && !e.compile_id.empty()) refused.insert({e.rank, e.compile_id});
  std::map<fs::path, std::map<std::string, Pending>> recompiles;
  for (const RecompileEvent& e : log.recompiles) {
    if (e.function.empty() && e.file.empty()) {
      ++internal_only;
      continue;
    }
    LogFrame fn{e.file, e.first_line, e.function};
    if (!isUserFrame(fn)) {
      ++internal_only;
      continue;
    }
    auto file = mapPath(e.file);
    if (!file) continue;
    std::string key = fmt::format("{}\x1f{}", e.first_line, e.function);
    Pending& p = recompiles[*file][key];
    if (p.function.empty()) {
      p.function = e.function;
      if (auto resumed = resumeFunction(e.function)) p.resumed = resumed->first;
      p.finding.kind = rules::RuntimeFinding::Kind::Recompile;
      p.finding.line = e.first_line;
      p.finding.at_def = true;
      p.first = e.place;
    }
    if (e.limit_hit) {
      p.limit_hit = true;
      if (!e.limit.empty()) p.limit = e.limit;
    }
    else if (!refused.count({e.rank, e.compile_id})) ++p.count;
    for (size_t i = 0; i < e.guards.size(); ++i) {
      addUnique(p.guards, e.guards[i]);
      // The line that installed the guard: the reason's own comment (2.14), else the trace's
      // guard dump of the guard's compile id.
      if (!p.finding.at_def) continue;
      const GuardSource* source = nullptr;
      if (i < e.guard_at.size() && !e.guard_at[i].file.empty()) source = &e.guard_at[i];
      if (!source && i < e.guard_ids.size()) {
        auto sources = log.guard_sources.find({e.rank, e.guard_ids[i]});
        if (sources != log.guard_sources.end())
          if (auto it = sources->second.find(e.guards[i]); it != sources->second.end()) source = &it->second;
      }
      if (!source) continue;
      bool ambiguous = false;
      if (!isUserFrame({source->file, source->line, ""}) || matcher.match(source->file, ambiguous) != file) continue;
      p.finding.line = source->line;
      p.finding.at_def = false;
      p.finding.related.emplace_back(e.first_line, fmt::format("`{}` is the function compiled again", p.function));
    }
    if (e.rank >= 0) p.ranks.insert(e.rank);
    if (!e.compile_id.empty()) addUnique(p.compile_ids, e.compile_id);
    for (const std::string& id : e.guard_ids)
      if (!id.empty()) addUnique(p.compile_ids, id);
  }
  for (auto& [file, by_key] : recompiles)
    for (auto& [key, p] : by_key) {
      p.finding.message = recompileMessage(p);
      pending[file][key + "\x1frecompile"] = std::move(p);
    }

  for (auto& [file, by_key] : pending) {
    auto findings = std::make_shared<rules::RuntimeFindings>();
    std::string all;
    for (auto& [key, p] : by_key) {
      all += fmt::format("{}\x1f{}\x1f{}\x1e", p.finding.line, p.finding.at_def, p.finding.message);
      findings->findings.push_back(std::move(p.finding));
    }
    findings->digest = fmt::format("{:016x}", std::hash<std::string>{}(all));
    out.per_file[file] = std::move(findings);
  }
  for (const auto& [path, count] : unmatched)
    out.notes.push_back(fmt::format("{}: {} {} of the compile log matched no checked file{}", path, count,
                                    count == 1 ? "event" : "events",
                                    ambiguous_paths.count(path) ? " (several checked files match it equally)" : ""));
  if (internal_only > 0)
    out.notes.push_back(fmt::format("{} {} of the compile log lay only in PyTorch's own code, generated code or "
                                    "notebook cells, and {} not reported",
                                    internal_only, internal_only == 1 ? "event" : "events",
                                    internal_only == 1 ? "is" : "are"));
  return out;
}

}  // namespace ptlint::workspace
