// The project index's scan cache (project_index.h `useScanCache`): which files hold no compile
// call, by size, inode and times, and the summaries used, by content hash, in
// `<cache folder>/project-scan.json`.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include "analysis/instrumentation.h"
#include "analysis/dynamo_config.h"
#include "analysis/text_search.h"
#include "workspace/cache.h"
#include "workspace/json_sections.h"
#include "workspace/notebook.h"
#include "workspace/project_link.h"
#include "workspace/training_scan.h"

namespace ptlint::analysis {
// The summaries' on-disk form (`.ptlint_cache/project-scan.json`).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(NameRef, kind, name)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SourcePos, start, end, line, column, column_utf16, column_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CallRef, kind, target, attr, at)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FunctionSummary, name, at, disabled, calls, calls_unknown, returns,
                                   returns_unknown, registry_lookup, registers, decorators)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClassSummary::ParameterAttribute, attr, parameter, index)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ClassSummary, name, bases, decorators, methods, attributes, unknown_attributes,
                                   parameter_attributes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Construction::Argument, keyword, index, classes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Construction, callee, arguments, unknown_arguments, at)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CompileSite, kind, target, owner, attr, method, at, parameter_index)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ModuleSummary, imports, definitions, functions, classes, compile_sites, environment,
                                   unknown_compile_sites, constructions, captures_scalars, sets_capture,
                                   sets_capture_at)
}  // namespace ptlint::analysis

namespace ptlint::workspace {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ProjectIndex::EvaluationUse, qualified, called, grad_off_or_unknown, at)

namespace {

int64_t nanoseconds(const struct timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

// Coarse file systems keep times to 2 s (FAT), 1 s (HFS+, some network mounts).
constexpr int64_t kTimestampTickNs = 2'000'000'000;

}  // namespace

bool ProjectIndex::racy(const ScanEntry& entry) const {
  // The mtime alone, as git: a write sets mtime and ctime alike, and a time put back (`touch -r`,
  // `cp -p`) changes the ctime, which the entry must match exactly.
  return entry.mtime_ns + kTimestampTickNs >= scan_cache_written_ns_;
}

ProjectIndex::ScanVerdict ProjectIndex::scanText(std::string_view text, bool code_view) {
  ScanVerdict verdict;
  verdict.may_compile = analysis::mayHoldCompileSite(text, code_view);
  for (std::string_view variable : analysis::indexedEnvironmentVariables())
    verdict.may_set_environment = verdict.may_set_environment || mayWriteVariable(text, variable, code_view);
  // Dynamo's process-wide capture setting is read from the same summaries.
  verdict.may_set_environment = verdict.may_set_environment || analysis::mayHoldCaptureSetting(text);
  verdict.training = trainingWordsOf(text);
  return verdict;
}

ProjectIndex::ScanVerdict ProjectIndex::scanFile(const fs::path& file, std::string& raw) {
  // A notebook on disk is JSON, its code inside strings: only the raw tests apply.
  bool code_view = !isNotebookPath(file.string());
  auto verdictOf = [code_view](std::string_view text) { return scanText(text, code_view); };
  if (overlay_)
    if (auto text = overlay_(file)) return verdictOf(*text);
  std::string key = file.string();
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return {};
  awaitScanCache();
  {
    std::lock_guard lock(mutex_);
    scan_seen_.insert(key);
    auto it = scan_cache_.find(key);
    if (it != scan_cache_.end() && it->second.size == static_cast<uint64_t>(st.st_size) &&
        it->second.inode == static_cast<uint64_t>(st.st_ino) && it->second.mtime_ns == nanoseconds(st.st_mtim) &&
        it->second.ctime_ns == nanoseconds(st.st_ctim)) {
      if (!racy(it->second)) return {it->second.may_compile, it->second.may_set_environment, it->second.training};
      // Racy, and read again below: the cache is written anew, so that once the file is older
      // than a tick its entry is trusted (else a fresh checkout would be read on every run).
      scan_cache_dirty_ = true;
    }
  }
  if (static_cast<size_t>(st.st_size) > max_bytes_ && S_ISREG(st.st_mode)) {
    ScanVerdict verdict;
    verdict.too_large = true;
    return verdict;
  }
  if (!readRaw(file, max_bytes_, raw, st)) return {};
  ScanVerdict verdict = verdictOf(raw);
  std::lock_guard lock(mutex_);
  ScanEntry& entry = scan_cache_[key];
  // A file edited without changing its verdict (the common case) is not worth rewriting the
  // cache for: the next run reads it again, which costs what reading it for its hash costs.
  bool same_verdict = entry.size != 0 && entry.may_compile == verdict.may_compile &&
                      entry.may_set_environment == verdict.may_set_environment && entry.training == verdict.training;
  entry = {static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(st.st_ino), nanoseconds(st.st_mtim),
           nanoseconds(st.st_ctim), verdict.may_compile, verdict.may_set_environment, verdict.training};
  if (!same_verdict) scan_cache_dirty_ = true;
  return verdict;
}

void ProjectIndex::useScanCache(fs::path folder) {
  if (!scan_cache_dir_.empty() || folder.empty()) return;  // one cache folder per index
  scan_cache_dir_ = std::move(folder);
  try {
    scan_cache_loader_ = std::thread([this] { awaitScanCache(); });
  } catch (const std::system_error&) {
    awaitScanCache();  // no thread to be had: read it now
  }
}

void ProjectIndex::awaitScanCache() {
  if (!scan_cache_dir_.empty()) std::call_once(scan_cache_loaded_, [this] { loadScanCache(); });
}

void ProjectIndex::loadScanCache() {
  analysis::timings::Scope timing("project scan cache load");
  // As the results cache: never through a symlink, never a FIFO or device, never unbounded.
  int fd = ::open((scan_cache_dir_ / "project-scan.json").c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  constexpr off_t kMaxScanCacheBytes = 256 << 20;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxScanCacheBytes) {
    ::close(fd);
    return;
  }
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    ::close(fd);
    return;
  }
  // Streamed, member by member (workspace/json_sections.h): memory follows the entries kept,
  // never a DOM of the file. A foreign build stops the read at its first field.
  std::unordered_map<std::string, ScanEntry> entries;
  std::unordered_map<uint64_t, std::shared_ptr<const ModuleSummary>> summaries;
  std::unordered_map<uint64_t, std::shared_ptr<const Strings>> evaluations;
  std::unordered_map<std::string, std::shared_ptr<const EvaluationUses>> uses;
  bool build_ok = false;
  JsonSections reader;
  reader.sections = {"files", "summaries", "evaluations", "uses"};
  reader.on_scalar = [&](const std::string& key, const nlohmann::json& value) {
    if (key == "build") return build_ok = value.is_string() && value.get<std::string>() == buildIdentity();
    return true;
  };
  reader.on_member = [&](const std::string& section, const std::string& name, nlohmann::json e) {
    if (!build_ok) return false;  // "build" comes first in what saveScanCache writes
    try {
      if (section == "files")
        entries[name] = {e.at(0).get<uint64_t>(), e.at(1).get<uint64_t>(), e.at(2).get<int64_t>(),
                         e.at(5).get<int64_t>(), e.at(3).get<bool>(),    e.at(4).get<bool>(),
                         e.at(6).get<uint8_t>()};
      else if (section == "summaries")
        summaries[std::stoull(name, nullptr, 16)] = std::make_shared<const ModuleSummary>(e.get<ModuleSummary>());
      else if (section == "evaluations")
        evaluations[std::stoull(name, nullptr, 16)] = std::make_shared<const Strings>(e.get<Strings>());
      else
        uses[name] = std::make_shared<const EvaluationUses>(e.get<EvaluationUses>());
      return true;
    } catch (const std::exception&) {
      return false;  // a corrupt or foreign file is ignored, never trusted
    }
  };
  bool complete = readJsonSections(file, reader);
  std::fclose(file);
  if (!complete || !build_ok) return;
  std::lock_guard lock(mutex_);
  scan_cache_written_ns_ = nanoseconds(st.st_mtim);
  scan_cache_ = std::move(entries);
  stored_summaries_ = std::move(summaries);
  stored_evaluations_ = std::move(evaluations);
  stored_evaluation_uses_ = std::move(uses);
}

bool ProjectIndex::saveScanCache() {
  awaitScanCache();
  nlohmann::json files = nlohmann::json::object();
  nlohmann::json summaries = nlohmann::json::object();
  nlohmann::json evaluations = nlohmann::json::object();
  nlohmann::json uses = nlohmann::json::object();
  {
    std::lock_guard lock(mutex_);
    if (scan_cache_dir_.empty()) return true;
    // Entries of files gone since (not looked at in this run, and no longer there) are dropped.
    std::unordered_set<std::string> gone;
    for (const auto& [path, e] : scan_cache_) {
      struct stat st {};
      if (!scan_seen_.count(path) && ::lstat(path.c_str(), &st) != 0 && errno == ENOENT) gone.insert(path);
    }
    auto keep = [&](const std::string& path) { return !gone.count(path); };
    // Unchanged when no file was scanned anew, no summary built, every stored summary was used
    // again and no entry dropped: a warm run of an unchanged project writes nothing.
    if (!scan_cache_dirty_ && gone.empty() && summaries_.size() == stored_summaries_.size() &&
        evaluations_.size() == stored_evaluations_.size() && evaluation_uses_.size() == stored_evaluation_uses_.size())
      return true;
    for (const auto& [path, e] : scan_cache_)
      if (keep(path))
        files[path] = {e.size, e.inode, e.mtime_ns, e.may_compile, e.may_set_environment, e.ctime_ns, e.training};
    for (const auto& [hash, summary] : summaries_) summaries[fmt::format("{:016x}", hash)] = *summary;
    for (const auto& [hash, functions] : evaluations_) evaluations[fmt::format("{:016x}", hash)] = *functions;
    for (const auto& [key, found] : evaluation_uses_) uses[key] = *found;
  }
  std::error_code ec;
  fs::create_directories(scan_cache_dir_, ec);
  std::string bytes = nlohmann::json{{"build", buildIdentity()},
                                     {"files", files},
                                     {"summaries", summaries},
                                     {"evaluations", evaluations},
                                     {"uses", uses}}
                          .dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string tmpl = (scan_cache_dir_ / "project-scan.json.XXXXXX").string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return false;
  bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmpl.c_str(), (scan_cache_dir_ / "project-scan.json").c_str()) != 0) {
    ::unlink(tmpl.c_str());
    return false;
  }
  return true;
}

}  // namespace ptlint::workspace
