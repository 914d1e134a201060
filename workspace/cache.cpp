#include "workspace/cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <future>
#include <system_error>

#include "analysis/instrumentation.h"
#include "ptlint/version.h"
#include "rules/runtime_findings.h"
#include "analysis/module_summary.h"
#include "rules/attention_facts.h"
#include "rules/registry.h"
#include "workspace/json_sections.h"
#include "workspace/read_fd.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ptlint::workspace {
namespace {

constexpr int kFormat = 3;

std::string settingsFingerprint(const rules::Settings& s) {
  std::string out;
  auto list = [&](const char* name, const std::vector<std::string>& items) {
    out += name;
    for (const auto& i : items) out += "," + i;
    out += ";";
  };
  list("select", s.select);
  list("extend", s.extend_select);
  list("ignore", s.ignore);
  list("compile", s.compile_decorators);
  out += "torch=" + s.torchRange().str() + ";unsafe=" + (s.unsafe_fixes ? "1" : "0");
  // What other files said about this one: a result depends on them too.
  if (s.project != nullptr) out += ";project=" + s.project->digest;
  // What a compile log says about the file: a result depends on it too.
  if (s.compile_log_given) out += ";runtime=" + (s.runtime ? s.runtime->digest : std::string("none"));
  return out;
}

std::string_view stableCode(std::string_view code) {
  if (code == rules::syntaxErrorMeta().code) return rules::syntaxErrorMeta().code;
  const rules::Rule* rule = rules::findRule(code);
  return rule ? rule->meta().code : std::string_view{};
}

json toJson(const rules::Diagnostic& d) {
  json j = {{"code", d.code}, {"message", d.message}, {"start", d.start}, {"end", d.end},
            {"severity", static_cast<int>(d.severity)}};
  if (!d.help.empty()) j["help"] = d.help;
  if (d.fix) {
    json edits = json::array();
    for (const auto& e : d.fix->edits) edits.push_back({e.start, e.end, e.content});
    j["fix"] = {{"applicability", static_cast<int>(d.fix->applicability)}, {"message", d.fix->message}, {"edits", edits}};
  }
  for (const auto& r : d.related) {
    if (r.path.empty()) j["related"].push_back({r.start, r.end, r.message});
    else j["related"].push_back({r.start, r.end, r.message, r.path, r.line, r.column, r.column_utf16, r.column_bytes});
  }
  if (const auto* attention = rules::findingData<rules::AttentionFacts>(d)) {
    const rules::AttentionFacts& a = *attention;
    j["attention"] = {static_cast<int>(a.scale), a.scale_value,         static_cast<int>(a.mask),
                      a.dropout ? json(*a.dropout) : json(nullptr), static_cast<int>(a.layout), a.softmax_float32,
                      static_cast<int>(a.dtype)};
  }
  return j;
}

// An enum read back from the cache: a value outside the enum was not written by ptlint.
template <typename Enum>
Enum enumFromJson(const json& j, Enum last) {
  int value = j.get<int>();
  if (value < 0 || value > static_cast<int>(last)) throw std::runtime_error("enum out of range in cache");
  return static_cast<Enum>(value);
}

rules::AttentionFacts attentionFromJson(const json& j) {
  using Facts = rules::AttentionFacts;
  if (!j.is_array() || j.size() != 7) throw std::runtime_error("malformed attention facts in cache");
  Facts a;
  a.scale = enumFromJson(j.at(0), Facts::Scale::Expression);
  a.scale_value = j.at(1).get<double>();
  a.mask = enumFromJson(j.at(2), Facts::Mask::Causal);
  if (!j.at(3).is_null()) a.dropout = j.at(3).get<double>();
  else a.dropout.reset();
  a.layout = enumFromJson(j.at(4), Facts::Layout::BTD);
  a.softmax_float32 = j.at(5).get<bool>();
  a.dtype = enumFromJson(j.at(6), Facts::Dtype::BFloat16);
  return a;
}

rules::Diagnostic fromJson(const json& j) {
  rules::Diagnostic d;
  d.code = stableCode(j.at("code").get<std::string>());
  if (d.code.empty()) throw std::runtime_error("unknown rule code in cache");
  d.message = j.at("message").get<std::string>();
  if (j.contains("help")) d.help = j.at("help").get<std::string>();
  d.start = j.at("start").get<uint32_t>();
  d.end = j.at("end").get<uint32_t>();
  d.severity = static_cast<rules::Severity>(j.at("severity").get<int>());
  if (j.contains("fix")) {
    const json& f = j.at("fix");
    quickfix::Fix fix;
    fix.applicability = static_cast<quickfix::Applicability>(f.at("applicability").get<int>());
    fix.message = f.at("message").get<std::string>();
    for (const auto& e : f.at("edits")) fix.edits.push_back({e.at(0).get<uint32_t>(), e.at(1).get<uint32_t>(), e.at(2).get<std::string>()});
    d.fix = std::move(fix);
  }
  if (j.contains("related"))
    for (const auto& r : j.at("related")) {
      rules::RelatedInfo info{r.at(0).get<uint32_t>(), r.at(1).get<uint32_t>(), r.at(2).get<std::string>()};
      if (r.size() == 8) {
        info.path = r.at(3).get<std::string>();
        info.line = r.at(4).get<uint32_t>();
        info.column = r.at(5).get<uint32_t>();
        info.column_utf16 = r.at(6).get<uint32_t>();
        info.column_bytes = r.at(7).get<uint32_t>();
      }
      d.related.push_back(std::move(info));
    }
  if (j.contains("attention"))
    d.data = rules::makeFindingData(attentionFromJson(j.at("attention")));
  return d;
}

// Messages are one line of text: a cache entry carrying control characters (terminal escapes,
// line breaks that would forge output lines) was not written by ptlint.
bool plainText(std::string_view text) {
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

bool validDiagnostic(const rules::Diagnostic& d, uint64_t size) {
  auto range = [&](uint64_t start, uint64_t end) { return start <= end && end <= size; };
  if (!range(d.start, d.end) || static_cast<int>(d.severity) < 0 || static_cast<int>(d.severity) > 3) return false;
  if (!plainText(d.message) || !plainText(d.help) || (d.fix && !plainText(d.fix->message))) return false;
  for (const auto& r : d.related)
    if (!plainText(r.message)) return false;
  if (d.fix) {
    int a = static_cast<int>(d.fix->applicability);
    if (a < 0 || a > 2) return false;
    uint64_t previous_end = 0;
    for (const auto& e : d.fix->edits) {
      if (!range(e.start, e.end) || e.start < previous_end) return false;
      previous_end = e.end;
    }
  }
  // A range in another file is that file's bytes (its position comes precomputed).
  for (const auto& r : d.related)
    if (r.path.empty() ? !range(r.start, r.end) : r.start > r.end) return false;
  return true;
}

// The content size a key records (`<hash>-<size>`), or nullopt for a key not made by keyFor.
std::optional<uint64_t> sizeInKey(const std::string& key) {
  size_t dash = key.rfind('-');
  if (dash == std::string::npos || dash + 1 == key.size() || key.size() - dash > 20) return std::nullopt;
  uint64_t size = 0;
  for (char c : std::string_view(key).substr(dash + 1)) {
    if (c < '0' || c > '9') return std::nullopt;
    size = size * 10 + static_cast<uint64_t>(c - '0');
  }
  return size;
}

constexpr const char* kEntryNames[] = {"results.json", "CACHEDIR.TAG", ".gitignore"};
constexpr size_t kMaxCacheBytes = 256u << 20;  // a larger results.json is not read (and is rewritten)

}  // namespace

const std::string& buildIdentity() {
  static const std::string identity = [] {
    struct stat st {};
    std::string id = kVersion;
    if (::stat("/proc/self/exe", &st) == 0)
      id += fmt::format("-{}-{}.{}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    return id;
  }();
  return identity;
}

std::string ResultsCache::keyFor(std::string_view content, const rules::Settings& settings) {
  // XXH3: stable across runs and machines, and ~10x FNV-1a's speed on a warm run's 15 MB.
  return keyFor(XXH3_64bits(content.data(), content.size()), content.size(), settings);
}

std::string ResultsCache::keyFor(uint64_t content_hash, size_t size, const rules::Settings& settings) {
  // The content's hash first, so that stamped() can read it back.
  std::string fingerprint = settingsFingerprint(settings);
  return fmt::format("{:016x}{:016x}-{}", content_hash, XXH3_64bits(fingerprint.data(), fingerprint.size()), size);
}

namespace {

// The content hash and size a key made by keyFor records (after any prefix ending in '|').
std::optional<std::pair<uint64_t, uint64_t>> contentOfKey(const std::string& key) {
  size_t from = key.rfind('|');
  from = from == std::string::npos ? 0 : from + 1;
  auto size = sizeInKey(key);
  if (!size || key.size() < from + 32) return std::nullopt;
  uint64_t hash = 0;
  for (char c : std::string_view(key).substr(from, 16)) {
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return std::nullopt;
    hash = hash * 16 + static_cast<uint64_t>(digit);
  }
  return std::make_pair(hash, *size);
}

// Coarse file systems keep times to 2 s (FAT), 1 s (HFS+, some network mounts).
constexpr int64_t kTimestampTickNs = 2'000'000'000;

}  // namespace

auto ResultsCache::stamped(const fs::path& path, const Stamp& now) const -> std::optional<Stamped> {
  awaitEntries();
  std::lock_guard lock(mutex_);
  auto it = entries_.find(path.string());
  if (it == entries_.end() || !it->second.stamp || !(*it->second.stamp == now)) return std::nullopt;
  if (now.mtime_ns + kTimestampTickNs >= written_ns_) {
    dirty_ = true;  // written again, later: then the entry is trusted
    return std::nullopt;
  }
  auto content = contentOfKey(it->second.key);
  if (!content) return std::nullopt;
  return Stamped{content->first, static_cast<size_t>(content->second), it->second.asks_project};
}

ResultsCache::~ResultsCache() {
  awaitEntries();
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

void ResultsCache::disable(std::string why) {
  disabled_ = true;
  problem_ = fmt::format("{}: {}; the cache is not used (delete the folder to let ptlint recreate it)",
                         dir_.string(), why);
  entries_.clear();
}

bool ResultsCache::openFolder() {
  // O_PATH: a folder that cannot be listed can still be searched; O_NOFOLLOW: never a symlink.
  dir_fd_ = ::open(dir_.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd_ >= 0) return true;
  disable(errno == ELOOP || errno == ENOTDIR ? "it is a symlink or not a folder" : std::strerror(errno));
  return false;
}

ResultsCache::ResultsCache(fs::path folder) : ResultsCache(Dir{std::move(folder) / ".ptlint_cache"}) {}

ResultsCache::ResultsCache(Dir dir) : dir_(std::move(dir.path)) {
  struct stat st {};
  if (::lstat(dir_.c_str(), &st) != 0) {
    if (errno != ENOENT) disable(std::strerror(errno));
    return;  // created on save
  }
  if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
    disable(S_ISLNK(st.st_mode) ? "it is a symlink" : "it is not a folder");
    return;
  }
  if (!openFolder()) return;
  for (const char* name : kEntryNames) {
    bool found = ::fstatat(dir_fd_, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (found ? !S_ISREG(st.st_mode) : errno != ENOENT) {  // a link, or a folder that cannot be searched
      disable(found ? fmt::format("{} is a symlink or not a regular file", name) : std::string(std::strerror(errno)));
      return;
    }
  }
  int fd = ::openat(dir_fd_, "results.json", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) disable(fmt::format("results.json: {}", std::strerror(errno)));
    return;
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) > kMaxCacheBytes) {
    ::close(fd);
    return;
  }
  written_ns_ = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  // Parsed on a thread of its own while the caller lists the files to check; every use of the
  // entries waits for it (awaitEntries).
  try {
    loaded_ = std::async(std::launch::async, [this, fd] { readEntries(fd); }).share();
  } catch (const std::system_error&) {
    readEntries(fd);  // no thread to be had: read it now
  }
}

void ResultsCache::awaitEntries() const {
  if (loaded_.valid()) loaded_.wait();
}

void ResultsCache::readEntries(int fd) {
  analysis::timings::Scope timing("results cache load");
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) {
    ::close(fd);
    return;
  }
  // Streamed, entry by entry (workspace/json_sections.h): memory follows the entries kept. A
  // foreign build stops the read at its first field.
  bool build_ok = false, format_ok = false;
  JsonSections reader;
  reader.sections = {"entries"};
  reader.on_scalar = [&](const std::string& key, const json& value) {
    if (key == "build") return build_ok = value.is_string() && value.get<std::string>() == buildIdentity();
    if (key == "format") return format_ok = value.is_number_integer() && value.get<int>() == kFormat;
    return true;
  };
  reader.on_member = [&](const std::string&, const std::string& path, json entry) {
    if (!build_ok) return false;  // "build" comes first in what save() writes
    // An entry that does not describe a file of the size its key records is a miss, not a finding.
    try {
      Entry e;
      e.key = entry.at("key").get<std::string>();
      std::optional<uint64_t> size = sizeInKey(e.key);
      if (!size) return true;
      bool valid = true;
      for (const auto& d : entry.at("diagnostics")) {
        e.diagnostics.push_back(fromJson(d));
        valid = valid && validDiagnostic(e.diagnostics.back(), *size);
      }
      if (entry.contains("depends")) e.dependencies = entry.at("depends").get<std::vector<std::string>>();
      if (entry.contains("stamp")) {
        const auto& s = entry.at("stamp");
        e.stamp = Stamp{s.at(0).get<uint64_t>(), s.at(1).get<uint64_t>(), s.at(2).get<int64_t>(), s.at(3).get<int64_t>()};
      }
      if (entry.contains("asks")) e.asks_project = entry.at("asks").get<bool>();
      if (entry.contains("reads"))
        for (const auto& r : entry.at("reads")) e.reads.emplace_back(r.at(0).get<std::string>(), r.at(1).get<uint64_t>());
      if (valid) entries_.emplace(path, std::move(e));
    } catch (const std::exception&) {
    }
    return true;
  };
  bool complete = readJsonSections(file, reader);
  std::fclose(file);
  if (!complete || !build_ok || !format_ok) entries_.clear();  // corrupt or foreign: start over
}

bool ResultsCache::holds(const fs::path& path) const {
  awaitEntries();
  std::lock_guard lock(mutex_);
  return entries_.count(path.string()) != 0;
}

std::optional<std::vector<rules::Diagnostic>> ResultsCache::lookup(const fs::path& path, const std::string& key,
                                                                   const StillRead& still_read,
                                                                   std::vector<std::string>* dependencies) const {
  awaitEntries();
  std::vector<rules::Diagnostic> diagnostics;
  Reads reads;
  {
    std::lock_guard lock(mutex_);
    touched_.insert(path.string());
    auto it = entries_.find(path.string());
    if (it == entries_.end() || it->second.key != key) return std::nullopt;
    diagnostics = it->second.diagnostics;
    reads = it->second.reads;
    if (dependencies) *dependencies = it->second.dependencies;
  }
  for (const auto& [file, hash] : reads)
    if (!still_read || !still_read(file, hash)) return std::nullopt;
  return diagnostics;
}

void ResultsCache::store(const fs::path& path, const std::string& key, const std::vector<rules::Diagnostic>& diagnostics,
                         const std::vector<std::string>& dependencies, Reads reads, std::optional<Stamp> stamp,
                         bool asks_project) {
  awaitEntries();
  std::lock_guard lock(mutex_);
  if (disabled_) return;
  touched_.insert(path.string());
  Entry& e = entries_[path.string()];
  if (e.key == key && e.reads == reads && e.stamp == stamp && e.asks_project == asks_project) return;
  e.key = key;
  e.stamp = stamp;
  e.asks_project = asks_project;
  e.diagnostics = diagnostics;
  e.dependencies = dependencies;
  e.reads = std::move(reads);
  dirty_ = true;
}

namespace {

// Creates `name` inside `dir_fd` only if nothing (not even a dangling symlink) has that name.
void createOnce(int dir_fd, const char* name, std::string_view content) {
  int fd = ::openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return;
  [[maybe_unused]] ssize_t n = ::write(fd, content.data(), content.size());
  ::close(fd);
}

}  // namespace

bool ResultsCache::save() {
  awaitEntries();
  std::lock_guard lock(mutex_);
  if (disabled_) return !dirty_;
  // Entries of files deleted since are dropped (a run that touched every entry stats none).
  for (auto it = entries_.begin(); it != entries_.end();) {
    struct stat st {};
    if (!touched_.count(it->first) && ::lstat(it->first.c_str(), &st) != 0 && errno == ENOENT) {
      it = entries_.erase(it);
      dirty_ = true;
    } else {
      ++it;
    }
  }
  if (!dirty_) return true;
  if (dir_fd_ < 0) {
    if (::mkdir(dir_.c_str(), 0777) != 0 && errno != EEXIST) return false;
    if (!openFolder()) return false;
  }
  createOnce(dir_fd_, "CACHEDIR.TAG",
             "Signature: 8a477f597d28d172789f06886806bc55\n"
             "# This file is a cache directory tag created by ptlint.\n"
             "# For information about cache directory tags see https://bford.info/cachedir/\n");
  createOnce(dir_fd_, ".gitignore", "# Automatically created by ptlint.\n*\n");
  json entries = json::object();
  for (const auto& [path, e] : entries_) {
    json diags = json::array();
    for (const auto& d : e.diagnostics) diags.push_back(toJson(d));
    entries[path] = {{"key", e.key}, {"diagnostics", diags}};
    if (!e.dependencies.empty()) entries[path]["depends"] = e.dependencies;
    if (e.stamp) entries[path]["stamp"] = {e.stamp->size, e.stamp->inode, e.stamp->mtime_ns, e.stamp->ctime_ns};
    if (e.asks_project) entries[path]["asks"] = true;
    if (!e.reads.empty()) {
      json reads = json::array();
      for (const auto& [file, hash] : e.reads) reads.push_back(json::array({file, hash}));
      entries[path]["reads"] = std::move(reads);
    }
  }
  json doc = {{"format", kFormat}, {"build", buildIdentity()}, {"entries", entries}};
  std::string bytes = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    temp = fmt::format("results.json.{}-{}", ::getpid(), attempt);
    fd = ::openat(dir_fd_, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) return false;
  }
  if (fd < 0) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  bool ok = done == bytes.size() && ::fsync(fd) == 0;
  ::close(fd);
  // renameat replaces the name `results.json`; it never writes through a link of that name.
  if (!ok || ::renameat(dir_fd_, temp.c_str(), dir_fd_, "results.json") != 0) {
    ::unlinkat(dir_fd_, temp.c_str(), 0);
    return false;
  }
  dirty_ = false;
  return true;
}

}  // namespace ptlint::workspace
