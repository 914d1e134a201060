#include "analysis/env_check.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

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

bool isPunct(const std::string& token) {
  return token == "," || token == ":" || token == "[" || token == "]";
}

std::optional<unsigned long long> parseUnsigned(std::string_view text) {
  unsigned long long value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parseDouble(std::string_view text) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

bool isPowerOfTwo(unsigned long long v) { return v != 0 && (v & (v - 1)) == 0; }

struct AllocConfParser {
  const std::vector<std::string>& tokens;
  EnvVarReport& report;
  size_t i = 0;

  void error(const std::string& key, std::string message) {
    report.findings.push_back({Level::Error, key, std::move(message)});
  }
  void warning(const std::string& key, std::string message) {
    report.findings.push_back({Level::Warning, key, std::move(message)});
  }

  // Skips to the `,` that ends the current option (outside brackets), after an error.
  void skipOption() {
    int depth = 0;
    while (i < tokens.size()) {
      if (tokens[i] == "[") ++depth;
      if (tokens[i] == "]" && depth > 0) --depth;
      if (tokens[i] == "," && depth == 0) return;
      ++i;
    }
  }

  void checkBool(const std::string& key, const std::string& value) {
    if (value != "True" && value != "False") {
      error(key, fmt::format("`{}` must be `True` or `False` (capitalised), not `{}`", key, value));
    }
  }

  // roundup_power2_divisions:[256:1,512:2,>:4] — sizes in MB, powers of two; divisions a power
  // of two, or 0 to disable rounding for that interval.
  std::string parseDivisionList(const std::string& key) {
    std::string written = "[";
    ++i;  // past `[`
    bool closed = false;
    while (i < tokens.size()) {
      if (tokens[i] == "]") {
        closed = true;
        written += "]";
        ++i;
        break;
      }
      const std::string& size = tokens[i];
      if (i + 2 >= tokens.size() || tokens[i + 1] != ":" || isPunct(tokens[i + 2])) {
        error(key, fmt::format("`{}` list entries are `size:divisions` (e.g. `[256:1,>:4]`)", key));
        skipOption();
        return written;
      }
      const std::string& divisions = tokens[i + 2];
      written += size + ":" + divisions;
      if (size != ">") {
        auto mb = parseUnsigned(size);
        if (!mb || !isPowerOfTwo(*mb)) {
          error(key, fmt::format("`{}` interval `{}` must be a power of two (in MB) or `>`", key, size));
        }
      }
      auto div = parseUnsigned(divisions);
      if (!div || !(*div == 0 || isPowerOfTwo(*div))) {
        error(key, fmt::format("`{}` divisions `{}` must be a power of two, or 0", key, divisions));
      }
      i += 3;
      if (i < tokens.size() && tokens[i] == ",") {
        written += ",";
        ++i;
      }
    }
    if (!closed) error(key, fmt::format("`{}` list is missing its closing `]`", key));
    return written;
  }

  void parseOption() {
    const std::string& key = tokens[i];
    if (isPunct(key)) {
      error("", fmt::format("expected an option name, found `{}`", key));
      ++i;
      skipOption();
      return;
    }
    ++i;
    if (i >= tokens.size() || tokens[i] != ":") {
      error(key, fmt::format("option `{}` has no value: write `{}:<value>`", key, key));
      skipOption();
      return;
    }
    ++i;
    if (i >= tokens.size() || (isPunct(tokens[i]) && tokens[i] != "[")) {
      error(key, fmt::format("option `{}` has an empty value", key));
      skipOption();
      return;
    }
    for (const auto& entry : report.entries) {
      if (entry.key == key) warning(key, fmt::format("`{}` is given more than once; the last one wins", key));
    }

    std::string value;
    if (tokens[i] == "[") {
      if (key != "roundup_power2_divisions") {
        error(key, fmt::format("`{}` does not take a list", key));
        skipOption();
        report.entries.push_back({key, "[...]"});
        return;
      }
      value = parseDivisionList(key);
      report.entries.push_back({key, value});
    } else {
      value = tokens[i++];
      report.entries.push_back({key, value});
      checkScalar(key, value);
    }
    if (i < tokens.size() && tokens[i] != ",") {
      error(key, fmt::format("unexpected `{}` after the value of `{}` (options are separated by `,`)", tokens[i], key));
      skipOption();
    }
  }

  void checkScalar(const std::string& key, const std::string& value) {
    if (key == "expandable_segments" || key == "pinned_use_cuda_host_register" || key == "release_lock_on_cudamalloc") {
      checkBool(key, value);
    } else if (key == "max_split_size_mb") {
      auto mb = parseUnsigned(value);
      if (!mb) {
        error(key, fmt::format("`max_split_size_mb` must be a whole number of MB, not `{}`", value));
      } else if (*mb <= 20) {
        error(key, fmt::format("`max_split_size_mb` must be > 20 (blocks up to 20 MB are never split), not {}", *mb));
      }
    } else if (key == "garbage_collection_threshold") {
      auto threshold = parseDouble(value);
      if (!threshold || !(*threshold > 0.0 && *threshold < 1.0)) {
        error(key, fmt::format("`garbage_collection_threshold` must be a fraction strictly between 0 and 1, not `{}`", value));
      }
    } else if (key == "roundup_power2_divisions") {
      auto div = parseUnsigned(value);
      if (!div || !isPowerOfTwo(*div)) {
        error(key, fmt::format("`roundup_power2_divisions` must be a power of two (or a `[size:div,...]` list), not `{}`", value));
      }
    } else if (key == "backend") {
      if (value != "native" && value != "cudaMallocAsync") {
        error(key, fmt::format("`backend` must be `native` or `cudaMallocAsync`, not `{}`", value));
      }
    } else if (key == "pinned_num_register_threads") {
      auto n = parseUnsigned(value);
      if (!n || !isPowerOfTwo(*n) || *n > 128) {
        error(key, fmt::format("`pinned_num_register_threads` must be a power of two up to 128, not `{}`", value));
      }
    } else {
      error(key, fmt::format("unknown option `{}`: PyTorch stops with \"Unrecognized CachingAllocator option\" at "
                             "the first CUDA allocation (known: expandable_segments, max_split_size_mb, "
                             "garbage_collection_threshold, roundup_power2_divisions, backend)",
                             key));
    }
  }

  void run() {
    while (i < tokens.size()) {
      if (tokens[i] == ",") {  // an empty option between commas, or a trailing comma: harmless
        ++i;
        continue;
      }
      parseOption();
      if (i < tokens.size() && tokens[i] == ",") ++i;
    }
  }
};

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

EnvVarReport checkAllocConf(std::optional<std::string_view> value) {
  EnvVarReport report;
  report.name = "PYTORCH_CUDA_ALLOC_CONF";
  if (!value) return report;
  report.value = std::string(*value);
  auto tokens = lexAllocConf(*value);
  AllocConfParser parser{tokens, report};
  parser.run();

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
