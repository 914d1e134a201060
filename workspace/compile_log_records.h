// The messages torch.compile logs, read from their lines: the text both the text log (one
// record's lines, prefix removed) and the trace (an artifact's payload) carry. Shared by
// compile_log_text.cpp and compile_log_trace.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "workspace/compile_log.h"

namespace ptlint::workspace::logrecords {

enum class Kind { None, GraphBreak, Recompile, LimitHit };

// What a message whose first line is `first` is.
Kind kindOf(std::string_view first);

// Each returns false with `error` set when the message is cut or garbled (the caller names the
// log line); the event's rank, compile id and place are the caller's.
bool parseGraphBreak(const std::vector<std::string_view>& lines, GraphBreakEvent& out, std::string& error);
bool parseRecompile(const std::vector<std::string_view>& lines, RecompileEvent& out, std::string& error);
bool parseLimitHit(const std::vector<std::string_view>& lines, RecompileEvent& out, std::string& error);

// `  File "/x/y.py", line 12, in fn` -> a frame; false for any other line.
bool parseFrameLine(std::string_view line, LogFrame& frame);

// Splits "0/0: L['x'] == 1" into the compile id and the guard text (the id empty when absent).
std::pair<std::string, std::string> splitCompileId(std::string_view reason);

// One failing guard's text (after its compile id), possibly over several lines: the guard itself
// (before its `  # ` source comment) and, where the text says, the user line that installed it
// (the comment's `PATH:LINE in FN`, or better the `User stack trace:` frame that follows).
void addGuard(RecompileEvent& out, std::string id, const std::vector<std::string_view>& lines);

// Which release wrote a graph-break message: "Reason:" (2.4–2.6) or "Graph Break Reason:" (2.7+).
enum class ReasonStyle { Unknown, Old, New };
ReasonStyle reasonStyleOf(const std::vector<std::string_view>& lines);

std::string_view trim(std::string_view s);

}  // namespace ptlint::workspace::logrecords
