// Reading and writing source files safely: BOM handling, UTF-8 validation, atomic writes.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace ptlint::cli {

// Files above this size are skipped with one clear message (never parsed, never fixed).
inline constexpr size_t kMaxFileBytes = 16u * 1024 * 1024;

// Which file was read: `--fix` writes only if the file is still this one, with these bytes.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
};

struct SourceFile {
  std::string text;  // UTF-8, without BOM
  bool had_bom = false;
  FileIdentity identity;  // set by readSourceFile
};

// Reads `path`. On failure returns nullopt and sets `error` to a sentence naming the reason.
std::optional<SourceFile> readSourceFile(const std::filesystem::path& path, std::string& error);
std::optional<SourceFile> decodeSource(std::string bytes, std::string& error);

// Python ends a line at "\n", "\r\n" or a lone "\r"; the engine (tree-sitter, rows, rules
// that look for line starts) knows the first two. `normalizeLoneCr` turns each lone '\r' into
// '\n' (same length: every offset stays valid) and says what the file held; a file that ended
// every line with a lone '\r' gets its fixed text back with `restoreLoneCr` ('\n' -> '\r').
enum class LoneCr { None, Only, Mixed };
LoneCr normalizeLoneCr(std::string& text);
void restoreLoneCr(std::string& text);

// Reads standard input up to kMaxFileBytes. Returns nullopt when it holds more, with `bytes`
// holding what was read so far.
std::optional<std::string> readLimited(std::istream& in, std::string& bytes);

// Replaces `path`, which was read as `original` from the file `identity`, by `bytes`: a
// compare-and-swap. The new text goes to a temporary sibling (`.NAME.ptlint-XXXXXX`) that gets
// the file's owner, group and mode and is fsynced; just before the rename the file is re-read,
// and nothing is written when it is no longer the same file with the same bytes. Refused as
// well: a read-only file (no write permission for its owner, even for root, or none for the
// caller), a file with several hard links (a rename would split them), an owner or group that
// cannot be kept. When `path` is a symlink, its target is written, but only if that target lies
// inside one of `allowed_roots`. Returns false and sets `error` (a sentence saying why and what
// to do) on failure; the file is then untouched.
bool writeFileAtomically(const std::filesystem::path& path, const std::string& bytes, const std::string& original,
                         const FileIdentity& identity, const std::vector<std::filesystem::path>& allowed_roots,
                         std::string& error);

// Deletes the temporary files that an interrupted `--fix` left beside `files`: regular files
// (never symlinks) owned by this user and named exactly `.NAME.ptlint-XXXXXX` for a NAME in
// `files`. Returns how many were deleted.
size_t removeStaleTemporaries(const std::vector<std::filesystem::path>& files);

}  // namespace ptlint::cli
