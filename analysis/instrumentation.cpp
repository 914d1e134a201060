#include "analysis/instrumentation.h"

#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace ptlint::analysis {

namespace {

bool envSet(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

std::atomic<bool>& disabledFlag() {
  static std::atomic<bool> flag{envSet("PTLINT_NO_PREFILTER")};
  return flag;
}

struct Counter {
  uint64_t events = 0, bytes = 0, ns = 0;
};

struct Table {
  std::mutex mutex;
  std::map<std::string, Counter, std::less<>> counters;
};

Table& table() {
  static Table t;
  return t;
}

void printTable() {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  std::fprintf(stderr, "%-34s %10s %14s %12s\n", "timings: counter", "events", "bytes", "ms");
  for (const auto& [key, c] : t.counters)
    std::fprintf(stderr, "%-34s %10llu %14llu %12.1f\n", key.c_str(), static_cast<unsigned long long>(c.events),
                 static_cast<unsigned long long>(c.bytes), static_cast<double>(c.ns) / 1e6);
}

}  // namespace

bool prefiltersDisabled() { return disabledFlag().load(std::memory_order_relaxed); }
void setPrefiltersDisabled(bool disabled) { disabledFlag().store(disabled); }

namespace timings {

bool enabled() {
  static const bool on = [] {
    if (!envSet("PTLINT_TIMINGS")) return false;
    table();  // constructed before the handler is registered, so destroyed after it runs
    std::atexit(printTable);
    return true;
  }();
  return on;
}

uint64_t nowNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

void add(std::string_view key, uint64_t bytes, uint64_t ns) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.counters.find(key);
  if (it == t.counters.end()) it = t.counters.emplace(std::string(key), Counter{}).first;
  ++it->second.events;
  it->second.bytes += bytes;
  it->second.ns += ns;
}

}  // namespace timings
}  // namespace ptlint::analysis
