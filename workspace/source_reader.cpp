#include "workspace/source_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <istream>

#include "analysis/line_index.h"
#include "workspace/read_fd.h"

namespace fs = std::filesystem;

namespace ptlint::workspace {

namespace {
constexpr std::string_view kTooLarge = "skipped: too large (";
}  // namespace

std::string tooLargeMessage(size_t bytes) {
  return std::string(kTooLarge) + std::to_string(bytes) + " bytes; the limit is " + std::to_string(kMaxFileBytes) +
         ")";
}

bool isTooLargeMessage(std::string_view error) { return error.starts_with(kTooLarge); }

std::optional<SourceFile> decodeSource(std::string bytes, std::string& error) {
  SourceFile file;
  if (bytes.size() >= 3 && bytes.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    file.had_bom = true;
    bytes.erase(0, 3);
  }
  if (!analysis::isValidUtf8(bytes)) {
    error = "not valid UTF-8 (ptlint reads Python source as UTF-8)";
    return std::nullopt;
  }
  file.text = std::move(bytes);
  return file;
}

std::optional<SourceFile> readSourceFile(const fs::path& path, std::string& error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    error = "not a regular file";
    return std::nullopt;
  }
  FileIdentity identity{st.st_dev, st.st_ino, static_cast<uint64_t>(st.st_size),
                        static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                        static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec};
  if (static_cast<size_t>(st.st_size) > kMaxFileBytes) {
    ::close(fd);
    error = tooLargeMessage(static_cast<size_t>(st.st_size));
    return std::nullopt;
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  readToFill(fd, bytes);  // an error keeps what was read, as a file that shrank
  ::close(fd);
  auto source = decodeSource(std::move(bytes), error);
  if (source) source->identity = identity;
  return source;
}


LoneCr normalizeLoneCr(std::string& text) {
  size_t first = text.find('\r');
  if (first == std::string::npos) return LoneCr::None;
  bool lone = false, other = text.find('\n') != std::string::npos;
  for (size_t i = first; i < text.size(); ++i) {
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) {
      text[i] = '\n';
      lone = true;
    }
  }
  if (!lone) return LoneCr::None;
  return other ? LoneCr::Mixed : LoneCr::Only;
}

void restoreLoneCr(std::string& text) { std::replace(text.begin(), text.end(), '\n', '\r'); }


std::optional<std::string> readLimited(std::istream& in, std::string& bytes) {
  bytes.clear();
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    bytes.append(buffer, static_cast<size_t>(in.gcount()));
    if (bytes.size() > kMaxFileBytes) return std::nullopt;
  }
  return bytes;
}


namespace {

std::optional<LintSource> fromSourceFile(const fs::path& path, SourceFile source, std::string& error) {
  LintSource out;
  out.had_bom = source.had_bom;
  out.identity = source.identity;
  if (isNotebookPath(path.native())) {
    out.notebook = parseNotebook(source.text, error);
    if (!out.notebook) return std::nullopt;
    out.notebook_bytes = std::move(source.text);
    out.text = out.notebook->joined;
    // The JSON is given back as it came: a notebook with lone '\r' in its cells is linted only.
    if (normalizeLoneCr(out.text) != LoneCr::None) out.endings = LoneCr::Mixed;
    return out;
  }
  out.text = std::move(source.text);
  out.endings = normalizeLoneCr(out.text);
  return out;
}

}  // namespace

std::optional<LintSource> prepareSource(const fs::path& path, std::string bytes, std::string& error) {
  if (bytes.size() > kMaxFileBytes) {
    error = tooLargeMessage(bytes.size());
    return std::nullopt;
  }
  auto source = decodeSource(std::move(bytes), error);
  if (!source) return std::nullopt;
  return fromSourceFile(path, std::move(*source), error);
}

std::optional<LintSource> readLintSource(const fs::path& path, std::string& error) {
  auto source = readSourceFile(path, error);
  if (!source) return std::nullopt;
  return fromSourceFile(path, std::move(*source), error);
}

}  // namespace ptlint::workspace
