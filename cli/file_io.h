// Reading and writing source files safely: BOM handling, UTF-8 validation, atomic writes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ptlint::cli {

// Files above this size are skipped with one clear message (never parsed, never fixed).
inline constexpr size_t kMaxFileBytes = 16u * 1024 * 1024;

struct SourceFile {
  std::string text;  // UTF-8, without BOM
  bool had_bom = false;
};

// Reads `path`. On failure returns nullopt and sets `error` to a sentence naming the reason.
std::optional<SourceFile> readSourceFile(const std::filesystem::path& path, std::string& error);
std::optional<SourceFile> decodeSource(std::string bytes, std::string& error);

// Writes `bytes` to `path` atomically (temp file in the same folder, fsync, rename), keeping
// the file mode. When `path` is a symlink, writes its target, but only if that target lies
// inside one of `allowed_roots`. Returns false and sets `error` on failure; the original file
// is then untouched.
bool writeFileAtomically(const std::filesystem::path& path, const std::string& bytes,
                         const std::vector<std::filesystem::path>& allowed_roots, std::string& error);

}  // namespace ptlint::cli
