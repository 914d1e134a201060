// Two hidden switches for measuring and testing the byte-level prefilters, read from the
// environment once (and settable by tests):
// - PTLINT_NO_PREFILTER=1: every shortcut that skips a file, a rule or part of a tree because
//   its bytes or its tree show nothing can be reported there is turned off (every rule's declared
//   `Rule::prefilter()`, its `mayReport` hook, `checkRanges`, project words). The findings must not change:
//   the prefilter oracle test and `scripts/prefilter_oracle.sh` compare both ways.
// - PTLINT_TIMINGS=1: counters printed on stderr at exit: files and bytes each rule's prefilter
//   lets through, what was parsed and why, the time each rule's checks take, and the CPU time of
//   a run's phases (`Scope`).
#pragma once

#include <cstdint>
#include <string_view>

namespace ptlint::analysis {

bool prefiltersDisabled();
void setPrefiltersDisabled(bool disabled);

namespace timings {

bool enabled();
// Adds one event of `bytes` bytes and `ns` nanoseconds under `key` ("parse", "words PTL106").
void add(std::string_view key, uint64_t bytes, uint64_t ns = 0);

// The calling thread's CPU time: the machine's load does not count.
uint64_t nowNs();

// Adds the thread CPU time from construction to destruction under `key` (a literal).
class Scope {
 public:
  explicit Scope(std::string_view key) : key_(key), start_(enabled() ? nowNs() : 0) {}
  ~Scope() {
    if (start_ != 0) add(key_, 0, nowNs() - start_);
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  std::string_view key_;
  uint64_t start_;
};

}  // namespace timings
}  // namespace ptlint::analysis
