#include "workspace/compile_log_records.h"

#include <fmt/format.h>

#include <charconv>

namespace ptlint::workspace::logrecords {
namespace {

constexpr std::string_view kBreakAt = "Graph break in user code at ";
constexpr std::string_view kBreakSuppressed = "Graph break (";  // "(details suppressed)", "(user stack suppressed ...)"
constexpr std::string_view kSkipOld = "Graph break: skip: from user code at:";
constexpr std::string_view kSkipNew = "Graph break: torch.compile cannot properly resume";
constexpr std::string_view kRecompiling = "Recompiling function ";
constexpr std::string_view kLimit = "torch._dynamo hit config.";

bool parseUint(std::string_view text, uint32_t& out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// "F:L" (F may hold ':') -> frame; false when there is no line number.
bool parseFileLine(std::string_view text, LogFrame& frame) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  if (!parseUint(trim(text.substr(colon + 1)), frame.line)) return false;
  frame.file = std::string(text.substr(0, colon));
  return true;
}

// The reason's lines: from the `Reason:` line up to the traceback (or the end).
void readReason(const std::vector<std::string_view>& lines, size_t from, GraphBreakEvent& out) {
  std::vector<std::string_view> reason;
  for (size_t i = from; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.starts_with("User code traceback:")) break;
    LogFrame ignored;
    if (parseFrameLine(line, ignored)) break;
    reason.push_back(line);
  }
  while (!reason.empty() && trim(reason.back()).empty()) reason.pop_back();
  if (reason.empty()) return;
  out.reason = std::string(trim(reason.front()));
  std::string_view previous = trim(reason.front());
  for (size_t i = 1; i < reason.size(); ++i) {
    std::string_view line = trim(reason[i]);
    if (line.starts_with("Explanation:") && out.gb_type.empty()) {
      // The gb_type heads the block the Explanation belongs to (2.14 puts the context first:
      // "Encountered graph break when attempting to trace CALL: ...", then the gb_type).
      out.gb_type = std::string(previous);
      out.explanation = std::string(trim(line.substr(12)));
    }
    if (!line.empty()) previous = line;
    size_t visit = line.find("please visit: ");
    if (visit != std::string_view::npos) {
      out.url = std::string(trim(line.substr(visit + 14)));
      // ".../gb/gb0124.html" -> GB0124
      size_t gb = out.url.rfind("/gb");
      if (gb != std::string::npos) {
        std::string id;
        for (size_t k = gb + 3; k < out.url.size() && std::isdigit(static_cast<unsigned char>(out.url[k])); ++k)
          id += out.url[k];
        if (!id.empty()) out.gb_id = "GB" + id;
      }
    }
  }
}

void readFrames(const std::vector<std::string_view>& lines, size_t from, std::vector<LogFrame>& stack) {
  for (size_t i = from; i < lines.size(); ++i) {
    LogFrame frame;
    if (parseFrameLine(lines[i], frame)) stack.push_back(std::move(frame));
  }
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

Kind kindOf(std::string_view first) {
  if (first.starts_with(kBreakAt) || first.starts_with(kSkipOld) || first.starts_with(kSkipNew)) return Kind::GraphBreak;
  if (first.starts_with(kBreakSuppressed) && first.find(" in user code at ") != std::string_view::npos)
    return Kind::GraphBreak;
  if (first.starts_with(kRecompiling)) return Kind::Recompile;
  if (first.starts_with(kLimit)) return Kind::LimitHit;
  return Kind::None;
}

bool parseFrameLine(std::string_view line, LogFrame& frame) {
  line = trim(line);
  if (!line.starts_with("File \"")) return false;
  size_t close = line.find("\", line ", 6);
  if (close == std::string_view::npos) return false;
  std::string_view rest = line.substr(close + 8);
  size_t comma = rest.find(", in ");
  if (comma == std::string_view::npos || !parseUint(rest.substr(0, comma), frame.line)) return false;
  frame.file = std::string(line.substr(6, close - 6));
  frame.function = std::string(trim(rest.substr(comma + 5)));
  return true;
}

std::pair<std::string, std::string> splitCompileId(std::string_view reason) {
  reason = trim(reason);
  // "0/0: ...", "1/2_1: ...", "!0/0/0: ..." (compiled autograd)
  size_t colon = reason.find(": ");
  if (colon != std::string_view::npos && colon > 0 && colon < 24) {
    std::string_view id = reason.substr(0, colon);
    bool plausible = id.find('/') != std::string_view::npos;
    for (char c : id)
      if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '!')) plausible = false;
    if (plausible) return {std::string(id), std::string(trim(reason.substr(colon + 2)))};
  }
  return {std::string(), std::string(reason)};
}

void addGuard(RecompileEvent& out, std::string id, const std::vector<std::string_view>& lines) {
  if (lines.empty()) return;
  std::string first = splitCompileId(lines.front()).second;
  std::string_view text = first;
  GuardSource at;
  size_t comment = text.find("  # ");
  if (comment != std::string_view::npos) {
    // `GUARD   # SOURCE  # PATH:LINE in FN`: the last comment names the place.
    std::string_view place = trim(text.substr(text.rfind("# ") + 2));
    size_t in = place.rfind(" in ");
    LogFrame frame;
    if (in != std::string_view::npos && parseFileLine(place.substr(0, in), frame)) at = {frame.file, frame.line};
    text = text.substr(0, comment);
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    LogFrame frame;
    if (parseFrameLine(lines[i], frame)) at = {frame.file, frame.line};  // the innermost frame wins
  }
  std::string guard(trim(text));
  if (guard.empty()) return;
  out.guards.push_back(std::move(guard));
  out.guard_ids.push_back(std::move(id));
  out.guard_at.push_back(std::move(at));
}

ReasonStyle reasonStyleOf(const std::vector<std::string_view>& lines) {
  for (std::string_view line : lines) {
    if (line.starts_with("Graph Break Reason:")) return ReasonStyle::New;
    if (line.starts_with("Reason:")) return ReasonStyle::Old;
  }
  return ReasonStyle::Unknown;
}

bool parseGraphBreak(const std::vector<std::string_view>& lines, GraphBreakEvent& out, std::string& error) {
  if (lines.empty()) return error = "an empty graph-break record", false;
  std::string_view first = lines.front();
  if (first.starts_with(kSkipOld) || first.starts_with(kSkipNew)) {
    out.skip_frame = true;
    out.reason = "torch.compile cannot resume after this graph break: the whole frame runs eagerly";
    readFrames(lines, 1, out.stack);
    if (!out.stack.empty()) out.at = out.stack.back();
    return true;
  }
  size_t at = first.find(" in user code at ");
  if (at == std::string_view::npos || !parseFileLine(first.substr(at + 17), out.at))
    return error = "a graph-break record without its `file:line`", false;
  size_t reason_line = lines.size();
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].starts_with("Graph Break Reason:")) {
      out.reason = std::string(trim(lines[i].substr(19)));
      reason_line = i;
      break;
    }
    if (lines[i].starts_with("Reason:")) {
      reason_line = i;
      break;
    }
  }
  if (reason_line == lines.size()) return error = "a graph-break record without its reason (cut short?)", false;
  std::vector<std::string_view> reason_lines(lines.begin() + static_cast<long>(reason_line), lines.end());
  std::string_view head = reason_lines.front();
  reason_lines.front() = head.substr(head.find(':') + 1);
  readReason(reason_lines, 0, out);
  readFrames(lines, reason_line + 1, out.stack);
  return true;
}

bool parseRecompile(const std::vector<std::string_view>& lines, RecompileEvent& out, std::string& error) {
  std::string_view first = lines.front().substr(kRecompiling.size());
  size_t in = first.rfind(" in ");
  LogFrame where;
  if (in == std::string_view::npos || !parseFileLine(first.substr(in + 4), where))
    return error = "a recompile record without its function's `file:line`", false;
  out.function = std::string(first.substr(0, in));
  out.file = where.file;
  out.first_line = where.line;
  bool header = false;
  std::string pending_id;
  std::vector<std::string_view> pending;
  auto flushGuard = [&] {
    if (!pending.empty()) addGuard(out, pending_id, pending);
    pending.clear();
  };
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = trim(lines[i]);
    if (line.starts_with("triggered by the following guard failure")) {
      header = true;
      continue;
    }
    if (line.starts_with("guard ") && line.ends_with("failures:")) continue;  // recompiles_verbose
    if (!line.starts_with("- ")) continue;
    // Each line of a failure is indented with "- " (textwrap.indent): a new failure starts with
    // its compile id, the others continue it (2.14's `User stack trace:` and its frames).
    std::string_view body = lines[i].substr(lines[i].find("- ") + 2);
    auto [id, guard] = splitCompileId(body);
    if (!id.empty() || pending.empty()) {
      flushGuard();
      pending_id = id;
    }
    pending.push_back(body);
  }
  flushGuard();
  if (!header) return error = "a recompile record without its guard failures (cut short?)", false;
  return true;
}

bool parseLimitHit(const std::vector<std::string_view>& lines, RecompileEvent& out, std::string& error) {
  std::string_view first = lines.front().substr(kLimit.size());
  out.limit_hit = true;
  // "cache_size_limit (8)" -> "config.cache_size_limit = 8"
  std::string_view limit = trim(first);
  size_t open = limit.find(" (");
  out.limit = open != std::string_view::npos && limit.ends_with(")")
                  ? fmt::format("config.{} = {}", limit.substr(0, open), limit.substr(open + 2, limit.size() - open - 3))
                  : fmt::format("config.{}", limit);
  bool have_function = false;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = trim(lines[i]);
    if (line.starts_with("function: ")) {
      // function: 'shift' (/work/src/recompile_limit.py:5)
      std::string_view rest = line.substr(10);
      size_t open = rest.find(" (");
      if (open == std::string_view::npos || !rest.ends_with(")")) continue;
      std::string_view name = rest.substr(0, open);
      if (name.size() >= 2 && name.front() == '\'' && name.back() == '\'') name = name.substr(1, name.size() - 2);
      LogFrame where;
      if (!parseFileLine(rest.substr(open + 2, rest.size() - open - 3), where)) continue;
      out.function = std::string(name);
      out.file = where.file;
      out.first_line = where.line;
      have_function = true;
    } else if (line.starts_with("last reason: ")) {
      auto [id, guard] = splitCompileId(line.substr(13));
      if (!guard.empty()) addGuard(out, id, {line.substr(13)});
    }
  }
  if (!have_function) return error = "a recompile-limit record without its function (cut short?)", false;
  return true;
}

}  // namespace ptlint::workspace::logrecords
