// Writing source files safely: atomic compare-and-swap writes, stale temporaries removed.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "workspace/source_reader.h"

namespace ptlint::cli {

// Reading lives in workspace/source_reader.h (one reader for the CLI, the project index and the
// server); the names stay usable here.
using workspace::decodeSource;
using workspace::FileIdentity;
using workspace::kMaxFileBytes;
using workspace::LoneCr;
using workspace::normalizeLoneCr;
using workspace::readLimited;
using workspace::readSourceFile;
using workspace::restoreLoneCr;
using workspace::SourceFile;

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
size_t removeStaleTemporaries(const std::vector<std::string>& files);

}  // namespace ptlint::cli
