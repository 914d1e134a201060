// Files the unit tests read: fixtures, fixture projects and corpora given by the environment.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace ptlint::test_files {

// The whole file, bytes as they are (empty when it cannot be read).
inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The whole file, or nothing when it cannot be read: the reader `workspace::ProjectIndex` takes.
inline std::optional<std::string> readIfPresent(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every `.py` file under `root` of at most `max_bytes`, in a stable order.
inline std::vector<std::filesystem::path> pythonFilesUnder(const std::filesystem::path& root,
                                                           uintmax_t max_bytes = UINTMAX_MAX) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
    if (entry.path().extension() == ".py" && entry.is_regular_file() && entry.file_size() <= max_bytes)
      out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ptlint::test_files
