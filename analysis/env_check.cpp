#include "analysis/env_check.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/alloc_conf.h"

namespace ptlint::env_check {
namespace {

// Tokens as c10's CUDAAllocatorConfig::lexArgs makes them: `,` `:` `[` `]` stand alone,
// spaces are dropped, anything else accumulates into a word.
std::vector<std::string> lexAllocConf(std::string_view text) {
  std::vector<std::string> tokens;
  std::string word;
  for (char c : text) {
    if (c == ',' || c == ':' || c == '[' || c == ']') {
      if (!word.empty()) tokens.push_back(std::move(word));
      word.clear();
      tokens.emplace_back(1, c);
    } else if (c != ' ') {
      word += c;
    }
  }
  if (!word.empty()) tokens.push_back(std::move(word));
  return tokens;
}

std::optional<unsigned long long> parseUnsigned(std::string_view text) {
  unsigned long long value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// The options as written, for the report and its warnings: `key:value` between top-level commas,
// a bracketed list kept whole. Whether PyTorch accepts them is alloc_conf::check's to say.
std::vector<AllocConfEntry> readEntries(std::string_view text) {
  std::vector<AllocConfEntry> entries;
  auto tokens = lexAllocConf(text);
  size_t i = 0;
  while (i < tokens.size()) {
    if (tokens[i] == "," || tokens[i] == ":" || tokens[i] == "[" || tokens[i] == "]") {
      ++i;
      continue;
    }
    AllocConfEntry entry{tokens[i++], ""};
    if (i < tokens.size() && tokens[i] == ":") ++i;
    int depth = 0;
    while (i < tokens.size() && (depth > 0 || tokens[i] != ",")) {
      if (tokens[i] == "[") ++depth;
      if (tokens[i] == "]" && depth > 0) --depth;
      entry.value += tokens[i++];
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

// The releases whose parser judges the value: the user's own when ptlint models it, else all.
std::vector<alloc_conf::Parser> parsersFor(std::string_view torch_version, std::string_view variable) {
  using alloc_conf::Parser;
  std::vector<Parser> all{Parser::Torch1_13, Parser::Torch2_6, Parser::Torch2_14};
  if (variable == "PYTORCH_ALLOC_CONF") all = {Parser::Torch2_14};
  auto dot = torch_version.find('.');
  if (dot == std::string_view::npos) return all;
  auto major = parseUnsigned(torch_version.substr(0, dot));
  auto rest = torch_version.substr(dot + 1);
  auto minor = parseUnsigned(rest.substr(0, rest.find_first_not_of("0123456789")));
  if (!major || !minor) return all;
  for (auto parser : all) {
    if (alloc_conf::releaseOf(parser) == fmt::format("{}.{}", *major, *minor)) return {parser};
  }
  return all;
}

}  // namespace

std::string_view levelName(Level level) {
  switch (level) {
    case Level::Info: return "info";
    case Level::Warning: return "warning";
    case Level::Error: return "error";
  }
  return "error";
}

bool EnvVarReport::valid() const {
  return std::none_of(findings.begin(), findings.end(), [](const EnvFinding& f) { return f.level == Level::Error; });
}

EnvVarReport checkAllocConf(std::optional<std::string_view> value, std::string_view torch_version,
                            std::string_view variable) {
  EnvVarReport report;
  report.name = std::string(variable);
  if (!value) return report;
  report.value = std::string(*value);
  report.entries = readEntries(*value);

  // PyTorch stops at the first error; each release's parser is modelled apart.
  auto parsers = parsersFor(torch_version, variable);
  std::vector<std::string> accepting;
  std::vector<std::pair<alloc_conf::Parser, alloc_conf::Rejection>> rejections;
  for (auto parser : parsers) {
    if (auto rejection = alloc_conf::check(*value, parser)) {
      rejections.emplace_back(parser, std::move(*rejection));
    } else {
      accepting.emplace_back(alloc_conf::releaseOf(parser));
    }
  }
  // Judged at the user's release, or rejected by every release: the allocator raises. Rejected by
  // some releases only (the user's is unknown): a warning naming them.
  Level level = accepting.empty() ? Level::Error : Level::Warning;
  for (const auto& [parser, rejection] : rejections) {
    std::string message = fmt::format("torch {} rejects it: {}", alloc_conf::releaseOf(parser), rejection.message);
    if (!accepting.empty()) message += fmt::format(" ({} accepts it)", fmt::join(accepting, ", "));
    report.findings.push_back({level, rejection.key, std::move(message)});
  }

  for (size_t i = 0; i < report.entries.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (report.entries[j].key == report.entries[i].key) {
        report.findings.push_back({Level::Warning, report.entries[i].key,
                                   fmt::format("`{}` is given more than once; keep one", report.entries[i].key)});
        break;
      }
    }
  }
  auto has = [&](std::string_view key, std::string_view v) {
    return std::any_of(report.entries.begin(), report.entries.end(),
                       [&](const AllocConfEntry& e) { return e.key == key && e.value == v; });
  };
  if (has("backend", "cudaMallocAsync")) {
    for (const auto& entry : report.entries) {
      if (entry.key != "backend") {
        report.findings.push_back({Level::Warning, entry.key,
                                   fmt::format("`{}` configures the native caching allocator; it has no effect "
                                               "with `backend:cudaMallocAsync`",
                                               entry.key)});
      }
    }
  }
  return report;
}

EnvVarReport checkCublasWorkspaceConfig(std::optional<std::string_view> value) {
  EnvVarReport report;
  report.name = "CUBLAS_WORKSPACE_CONFIG";
  if (!value) {
    report.findings.push_back({Level::Info, "",
                               "not set: `torch.use_deterministic_algorithms(True)` raises on cuBLAS calls "
                               "(CUDA >= 10.2) unless it is `:4096:8` or `:16:8`"});
    return report;
  }
  report.value = std::string(*value);
  if (*value == ":4096:8" || *value == ":16:8") return report;

  // General form: one or more `:SIZE_KIB:COUNT` pairs.
  std::string_view rest = *value;
  bool well_formed = !rest.empty();
  int pairs = 0;
  while (well_formed && !rest.empty()) {
    if (rest.front() != ':') {
      well_formed = false;
      break;
    }
    rest.remove_prefix(1);
    auto colon = rest.find(':');
    if (colon == std::string_view::npos) {
      well_formed = false;
      break;
    }
    auto size = parseUnsigned(rest.substr(0, colon));
    rest.remove_prefix(colon + 1);
    auto next = rest.find(':');
    auto count = parseUnsigned(rest.substr(0, next));
    rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next);
    if (!size || !count || *size == 0 || *count == 0) well_formed = false;
    ++pairs;
  }
  if (!well_formed || pairs == 0) {
    report.findings.push_back({Level::Error, "",
                               fmt::format("`{}` is not of the form `:SIZE_KIB:COUNT` (use `:4096:8` or `:16:8`)",
                                           *value)});
  } else {
    report.findings.push_back({Level::Warning, "",
                               fmt::format("`{}` is well-formed, but deterministic mode accepts only `:4096:8` or "
                                           "`:16:8`; `torch.use_deterministic_algorithms(True)` still raises",
                                           *value)});
  }
  return report;
}

std::optional<std::string> readEnv(const char* name) {
  const char* value = std::getenv(name);
  if (!value) return std::nullopt;
  return std::string(value);
}

}  // namespace ptlint::env_check
