// The text log of `TORCH_LOGS="graph_breaks,recompiles"`. With PyTorch's formatter (torch/_logging/
// _internal.py, `TorchLogsFormatter`) every line of a message carries the same prefix,
//   [rank1]:V1204 16:01:02.123456 4242 torch/_dynamo/symbolic_convert.py:444] [0/0] [__graph_breaks] <text>
// (the rank part only once torch.distributed is initialised, the `[compile id]` while compiling,
// the `[__artifact]` part for artifact loggers), so the lines of one message are the consecutive
// lines of one process with one prefix, however several ranks interleave. Without the prefix
// (`TORCH_LOGS_FORMAT="%(message)s"`) a message runs from its first line while the lines that
// follow are indented, blank or the message's own headings.
#include <fmt/format.h>

#include <charconv>
#include <map>

#include "workspace/compile_log.h"
#include "workspace/compile_log_records.h"

namespace ptlint::workspace {
namespace {

using logrecords::Kind;

// Lines kept of one message (a graph break's reason and user stack fit many times over): a
// record that never ends cannot take the memory.
constexpr size_t kMaxRecordLines = 4096;
constexpr size_t kMaxLineBytes = 64u << 10;

struct Prefix {
  int rank = -1;
  std::string_view pid;
  std::string_view header;      // the whole prefix, up to the message
  std::string_view compile_id;  // "" when the line has none
  std::string_view message;
};

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Parses PyTorch's log prefix; false for a line without it.
bool parsePrefix(std::string_view line, Prefix& p) {
  std::string_view rest = line;
  if (rest.starts_with("[rank")) {
    size_t close = rest.find("]:");
    if (close == std::string_view::npos || !allDigits(rest.substr(5, close - 5))) return false;
    std::string_view digits = rest.substr(5, close - 5);
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p.rank);
    if (ec != std::errc()) return false;
    rest.remove_prefix(close + 2);
  }
  // V1204 16:01:02.123456 4242 path:line]
  if (rest.size() < 24 || std::string_view("VIWEC").find(rest[0]) == std::string_view::npos) return false;
  if (!allDigits(rest.substr(1, 4)) || rest[5] != ' ' || rest[8] != ':' || rest[11] != ':' || rest[14] != '.')
    return false;
  size_t pid_end = rest.find(' ', 22);
  if (pid_end == std::string_view::npos || !allDigits(rest.substr(22, pid_end - 22))) return false;
  p.pid = rest.substr(22, pid_end - 22);
  size_t bracket = rest.find("] ", pid_end);
  size_t end_only = rest.size() && rest.back() == ']' ? rest.size() - 1 : std::string_view::npos;
  if (bracket == std::string_view::npos) bracket = end_only;
  if (bracket == std::string_view::npos) return false;
  size_t after = bracket + 1;
  // [compile id] and [__artifact], in that order, each optional.
  while (after + 1 < rest.size() && rest[after] == ' ' && rest[after + 1] == '[') {
    size_t close = rest.find(']', after + 2);
    if (close == std::string_view::npos) break;
    std::string_view inner = rest.substr(after + 2, close - after - 2);
    if (!inner.starts_with("__")) {
      bool id = !inner.empty();
      for (char c : inner)
        if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '!')) id = false;
      if (!id) break;
      p.compile_id = inner;
    }
    after = close + 1;
  }
  p.header = line.substr(0, static_cast<size_t>(rest.data() - line.data()) + after);
  p.message = after < rest.size() ? rest.substr(after + (rest[after] == ' ' ? 1 : 0)) : std::string_view{};
  return true;
}

// Lines that continue a message written without the prefix.
bool continuesPlain(std::string_view line) {
  return line.empty() || line[0] == ' ' || line[0] == '\t' || line.starts_with("Reason:") ||
         line.starts_with("Graph Break Reason:") || line.starts_with("User code traceback:");
}

class TextParser final : public LineSink {
 public:
  TextParser(CompileLog& log, std::string name) : log_(log), name_(std::move(name)) {}

  bool line(std::string_view text, uint64_t number) override {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    Prefix p;
    if (parsePrefix(text, p)) {
      ++prefixed_;
      Stream& s = streams_[{p.rank, std::string(p.pid)}];
      if (!s.lines.empty() && s.header != p.header) flush(s);
      if (s.lines.empty()) {
        s.header = std::string(p.header);
        s.rank = p.rank;
        s.compile_id = std::string(p.compile_id);
        s.first_line = number;
      }
      if (s.lines.size() < kMaxRecordLines) s.lines.emplace_back(p.message.substr(0, kMaxLineBytes));
      return true;
    }
    ++plain_lines_;
    Stream& s = plain_;
    if (!s.lines.empty() && (logrecords::kindOf(text) != Kind::None || !continuesPlain(text))) flush(s);
    if (s.lines.empty()) {
      if (logrecords::kindOf(text) == Kind::None) return true;  // other output of the run
      s.first_line = number;
    }
    if (s.lines.size() < kMaxRecordLines) s.lines.emplace_back(text.substr(0, kMaxLineBytes));
    return true;
  }

  void finish() override {
    for (auto& [key, s] : streams_) flush(s);
    flush(plain_);
    log_.format = prefixed_ > 0 ? "text" : "text without prefix";
    if (prefixed_ > 0 && plain_records_ > 0) log_.format = "text (with and without prefix)";
  }

 private:
  struct Stream {
    std::string header;
    int rank = -1;
    std::string compile_id;
    uint64_t first_line = 0;
    std::vector<std::string> lines;
  };

  void flush(Stream& s) {
    if (s.lines.empty()) return;
    std::vector<std::string_view> lines(s.lines.begin(), s.lines.end());
    Kind kind = logrecords::kindOf(lines.front());
    if (&s == &plain_ && kind != Kind::None) ++plain_records_;
    std::string error;
    LogPlace place{name_, s.first_line};
    if (kind == Kind::GraphBreak) {
      GraphBreakEvent e;
      if (logrecords::parseGraphBreak(lines, e, error)) {
        e.rank = s.rank;
        e.compile_id = s.compile_id;
        e.place = place;
        noteStyle(lines);
        log_.breaks.push_back(std::move(e));
      }
    } else if (kind == Kind::Recompile || kind == Kind::LimitHit) {
      RecompileEvent e;
      bool ok = kind == Kind::Recompile ? logrecords::parseRecompile(lines, e, error)
                                        : logrecords::parseLimitHit(lines, e, error);
      if (ok) {
        e.rank = s.rank;
        e.compile_id = s.compile_id;
        e.place = place;
        log_.recompiles.push_back(std::move(e));
      }
    }
    if (!error.empty() && !log_.error) log_.error = fmt::format("{}:{}: {}", name_, s.first_line, error);
    s.lines.clear();
  }

  void noteStyle(const std::vector<std::string_view>& lines) {
    switch (logrecords::reasonStyleOf(lines)) {
      case logrecords::ReasonStyle::Old: log_.release = "2.4 to 2.6 (`Reason:`)"; break;
      case logrecords::ReasonStyle::New: log_.release = "2.7 or later (`Graph Break Reason:`)"; break;
      case logrecords::ReasonStyle::Unknown: break;
    }
  }

  CompileLog& log_;
  std::string name_;
  std::map<std::pair<int, std::string>, Stream> streams_;
  Stream plain_;
  uint64_t prefixed_ = 0, plain_lines_ = 0, plain_records_ = 0;
};

}  // namespace

std::unique_ptr<LineSink> textLogParser(CompileLog& log, std::string name) {
  return std::make_unique<TextParser>(log, std::move(name));
}

}  // namespace ptlint::workspace
