#include "workspace/cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fstream>
#include <sstream>

#include "ptlint/version.h"
#include "analysis/module_summary.h"
#include "rules/registry.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ptlint::workspace {
namespace {

constexpr int kFormat = 1;

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
  out += "torch=" + s.torch_version.str() + ";unsafe=" + (s.unsafe_fixes ? "1" : "0");
  // What other files said about this one: a result depends on them too.
  if (s.project != nullptr) out += ";project=" + s.project->digest;
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
  if (d.fix) {
    json edits = json::array();
    for (const auto& e : d.fix->edits) edits.push_back({e.start, e.end, e.content});
    j["fix"] = {{"applicability", static_cast<int>(d.fix->applicability)}, {"message", d.fix->message}, {"edits", edits}};
  }
  for (const auto& r : d.related) {
    if (r.path.empty()) j["related"].push_back({r.start, r.end, r.message});
    else j["related"].push_back({r.start, r.end, r.message, r.path, r.line, r.column, r.column_utf16, r.column_bytes});
  }
  for (const auto& [k, v] : d.facts) j["facts"].push_back({k, v});
  return j;
}

rules::Diagnostic fromJson(const json& j) {
  rules::Diagnostic d;
  d.code = stableCode(j.at("code").get<std::string>());
  if (d.code.empty()) throw std::runtime_error("unknown rule code in cache");
  d.message = j.at("message").get<std::string>();
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
  if (j.contains("facts"))
    for (const auto& f : j.at("facts")) d.facts.emplace_back(f.at(0).get<std::string>(), f.at(1).get<std::string>());
  return d;
}

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
  std::string fingerprint = settingsFingerprint(settings);
  uint64_t h = XXH3_64bits_withSeed(content.data(), content.size(), XXH3_64bits(fingerprint.data(), fingerprint.size()));
  return fmt::format("{:016x}-{}", h, content.size());
}

ResultsCache::ResultsCache(fs::path folder) : dir_(std::move(folder) / ".ptlint_cache") {
  std::ifstream in(dir_ / "results.json", std::ios::binary);
  if (!in) return;
  try {
    json doc = json::parse(in);
    if (doc.at("format").get<int>() != kFormat || doc.at("build").get<std::string>() != buildIdentity()) return;
    for (const auto& [path, entry] : doc.at("entries").items()) {
      Entry e;
      e.key = entry.at("key").get<std::string>();
      for (const auto& d : entry.at("diagnostics")) e.diagnostics.push_back(fromJson(d));
      entries_.emplace(path, std::move(e));
    }
  } catch (const std::exception&) {
    entries_.clear();  // corrupt or foreign: start over
  }
}

std::optional<std::vector<rules::Diagnostic>> ResultsCache::lookup(const fs::path& path, const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(path.string());
  if (it == entries_.end() || it->second.key != key) return std::nullopt;
  return it->second.diagnostics;
}

void ResultsCache::store(const fs::path& path, const std::string& key, const std::vector<rules::Diagnostic>& diagnostics) {
  std::lock_guard lock(mutex_);
  Entry& e = entries_[path.string()];
  if (e.key == key) return;
  e.key = key;
  e.diagnostics = diagnostics;
  dirty_ = true;
}

bool ResultsCache::save() {
  std::lock_guard lock(mutex_);
  if (!dirty_) return true;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return false;
  if (!fs::exists(dir_ / "CACHEDIR.TAG")) {
    std::ofstream(dir_ / "CACHEDIR.TAG") << "Signature: 8a477f597d28d172789f06886806bc55\n"
                                         << "# This file is a cache directory tag created by ptlint.\n"
                                         << "# For information about cache directory tags see https://bford.info/cachedir/\n";
    std::ofstream(dir_ / ".gitignore") << "# Automatically created by ptlint.\n*\n";
  }
  json entries = json::object();
  for (const auto& [path, e] : entries_) {
    json diags = json::array();
    for (const auto& d : e.diagnostics) diags.push_back(toJson(d));
    entries[path] = {{"key", e.key}, {"diagnostics", diags}};
  }
  json doc = {{"format", kFormat}, {"build", buildIdentity()}, {"entries", entries}};
  std::string bytes = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string tmpl = (dir_ / "results.json.XXXXXX").string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return false;
  bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmpl.c_str(), (dir_ / "results.json").c_str()) != 0) {
    ::unlink(tmpl.c_str());
    return false;
  }
  dirty_ = false;
  return true;
}

}  // namespace ptlint::workspace
