// The structured trace of `TORCH_TRACE` (what tlparse reads; torch/_logging/_internal.py,
// `trace_structured`): one record per line, `<glog prefix>] {"<kind>": <metadata>, "frame_id": F,
// "frame_compile_id": C, "attempt": A, "rank": R}`, its payload on the following lines, each
// starting with a tab. Read here, streaming (only the records below are parsed as JSON; every
// other record and payload is skipped byte-wise):
//   str                    the interned file names the stacks refer to by index
//   compilation_metrics    co_name / co_filename / co_firstlineno of each compile id
//   artifact dynamo_graph_break_reason   the graph break's message (as the text log writes it)
//   artifact recompile_reasons           the failing guards (a JSON list; 2.14 writes a lone
//                                        reason as a plain JSON string)
//   dynamo_cpp_guards_str  the guard tree, one guard a line: `+- KIND: CODE  # SOURCE  # PATH:LINE in FN`
//                          when the guard came from a user line (a path's start may be cut)
//   dynamo_guards          each guard's code and the user stack that installed it (when written)
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <set>

#include "workspace/compile_log.h"
#include "workspace/compile_log_records.h"

namespace ptlint::workspace {
namespace {

using nlohmann::json;

constexpr size_t kMaxPayloadLines = 4096;  // a graph-break message longer than this is cut
constexpr size_t kMaxPayloadBytes = 4u << 20;

class TraceParser final : public LineSink {
 public:
  TraceParser(CompileLog& log, std::string name) : log_(log), name_(std::move(name)) {}

  bool line(std::string_view text, uint64_t number) override {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (!text.empty() && text[0] == '\t') {
      payload(text.substr(1));
      return true;
    }
    endPayload();
    if (text.empty()) return true;
    // `<prefix>] {...}`: the prefix has no '{' (a path could hold "] ", never "] {").
    size_t open = text.find("] {");
    if (open == std::string_view::npos || text.back() != '}') return fail(number, "not a TORCH_TRACE record (cut short or garbled)");
    std::string_view body = text.substr(open + 2);
    // The record's kind is its first key (json.dumps keeps the order trace_structured built).
    if (!body.starts_with("{\"")) return fail(number, "not a TORCH_TRACE record");
    size_t key_end = body.find('"', 2);
    if (key_end == std::string_view::npos) return fail(number, "not a TORCH_TRACE record");
    std::string_view kind = body.substr(2, key_end - 2);
    bool wanted = kind == "str" || kind == "artifact" || kind == "compilation_metrics" || kind == "dynamo_guards" ||
                  kind == "dynamo_cpp_guards_str" || kind == "chromium_event";
    if (!wanted) return true;
    json record = json::parse(body.begin(), body.end(), nullptr, false);
    if (record.is_discarded() || !record.is_object()) return fail(number, "a TORCH_TRACE record that is not valid JSON");
    ++records_;
    record_line_ = number;
    rank_ = record.value("rank", -1);
    compile_id_ = compileIdOf(record);
    if (kind == "str") {
      const json& s = record["str"];
      if (s.is_array() && s.size() == 2 && s[0].is_string() && s[1].is_number_unsigned()) {
        size_t index = s[1].get<size_t>();
        if (index < (1u << 20)) {
          if (strings_.size() <= index) strings_.resize(index + 1);
          strings_[index] = s[0].get<std::string>();
        }
      }
    } else if (kind == "compilation_metrics") {
      const json& m = record["compilation_metrics"];
      // The metrics name their compile id themselves; the record's own is a later attempt's.
      std::string id = m.is_object() && m.contains("compile_id") && m["compile_id"].is_string()
                           ? m["compile_id"].get<std::string>()
                           : compile_id_;
      std::string fail = m.is_object() && m.contains("fail_reason") && m["fail_reason"].is_string()
                             ? m["fail_reason"].get<std::string>()
                             : "";
      if ((m.is_object() && m.contains("fail_type") && m["fail_type"] == "RecompileLimitExceeded") || isLimitReason(fail))
        limitHit(id, limitOf(fail));
      if (m.is_object() && m.contains("co_name") && m["co_name"].is_string()) {
        LogFrame f;
        f.function = m["co_name"].get<std::string>();
        if (m.contains("co_filename") && m["co_filename"].is_string()) f.file = m["co_filename"].get<std::string>();
        if (m.contains("co_firstlineno") && m["co_firstlineno"].is_number_unsigned())
          f.line = m["co_firstlineno"].get<uint32_t>();
        log_.compiled_functions[{rank_, id}] = std::move(f);
      }
    } else if (kind == "dynamo_guards") {
      mode_ = Mode::Guards;
    } else if (kind == "dynamo_cpp_guards_str") {
      mode_ = Mode::GuardTree;
    } else if (kind == "chromium_event") {
      mode_ = Mode::Event;  // 2.6 says that the recompile limit stopped a compile only here
    } else {  // artifact
      const json& a = record["artifact"];
      std::string name = a.is_object() && a.contains("name") && a["name"].is_string() ? a["name"].get<std::string>() : "";
      if (name == "dynamo_graph_break_reason") mode_ = Mode::GraphBreak;
      else if (name == "recompile_reasons") mode_ = Mode::Recompile;
    }
    return true;
  }

  void finish() override {
    endPayload();
    log_.format = "TORCH_TRACE";
    if (records_ == 0 && !log_.error) log_.warnings.push_back(name_ + ": no torch.compile records in this trace");
  }

 private:
  enum class Mode { None, GraphBreak, Recompile, Guards, GuardTree, Event };

  // 2.6: "cache_size_limit reached"; 2.14: "Dynamo recompile limit exceeded ... (currently set to 8) ...
  // Limit type: recompile_limit ...".
  static bool isLimitReason(std::string_view reason) {
    return reason.find("_limit reached") != std::string_view::npos ||
           reason.find("Dynamo recompile limit exceeded") != std::string_view::npos;
  }
  // The limit's name and value: "config.recompile_limit = 8", "config.cache_size_limit".
  static std::string limitOf(std::string_view reason) {
    std::string name, value;
    if (size_t at = reason.find("Limit type: "); at != std::string_view::npos) {
      for (size_t i = at + 12; i < reason.size() && (std::isalnum(static_cast<unsigned char>(reason[i])) || reason[i] == '_'); ++i)
        name += reason[i];
    } else if (size_t end = reason.find("_limit reached"); end != std::string_view::npos) {
      size_t start = end;
      while (start > 0 && (std::isalnum(static_cast<unsigned char>(reason[start - 1])) || reason[start - 1] == '_')) --start;
      name = std::string(reason.substr(start, end + 6 - start));
    }
    if (size_t at = reason.find("(currently set to "); at != std::string_view::npos)
      for (size_t i = at + 18; i < reason.size() && std::isdigit(static_cast<unsigned char>(reason[i])); ++i) value += reason[i];
    if (name.empty()) return "";
    return "config." + name + (value.empty() ? "" : " = " + value);
  }

  // A compile the recompile limit refused: a recompile event that hit the limit.
  void limitHit(const std::string& id, std::string limit) {
    if (!limits_.insert({rank_, id}).second) return;
    RecompileEvent e;
    e.limit_hit = true;
    e.limit = std::move(limit);
    e.rank = rank_;
    e.compile_id = id;
    e.place = {name_, record_line_};
    log_.recompiles.push_back(std::move(e));
  }

  static std::string compileIdOf(const json& record) {
    if (!record.contains("frame_id") || !record.contains("frame_compile_id")) return "";
    const json &f = record["frame_id"], &c = record["frame_compile_id"];
    if (!f.is_number_integer() || !c.is_number_integer()) return "";
    std::string id = fmt::format("{}/{}", f.get<int64_t>(), c.get<int64_t>());
    if (record.contains("compiled_autograd_id") && record["compiled_autograd_id"].is_number_integer())
      id = fmt::format("!{}/{}", record["compiled_autograd_id"].get<int64_t>(), id);
    if (record.contains("attempt") && record["attempt"].is_number_integer() && record["attempt"].get<int64_t>() > 0)
      id += fmt::format("_{}", record["attempt"].get<int64_t>());
    return id;
  }

  bool fail(uint64_t number, std::string_view why) {
    if (!log_.error) log_.error = fmt::format("{}:{}: {}", name_, number, why);
    mode_ = Mode::None;
    return false;  // a garbled trace is not read further: what came before it is kept
  }

  void payload(std::string_view line) {
    switch (mode_) {
      case Mode::None: return;
      case Mode::GraphBreak:
      case Mode::Recompile:
        if (payload_.size() < kMaxPayloadLines && payload_bytes_ + line.size() <= kMaxPayloadBytes) {
          payload_bytes_ += line.size();
          payload_.emplace_back(line);
        }
        return;
      case Mode::Guards: guard(line); return;
      case Mode::GuardTree: guardTreeLine(line); return;
      case Mode::Event:
        if (line.find("\"fail_type\": \"RecompileLimitExceeded\"") != std::string_view::npos) event_limit_ = true;
        if (line.find("\"fail_reason\": \"") != std::string_view::npos && isLimitReason(line)) {
          event_limit_ = true;
          event_reason_ = limitOf(line);
        }
        return;
    }
  }

  // `| | +- LAMBDA_GUARD: 2 <= L['x'].size()[0]  # out = torch.zeros(x.shape[0], width)  # ork/src/x.py:7 in pad_to (...)`
  void guardTreeLine(std::string_view line) {
    size_t node = line.find("+- ");
    if (node == std::string_view::npos) return;
    size_t colon = line.find(": ", node);
    size_t comment = line.find("  # ", node);
    if (colon == std::string_view::npos || comment == std::string_view::npos || comment < colon) return;
    std::string_view code = logrecords::trim(line.substr(colon + 2, comment - colon - 2));
    size_t last = line.rfind("  # ");
    if (last == comment) return;  // one comment: the source line without its place
    std::string_view place = line.substr(last + 4);
    size_t in = place.find(" in ");
    if (in == std::string_view::npos) return;
    std::string_view file_line = place.substr(0, in);
    size_t c = file_line.rfind(':');
    if (c == std::string_view::npos) return;
    GuardSource source;
    source.file = std::string(file_line.substr(0, c));
    for (char ch : file_line.substr(c + 1)) {
      if (ch < '0' || ch > '9') return;
      source.line = source.line * 10 + static_cast<uint32_t>(ch - '0');
    }
    if (source.file.empty() || source.line == 0 || code.empty()) return;
    log_.guard_sources[{rank_, compile_id_}].emplace(std::string(code), std::move(source));
  }

  // One element of the guard list: {"code": ..., "stack": ..., "user_stack": [{"line", "name", "filename"}]}.
  void guard(std::string_view line) {
    if (line.find("\"user_stack\": [") == std::string_view::npos) return;  // no user line to join
    if (line.ends_with(",")) line.remove_suffix(1);
    json g = json::parse(line.begin(), line.end(), nullptr, false);
    if (g.is_discarded() || !g.is_object() || !g.contains("code") || !g["code"].is_string()) return;
    const json& stack = g["user_stack"];
    if (!stack.is_array() || stack.empty()) return;
    const json& last = stack.back();
    GuardSource source;
    if (last.contains("filename") && last["filename"].is_number_unsigned()) {
      size_t index = last["filename"].get<size_t>();
      if (index < strings_.size()) source.file = strings_[index];
    } else if (last.contains("filename") && last["filename"].is_string()) {
      source.file = last["filename"].get<std::string>();
    }
    if (last.contains("line") && last["line"].is_number_unsigned()) source.line = last["line"].get<uint32_t>();
    if (source.file.empty() || source.line == 0) return;
    log_.guard_sources[{rank_, compile_id_}].emplace(std::string(logrecords::trim(g["code"].get<std::string>())), source);
  }

  void endPayload() {
    Mode mode = mode_;
    mode_ = Mode::None;
    if (mode == Mode::Event && event_limit_) limitHit(compile_id_, event_reason_);
    event_limit_ = false;
    event_reason_.clear();
    if (mode == Mode::GraphBreak) {
      std::vector<std::string_view> lines(payload_.begin(), payload_.end());
      // The message, then Python's traceback of the exception (PyTorch's own frames): cut there.
      for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i].starts_with("Traceback (most recent call last)")) {
          lines.resize(i);
          break;
        }
      while (!lines.empty() && logrecords::trim(lines.front()).empty()) lines.erase(lines.begin());
      GraphBreakEvent e;
      std::string error;
      if (!lines.empty() && logrecords::kindOf(lines.front()) == logrecords::Kind::GraphBreak) {
        if (logrecords::parseGraphBreak(lines, e, error)) {
          e.rank = rank_;
          e.compile_id = compile_id_;
          e.place = {name_, record_line_};
          switch (logrecords::reasonStyleOf(lines)) {
            case logrecords::ReasonStyle::Old: log_.release = "2.4 to 2.6 (`Reason:`)"; break;
            case logrecords::ReasonStyle::New: log_.release = "2.7 or later (`Graph Break Reason:`)"; break;
            case logrecords::ReasonStyle::Unknown: break;
          }
          log_.breaks.push_back(std::move(e));
        } else if (!log_.error) {
          log_.error = fmt::format("{}:{}: {}", name_, record_line_, error);
        }
      } else if (!lines.empty()) {
        // A message of a shape this reader does not know (a newer release, a verbose mode).
        log_.best_effort = true;
      }
    } else if (mode == Mode::Recompile) {
      std::string text;
      for (const auto& l : payload_) text += l + "\n";
      json reasons = json::parse(text, nullptr, false);
      RecompileEvent e;
      auto add = [&](std::string_view reason) {
        std::vector<std::string_view> lines;
        for (size_t at = 0; at <= reason.size();) {
          size_t nl = reason.find('\n', at);
          if (nl == std::string_view::npos) nl = reason.size();
          lines.push_back(reason.substr(at, nl - at));
          at = nl + 1;
        }
        while (!lines.empty() && logrecords::trim(lines.back()).empty()) lines.pop_back();
        if (!lines.empty()) logrecords::addGuard(e, logrecords::splitCompileId(lines.front()).first, lines);
      };
      if (reasons.is_array()) {
        for (const json& r : reasons)
          if (r.is_string()) add(r.get<std::string>());
      } else if (reasons.is_string()) {
        add(reasons.get<std::string>());
      } else {
        add(text);  // 2.14 writes a lone reason as it is, not as JSON
      }
      if (!e.guards.empty()) {
        e.rank = rank_;
        e.compile_id = compile_id_;
        e.place = {name_, record_line_};
        log_.recompiles.push_back(std::move(e));  // the function is filled in from the metrics
      }
    }
    payload_.clear();
    payload_bytes_ = 0;
  }

  CompileLog& log_;
  std::string name_;
  std::vector<std::string> strings_;
  Mode mode_ = Mode::None;
  std::vector<std::string> payload_;
  size_t payload_bytes_ = 0;
  int rank_ = -1;
  std::string compile_id_;
  uint64_t record_line_ = 0, records_ = 0;
  std::set<std::pair<int, std::string>> limits_;
  bool event_limit_ = false;
  std::string event_reason_;
};

}  // namespace

std::unique_ptr<LineSink> traceParser(CompileLog& log, std::string name) {
  return std::make_unique<TraceParser>(log, std::move(name));
}

}  // namespace ptlint::workspace
