// Target: the project index over a project layout. The input is a set of files, each introduced
// by a line `### <relative path>` (letters, digits, `_`, `.`, `/`; no `..`; at most 48 files, 8
// levels), written to a scratch folder with a `pyproject.toml`; every `.py` file is then linted
// with the rules that ask the index. Invariants: no exception escapes, nothing hangs (the
// graph walks are bounded), every finding lies inside its file, and a second link of the same
// layout gives the same facts.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "rules/linter.h"
#include "workspace/project_index.h"

using namespace ptlint;
namespace fs = std::filesystem;

namespace {

const fs::path& scratchDir() {
  static const fs::path dir = fuzz::makeScratchDir("ptlint-fuzz-project");
  return dir;
}

std::optional<std::string> readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool safeRelative(const std::string& rel) {
  if (rel.empty() || rel.size() > 200 || rel.front() == '/' || rel.find("..") != std::string::npos) return false;
  int levels = 0;
  for (char c : rel) {
    if (c == '/') ++levels;
    else if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return false;
  }
  return levels <= 8 && rel.back() != '/';
}

std::vector<std::pair<std::string, std::string>> layout(std::string_view input) {
  std::vector<std::pair<std::string, std::string>> files;
  size_t pos = 0;
  while (pos < input.size() && files.size() < 48) {
    size_t eol = input.find('\n', pos);
    std::string_view line = input.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? input.size() : eol + 1;
    if (line.starts_with("### ")) {
      std::string rel(line.substr(4));
      if (safeRelative(rel)) files.push_back({rel, ""});
      else files.push_back({"", ""});  // a body to drop
    } else if (!files.empty()) {
      files.back().second.append(line);
      files.back().second += '\n';
    }
  }
  return files;
}

std::string factsOf(workspace::ProjectIndex& index, const std::vector<fs::path>& sources) {
  std::string out;
  for (const fs::path& file : sources) {
    auto text = readText(file);
    if (!text) continue;
    rules::Settings settings;
    settings.select = {"PTL501", "PTL502", "PTL504", "PTL603", "PTL702"};
    if (rules::asksProject(*text, settings)) {
      settings.project = index.factsFor(file);
      out += settings.project->digest + "\n";
    }
    auto parsed = analysis::ParsedFile::parse(*text);
    for (const auto& d : rules::lintFile(parsed, settings).diagnostics)
      fuzz::require(d.start <= d.end && d.end <= text->size(), "finding inside its file", d.start, d.end);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 20)) return 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(scratchDir(), ec)) fs::remove_all(entry.path(), ec);
  std::ofstream(scratchDir() / "pyproject.toml") << "";
  std::vector<fs::path> sources;
  for (const auto& [rel, body] : layout(std::string_view(reinterpret_cast<const char*>(data), size))) {
    if (rel.empty()) continue;
    fs::path path = scratchDir() / rel;
    fs::create_directories(path.parent_path(), ec);
    if (ec) continue;
    std::ofstream(path, std::ios::binary) << body;
    if (path.extension() == ".py") sources.push_back(path);
  }
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  try {
    workspace::ProjectIndex first(readText);
    std::string facts = factsOf(first, sources);
    workspace::ProjectIndex second(readText);
    fuzz::require(factsOf(second, sources) == facts, "a second link gives the same facts");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    fuzz::fail("the project index threw");
  }
  return 0;
}
