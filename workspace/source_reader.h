// The one reader of Python sources and notebooks, for `ptlint check`, the project index and the
// server's passes over files on disk: the 16 MB limit, a UTF-8 BOM stripped (and remembered for
// writing back), text that is not valid UTF-8 refused (never repaired: a fix written back must
// not change bytes the user did not see), lone '\r' line ends normalised, and a notebook's code
// cells joined into one Python text.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "workspace/notebook.h"

namespace ptlint::workspace {

// Files (and standard input) above this size are skipped with one clear message (never parsed,
// never fixed).
inline constexpr size_t kMaxFileBytes = 16u * 1024 * 1024;
// The one message for a file over the limit, in every front end, and a test for it.
std::string tooLargeMessage(size_t bytes);
bool isTooLargeMessage(std::string_view error);

// Which file was read: `--fix` writes only if the file is still this one, with these bytes.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  // As fstat gave them before the read (the results cache's stamp).
  uint64_t size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
};

struct SourceFile {
  std::string text;  // UTF-8, without BOM
  bool had_bom = false;
  FileIdentity identity;  // set by readSourceFile
};

// Reads `path` (a regular file, opened without blocking). On failure returns nullopt and sets
// `error` to a sentence naming the reason.
std::optional<SourceFile> readSourceFile(const std::filesystem::path& path, std::string& error);
// The same checks on bytes already read (standard input, an editor's buffer).
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

// A source ready for the linter: `text` is what rules see (a notebook's joined code cells; lone
// '\r' made '\n'), with what is needed to give a fixed text back in the file's own form.
struct LintSource {
  std::string text;
  bool had_bom = false;
  FileIdentity identity;                // zero for bytes not read from disk
  LoneCr endings = LoneCr::None;        // Mixed: lint only (a fixed text could not keep them)
  std::optional<Notebook> notebook;     // set for `.ipynb`
  std::string notebook_bytes;           // the notebook's JSON (without BOM), as read
};

// Decodes `bytes` read for `path` (its extension says whether it is a notebook). On failure
// returns nullopt with `error` set.
std::optional<LintSource> prepareSource(const std::filesystem::path& path, std::string bytes, std::string& error);
// Reads `path` from disk, then as prepareSource.
std::optional<LintSource> readLintSource(const std::filesystem::path& path, std::string& error);

}  // namespace ptlint::workspace
