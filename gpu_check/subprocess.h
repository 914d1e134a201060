// Runs a program as a child process: argv directly (posix_spawn, no shell), stdin fed from a
// string, stdout and stderr captured, killed at a deadline. Used to talk to `ptlint-gpu`.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace ptlint::gpu_check {

struct ChildResult {
  bool started = false;    // false: could not spawn; `error` says why
  bool timed_out = false;  // killed (SIGKILL) at the deadline
  int exit_code = -1;      // when it exited normally
  int term_signal = 0;     // when a signal ended it
  std::string out, err;    // captured; each capped at kMaxCapture bytes
  std::string error;
};

inline constexpr size_t kMaxCapture = 16 * 1024 * 1024;

// `argv[0]` is the program's path (no PATH search). Never throws.
ChildResult runChild(const std::vector<std::string>& argv, const std::string& input,
                     std::chrono::milliseconds timeout);

}  // namespace ptlint::gpu_check
