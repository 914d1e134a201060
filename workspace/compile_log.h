// torch.compile's own logs, read: the graph breaks and recompiles of a real run, from
//   - a text log of `TORCH_LOGS="graph_breaks,recompiles"` (stderr of the run, with PyTorch's
//     logging prefix `[rank0]:V1204 16:01:02.123456 1234 torch/_dynamo/x.py:444] [0/0] ...` or
//     without it, several ranks interleaved), read by compile_log_text.cpp;
//   - the structured trace of `TORCH_TRACE` (a folder of `dedicated_log_torch_trace_*.log`, or one
//     such file: one glog-prefixed JSON record per line, payload lines after it starting with a
//     tab), read by compile_log_trace.cpp.
// Both are streamed line by line (a 100 MB trace is never held whole). What each PyTorch release
// writes is tabled in docs/compile-logs.md. Then `mapCompileLog` maps the absolute paths of the
// machine that ran to the checked files (longest common path suffix) and makes the per-file
// findings the runtime rules report (rules/runtime_findings.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rules/runtime_findings.h"

namespace ptlint::workspace {

struct LogFrame {
  std::string file;  // as the log writes it (absolute, on the machine that ran)
  uint32_t line = 0;
  std::string function;
};

// Where a record was read: the log file and its 1-based line.
struct LogPlace {
  std::string log;
  uint64_t line = 0;
};

struct GraphBreakEvent {
  std::vector<LogFrame> stack;  // user frames, outermost first; the break is on the last
  LogFrame at;                  // the location the log names ("Graph break in user code at F:L")
  std::string reason;           // the reason's first line (2.7+: the gb_type)
  std::string explanation;      // 2.7+: the Explanation line
  std::string gb_type, gb_id, url;
  std::string compile_id;       // "0/1" as the log prints it ("" when it does not say)
  int rank = -1;
  bool skip_frame = false;      // the whole frame fell back to eager ("Graph break: skip")
  LogPlace place;
};

// A guard installed by a compile id, with the user line that installed it (from the trace's guard dump, or
// the failing guard's own comment).
struct GuardSource {
  std::string file;
  uint32_t line = 0;
};

struct RecompileEvent {
  std::string function;      // co_name (a resume function's name as written)
  std::string file;          // co_filename
  uint32_t first_line = 0;   // co_firstlineno
  std::vector<std::string> guards;  // failing guards, without their "0/0: " compile id
  std::vector<std::string> guard_ids;  // the compile ids the failing guards belonged to
  // Where each failing guard was installed, when the reason says (2.14: `GUARD  # SRC  # PATH:LINE in FN`
  // and a `User stack trace:`); an empty file where it does not.
  std::vector<GuardSource> guard_at;
  std::string compile_id;    // the compile id of the recompilation, when known
  int rank = -1;
  bool limit_hit = false;    // "torch._dynamo hit config.<limit> (N)"
  std::string limit;         // "cache_size_limit (8)"
  LogPlace place;
};

struct CompileLog {
  std::vector<std::string> files;  // the log files read
  std::string format;              // "text", "text without prefix", "TORCH_TRACE"
  // The releases whose format the log matches ("2.7 or later" ...); empty when nothing told.
  std::string release;
  bool best_effort = false;        // records of a shape no known release writes were read
  std::vector<GraphBreakEvent> breaks;
  std::vector<RecompileEvent> recompiles;
  // (rank, compile id) -> guard text -> where it was installed (from the trace's guard dumps).
  std::map<std::pair<int, std::string>, std::map<std::string, GuardSource>> guard_sources;
  // (rank, compile id) -> the compiled function (from the trace: frame, first line).
  std::map<std::pair<int, std::string>, LogFrame> compiled_functions;
  std::vector<std::string> warnings;  // notes for the user (best effort, skipped frames, ...)
  // The first unreadable record: "<log>:<line>: <why>". What was read before it is kept.
  std::optional<std::string> error;
};

// Reads a text log, a trace file or a TORCH_TRACE folder. Never throws; I/O failures and
// garbled input are `error`.
CompileLog readCompileLog(const std::filesystem::path& path);

// The parsers, for one stream of lines each (compile_log_text.cpp, compile_log_trace.cpp).
class LineSink {
 public:
  virtual ~LineSink() = default;
  // One line without its '\n'; false stops the reading (an error was recorded).
  virtual bool line(std::string_view text, uint64_t number) = 0;
  virtual void finish() = 0;
};
std::unique_ptr<LineSink> textLogParser(CompileLog& log, std::string name);
std::unique_ptr<LineSink> traceParser(CompileLog& log, std::string name);

// Feeds `path`'s lines to `sink`, a buffer at a time (bounded memory; a line longer than
// `max_line` is cut there). Returns an I/O error message, or nullopt.
std::optional<std::string> streamLines(const std::filesystem::path& path, LineSink& sink,
                                       size_t max_line = 64u << 20);

// Shared by both parsers: frames that are not the user's code (PyTorch's own files,
// `<eval_with_key>` generated code, notebook cells, Python's `<string>`).
bool isUserFrame(const LogFrame& frame);
// `torch_dynamo_resume_in_scale_at_7` -> {"scale", 7}; nullopt for any other name.
std::optional<std::pair<std::string, uint32_t>> resumeFunction(std::string_view name);

// The log's findings mapped to `files` (absolute paths of the checked files).
struct CompileLogMapping {
  std::map<std::filesystem::path, std::shared_ptr<const rules::RuntimeFindings>> per_file;
  std::vector<std::string> notes;  // log paths that matched no checked file, ambiguous ones, ...
};
CompileLogMapping mapCompileLog(const CompileLog& log, const std::vector<std::filesystem::path>& files);

}  // namespace ptlint::workspace
