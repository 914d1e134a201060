#include "cli/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <istream>
#include <map>
#include <set>

#include "analysis/line_index.h"

namespace fs = std::filesystem;

namespace ptlint::cli {

namespace {

// Reads the whole of `fd` (at most `limit + 1` bytes). Returns nullopt on a read error.
std::optional<std::string> readAll(int fd, size_t limit) {
  std::string bytes;
  char buffer[65536];
  while (bytes.size() <= limit) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  return bytes;
}

std::string modeText(mode_t mode) { return fmt::format("{:04o}", mode & 07777); }

bool isTemporaryName(std::string_view name, std::string_view* source_name) {
  // `.NAME.ptlint-XXXXXX`, the six X as mkstemp fills them.
  constexpr std::string_view kMarker = ".ptlint-";
  if (name.size() < 1 + 1 + kMarker.size() + 6 || name[0] != '.') return false;
  std::string_view suffix = name.substr(name.size() - 6);
  for (char c : suffix)
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  std::string_view rest = name.substr(1, name.size() - 1 - 6);
  if (!rest.ends_with(kMarker)) return false;
  *source_name = rest.substr(0, rest.size() - kMarker.size());
  return !source_name->empty();
}

}  // namespace

bool writeFileAtomically(const fs::path& path, const std::string& bytes, const std::string& original,
                         const FileIdentity& identity, const std::vector<fs::path>& allowed_roots,
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
  if (::lstat(target.c_str(), &st) != 0) {
    error = std::string("not fixed: ") + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "not fixed: it is no longer a regular file";
    return false;
  }
  // Read-only means read-only for root too, as editors and Ruff see it.
  if ((st.st_mode & S_IWUSR) == 0 || ::faccessat(AT_FDCWD, target.c_str(), W_OK, AT_EACCESS) != 0) {
    error = fmt::format("not fixed: the file is read-only (mode {}); make it writable (chmod u+w) to let --fix change it",
                        modeText(st.st_mode));
    return false;
  }
  if (st.st_nlink > 1) {
    error = fmt::format("not fixed: the file has {} hard links, and writing a new file in its place would split them; "
                        "fix one of its names by hand, or give it a single name",
                        st.st_nlink);
    return false;
  }
  std::string tmpl = (target.parent_path() / ("." + target.filename().string() + ".ptlint-XXXXXX")).string();
  int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) {
    error = std::string("not fixed: cannot create a temporary file beside it: ") + std::strerror(errno);
    return false;
  }
  auto give_up = [&](std::string why) {
    ::close(fd);
    ::unlink(tmpl.c_str());
    error = std::move(why);
    return false;
  };
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return give_up(std::string("not fixed: cannot write the fixed copy: ") + std::strerror(n < 0 ? errno : ENOSPC));
    done += static_cast<size_t>(n);
  }
  // Owner and group first (a change of owner clears set-id bits), then the mode.
  if ((st.st_uid != ::geteuid() || st.st_gid != ::getegid()) && ::fchown(fd, st.st_uid, st.st_gid) != 0)
    return give_up(fmt::format("not fixed: the fixed copy cannot be given the file's owner and group ({}:{}): {}",
                               st.st_uid, st.st_gid, std::strerror(errno)));
  if (::fchmod(fd, st.st_mode & 07777) != 0 || ::fsync(fd) != 0)
    return give_up(std::string("not fixed: cannot write the fixed copy: ") + std::strerror(errno));
  // Compare: the file must still be the one that was read, holding the bytes that were read.
  int check_fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  struct stat now {};
  std::optional<std::string> current;
  if (check_fd >= 0) {
    if (::fstat(check_fd, &now) == 0 && S_ISREG(now.st_mode)) current = readAll(check_fd, original.size());
    ::close(check_fd);
  }
  if (!current || now.st_dev != identity.device || now.st_ino != identity.inode || *current != original ||
      now.st_nlink != st.st_nlink || now.st_mode != st.st_mode || now.st_uid != st.st_uid || now.st_gid != st.st_gid)
    return give_up("not fixed: the file changed on disk while ptlint was fixing it; run ptlint again");
  // Swap.
  ::close(fd);
  if (::rename(tmpl.c_str(), target.c_str()) != 0) {
    error = std::string("not fixed: cannot replace it: ") + std::strerror(errno);
    ::unlink(tmpl.c_str());
    return false;
  }
  return true;
}

size_t removeStaleTemporaries(const std::vector<std::string>& files) {
  std::map<std::string, std::set<std::string>> by_folder;
  for (const auto& f : files) {
    size_t slash = f.rfind('/');
    if (slash == std::string::npos) continue;  // absolute paths only
    by_folder[f.substr(0, slash == 0 ? 1 : slash)].insert(f.substr(slash + 1));
  }
  size_t removed = 0;
  for (const auto& [folder, names] : by_folder) {
    DIR* dir = ::opendir(folder.c_str());
    if (dir == nullptr) continue;
    int dir_fd = ::dirfd(dir);
    while (dirent* entry = ::readdir(dir)) {
      std::string_view source_name;
      if (!isTemporaryName(entry->d_name, &source_name) || !names.count(std::string(source_name))) continue;
      struct stat st {};
      if (::fstatat(dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || st.st_nlink != 1) continue;
      if (::unlinkat(dir_fd, entry->d_name, 0) == 0) ++removed;
    }
    ::closedir(dir);
  }
  return removed;
}

}  // namespace ptlint::cli
