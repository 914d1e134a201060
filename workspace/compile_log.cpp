#include "workspace/compile_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <unordered_map>

#include "workspace/compile_log_records.h"

namespace fs = std::filesystem;

namespace ptlint::workspace {
namespace {

constexpr size_t kChunk = 1u << 20;

// Text: no NUL byte, valid UTF-8 (ASCII eight bytes at a time: logs are mostly ASCII).
bool validUtf8(std::string_view s) {
  size_t i = 0, size = s.size();
  while (i < size) {
    if (i + 8 <= size) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      // No high bit and no zero byte in the word: eight ASCII characters.
      if ((word & 0x8080808080808080ull) == 0 && ((word - 0x0101010101010101ull) & ~word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == 0) return false;
      ++i;
      continue;
    }
    size_t n = (c & 0xE0) == 0xC0 && c >= 0xC2 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 && c <= 0xF4 ? 3 : 0;
    if (n == 0 || i + n >= size) return false;
    for (size_t k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n + 1;
  }
  return true;
}

// Wraps a parser: refuses lines that are not text (NUL bytes, invalid UTF-8), naming the line.
class TextGuard final : public LineSink {
 public:
  TextGuard(LineSink& inner, CompileLog& log, std::string name) : inner_(inner), log_(log), name_(std::move(name)) {}
  bool line(std::string_view text, uint64_t number) override {
    if (!validUtf8(text)) {
      if (!log_.error) log_.error = fmt::format("{}:{}: not text (binary or garbled bytes)", name_, number);
      return false;
    }
    return inner_.line(text, number);
  }
  void finish() override { inner_.finish(); }

 private:
  LineSink& inner_;
  CompileLog& log_;
  std::string name_;
};

// Is the file a TORCH_TRACE trace? Its first non-empty line is a glog-prefixed JSON record.
bool looksLikeTrace(const fs::path& path) {
  if (path.filename().string().starts_with("dedicated_log_torch_trace")) return true;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char buffer[65536];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  if (n <= 0) return false;
  std::string_view head(buffer, static_cast<size_t>(n));
  while (!head.empty() && head.front() == '\n') head.remove_prefix(1);
  std::string_view first = head.substr(0, head.find('\n'));
  size_t open = first.find("] {\"");
  return open != std::string_view::npos && open < 200 && std::string_view("VIWEC").find(first.empty() ? ' ' : first[0]) != std::string_view::npos;
}

void readOne(const fs::path& file, std::string name, bool trace, CompileLog& log) {
  auto parser = trace ? traceParser(log, name) : textLogParser(log, name);
  TextGuard guard(*parser, log, name);
  if (auto error = streamLines(file, guard)) {
    if (!log.error) log.error = fmt::format("{}: {}", name, *error);
  }
  guard.finish();
  log.files.push_back(std::move(name));
}

// The trace's recompiles name no function: it is the one compiled under the guard's compile id
// (same frame id: the same code object).
void fillTraceFunctions(CompileLog& log) {
  for (RecompileEvent& e : log.recompiles) {
    if (!e.function.empty()) continue;
    std::vector<std::string> ids = e.guard_ids;
    ids.push_back(e.compile_id);
    const LogFrame* found = nullptr;
    for (const std::string& id : ids) {
      auto it = log.compiled_functions.find({e.rank, id});
      if (it != log.compiled_functions.end()) {
        found = &it->second;
        break;
      }
    }
    // Else any compile of the same frame ("0/8" -> "0/..."): the same code object.
    std::string frame = e.compile_id.substr(0, e.compile_id.find('/') + 1);
    for (auto it = log.compiled_functions.begin(); !found && !frame.empty() && it != log.compiled_functions.end(); ++it)
      if (it->first.first == e.rank && it->first.second.starts_with(frame)) found = &it->second;
    if (found) {
      e.function = found->function;
      e.file = found->file;
      e.first_line = found->line;
    }
  }
}

}  // namespace

std::optional<std::string> streamLines(const fs::path& path, LineSink& sink, size_t max_line) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fmt::format("cannot open: {}", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return std::string("not a regular file");
  }
  std::string carry;  // the start of a line the last buffer cut
  std::vector<char> buffer(kChunk);
  uint64_t number = 0;
  bool stopped = false, cut = false;
  std::optional<std::string> error;
  for (;;) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      error = fmt::format("read failed: {}", std::strerror(errno));
      break;
    }
    if (n == 0) break;
    std::string_view data(buffer.data(), static_cast<size_t>(n));
    while (!data.empty() && !stopped) {
      size_t nl = data.find('\n');
      if (nl == std::string_view::npos) {
        if (carry.size() < max_line) carry.append(data.substr(0, std::min(data.size(), max_line - carry.size())));
        else cut = true;
        break;
      }
      ++number;
      if (carry.empty() && !cut) {
        stopped = !sink.line(data.substr(0, nl), number);
      } else {
        if (carry.size() < max_line) carry.append(data.substr(0, std::min(nl, max_line - carry.size())));
        stopped = !sink.line(carry, number);
        carry.clear();
        cut = false;
      }
      data.remove_prefix(nl + 1);
    }
    if (stopped) break;
  }
  if (!stopped && !error && (!carry.empty() || cut)) sink.line(carry, ++number);  // a last line without '\n'
  ::close(fd);
  return error;
}

CompileLog readCompileLog(const fs::path& path) {
  CompileLog log;
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    log.error = fmt::format("{}: no such file or folder", path.string());
    return log;
  }
  if (fs::is_directory(status)) {
    std::vector<fs::path> files;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code fec;
      if (it->is_regular_file(fec) && it->path().extension() == ".log") files.push_back(it->path());
    }
    if (ec) {
      log.error = fmt::format("{}: cannot list the folder: {}", path.string(), ec.message());
      return log;
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
      log.error = fmt::format("{}: no trace files (*.log) in this folder; is it the TORCH_TRACE folder?", path.string());
      return log;
    }
    for (const fs::path& file : files) readOne(file, (path / file.filename()).string(), looksLikeTrace(file), log);
    log.format = "TORCH_TRACE";
  } else {
    readOne(path, path.string(), looksLikeTrace(path), log);
  }
  fillTraceFunctions(log);
  if (log.breaks.empty() && log.recompiles.empty() && !log.error)
    log.warnings.push_back(fmt::format("{}: no graph break or recompile in this log (was it written with "
                                       "TORCH_LOGS=\"graph_breaks,recompiles\" or TORCH_TRACE?)",
                                       path.string()));
  if (log.release.empty() && !log.breaks.empty()) log.best_effort = true;
  return log;
}

bool isUserFrame(const LogFrame& frame) {
  std::string_view f = frame.file;
  if (f.empty() || f.front() == '<') return false;  // <eval_with_key>.3, <string>, <frozen ...>, <ipython-input-...>
  if (f.find("/ipykernel_") != std::string_view::npos || f.find("/ipython-input-") != std::string_view::npos)
    return false;  // notebook cells
  for (std::string_view internal : {"-packages/torch/", "/torch/_dynamo/", "/torch/_inductor/", "/torch/_functorch/",
                                    "/torch/nn/", "/torch/fx/", "/torch/utils/", "/torch/distributed/",
                                    "/torch/autograd/", "/torch/_tensor.py", "/torch/functional.py",
                                    "/torch/_ops.py", "/torch/_compile.py", "/torch/__init__.py"})
    if (f.find(internal) != std::string_view::npos) return false;
  return true;
}

std::optional<std::pair<std::string, uint32_t>> resumeFunction(std::string_view name) {
  constexpr std::string_view kResume = "torch_dynamo_resume_in_";
  if (!name.starts_with(kResume)) return std::nullopt;
  std::string_view rest = name.substr(kResume.size());
  size_t at = rest.rfind("_at_");
  if (at == std::string_view::npos) return std::nullopt;
  uint32_t line = 0;
  for (char c : rest.substr(at + 4)) {
    if (c < '0' || c > '9') return std::nullopt;
    line = line * 10 + static_cast<uint32_t>(c - '0');
  }
  return std::make_pair(std::string(rest.substr(0, at)), line);
}

}  // namespace ptlint::workspace
