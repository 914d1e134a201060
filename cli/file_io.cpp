#include "cli/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "analysis/line_index.h"

namespace fs = std::filesystem;

namespace ptlint::cli {

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
  if (static_cast<size_t>(st.st_size) > kMaxFileBytes) {
    ::close(fd);
    error = "skipped: too large (" + std::to_string(st.st_size) + " bytes; the limit is " +
            std::to_string(kMaxFileBytes) + ")";
    return std::nullopt;
  }
  std::string bytes;
  bytes.resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  bytes.resize(done);
  return decodeSource(std::move(bytes), error);
}

bool writeFileAtomically(const fs::path& path, const std::string& bytes, const std::vector<fs::path>& allowed_roots,
                         std::string& error) {
  std::error_code ec;
  fs::path target = path;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    target = fs::canonical(path, ec);
    if (ec) {
      error = "cannot resolve symlink: " + ec.message();
      return false;
    }
    bool inside = false;
    for (const auto& root : allowed_roots) {
      // A root that is itself a symlink (`ptlint check --fix link.py`) stands for the link, not
      // for where it points: resolving it would let its own target count as inside.
      fs::path canonical_root = fs::is_symlink(fs::symlink_status(root, ec))
                                    ? fs::weakly_canonical(root.parent_path(), ec) / root.filename()
                                    : fs::weakly_canonical(root, ec);
      auto rel = target.lexically_relative(canonical_root);
      if (!rel.empty() && !rel.native().starts_with("..")) inside = true;
    }
    if (!inside) {
      error = "not fixed: it is a symlink to " + target.string() + ", outside the paths being checked";
      return false;
    }
  }
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    error = std::strerror(errno);
    return false;
  }
  std::string tmpl = (target.parent_path() / ("." + target.filename().string() + ".ptlint-XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    error = std::string("cannot create a temporary file: ") + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  bool ok = true;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) { ok = false; break; }
    done += static_cast<size_t>(n);
  }
  ok = ok && ::fchmod(fd, st.st_mode & 07777) == 0;
  ok = ok && ::fsync(fd) == 0;
  int saved = errno;
  ::close(fd);
  if (!ok || ::rename(tmpl.c_str(), target.c_str()) != 0) {
    error = std::string("cannot write: ") + std::strerror(ok ? errno : saved);
    ::unlink(tmpl.c_str());
    return false;
  }
  return true;
}

}  // namespace ptlint::cli
