#include "analysis/alloc_conf.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fmt/format.h>
#include <vector>

namespace ptlint::alloc_conf {
namespace {

// What a key's value must be, per release.
enum class Value {
  Bool,              // `True` or `False`, exactly
  SplitSizeMb,       // max_split_size_mb / max_non_split_rounding_mb: a size in MB, with a minimum
  GcThreshold,       // a double strictly between 0 and 1
  RoundupDivisions,  // a power of two, or (2.6, 2.14) a `[size:div,...,>:div]` list
  Backend,           // native | cudaMallocAsync
  AnyInt,            // parsed as a number, any value (1.13's roundup_bypass_threshold_mb)
  RegisterThreads,   // a power of two, at most 128
  PositiveSize,      // a size greater than 0
  LargeSegment,      // a size greater than 10 (MB)
  AnySize,           // parsed as a size, any value
  Unchecked,         // a key this release knows whose value check was not read: any value
};

struct KeyRule {
  std::string_view key;
  Value value;
};

// 1.13: c10/cuda/CUDACachingAllocator.cpp, CachingAllocatorConfig::parseArgs — four keys, each
// value parsed with `stoi` (max_split_size_mb `> 20`) or `stod`; anything else is
// "Unrecognized CachingAllocator option". No `backend`, no `expandable_segments`, no list form.
constexpr std::array kKeys1_13{
    KeyRule{"max_split_size_mb", Value::SplitSizeMb},
    KeyRule{"roundup_power2_divisions", Value::RoundupDivisions},
    KeyRule{"roundup_bypass_threshold_mb", Value::AnyInt},
    KeyRule{"garbage_collection_threshold", Value::GcThreshold},
};

// 2.6: c10/cuda/CUDAAllocatorConfig.cpp, CUDAAllocatorConfig::parseArgs (the keys match the
// `parse...` members of 2.6's CUDAAllocatorConfig.h); numbers with `stoi`, max_split_size_mb and
// max_non_split_rounding_mb `> 20`; roundup_bypass_threshold_mb is gone.
constexpr std::array kKeys2_6{
    KeyRule{"max_split_size_mb", Value::SplitSizeMb},
    KeyRule{"max_non_split_rounding_mb", Value::SplitSizeMb},
    KeyRule{"garbage_collection_threshold", Value::GcThreshold},
    KeyRule{"roundup_power2_divisions", Value::RoundupDivisions},
    KeyRule{"backend", Value::Backend},
    KeyRule{"expandable_segments", Value::Bool},
    KeyRule{"release_lock_on_cudamalloc", Value::Bool},
    KeyRule{"release_lock_on_hipmalloc", Value::Bool},
    KeyRule{"pinned_use_cuda_host_register", Value::Bool},
    KeyRule{"pinned_use_hip_host_register", Value::Bool},
    KeyRule{"pinned_num_register_threads", Value::RegisterThreads},
    KeyRule{"pinned_use_background_threads", Value::Bool},
};

// 2.14, first pass: c10/core/AllocatorConfig.cpp, AcceleratorAllocatorConfig::parseArgs (numbers
// with `stoull`; max_split_size_mb and max_non_split_rounding_mb `>= 20`, the large segment size;
// large_segment_size_mb `> 10`). Keys it does not own are skipped here and judged by the CUDA pass.
constexpr std::array kDeviceKeys2_14{
    KeyRule{"large_segment_size_mb", Value::LargeSegment},
    KeyRule{"max_split_size_mb", Value::SplitSizeMb},
    KeyRule{"max_non_split_rounding_mb", Value::SplitSizeMb},
    KeyRule{"garbage_collection_threshold", Value::GcThreshold},
    KeyRule{"roundup_power2_divisions", Value::RoundupDivisions},
    KeyRule{"expandable_segments", Value::Bool},
    KeyRule{"pinned_use_background_threads", Value::Bool},
    KeyRule{"pinned_max_round_threshold_mb", Value::AnySize},
    KeyRule{"pinned_max_cached_size_mb", Value::AnySize},
};

// 2.14, second pass: c10/cuda/CUDAAllocatorConfig.{h,cpp}, CUDAAllocatorConfig::parseArgs and
// getKeys(): a key neither list holds is "Unrecognized key ... in CUDA allocator config".
// per_process_memory_fraction, pinned_free_catch_all and throw_on_cudamalloc_oom have parsers
// whose checks were not read: their values are not judged.
constexpr std::array kCudaKeys2_14{
    KeyRule{"backend", Value::Backend},
    KeyRule{"release_lock_on_cudamalloc", Value::Bool},
    KeyRule{"release_lock_on_hipmalloc", Value::Bool},
    KeyRule{"pinned_use_cuda_host_register", Value::Bool},
    KeyRule{"pinned_use_hip_host_register", Value::Bool},
    KeyRule{"pinned_num_register_threads", Value::RegisterThreads},
    KeyRule{"pinned_reserve_segment_size_mb", Value::PositiveSize},
    KeyRule{"graph_capture_record_stream_reuse", Value::Bool},
    KeyRule{"per_process_memory_fraction", Value::Unchecked},
    KeyRule{"pinned_free_catch_all", Value::Unchecked},
    KeyRule{"throw_on_cudamalloc_oom", Value::Unchecked},
};

template <size_t N>
const KeyRule* find(const std::array<KeyRule, N>& keys, std::string_view key) {
  auto it = std::find_if(keys.begin(), keys.end(), [&](const KeyRule& k) { return k.key == key; });
  return it == keys.end() ? nullptr : &*it;
}

bool isPowerOfTwo(unsigned long long v) { return v != 0 && (v & (v - 1)) == 0; }

// std::stoi / std::stoull / std::stod as libstdc++ implements them (strtol & co. with errno):
// leading whitespace and a sign are accepted, trailing text is ignored ("128MB" is 128), no
// digits or ERANGE throws. stoull("-1") wraps to the largest value, as strtoull does.
std::optional<long long> stoiLike(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || errno == ERANGE || v < INT_MIN || v > INT_MAX) return std::nullopt;
  return v;
}
std::optional<unsigned long long> stoullLike(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || errno == ERANGE) return std::nullopt;
  return v;
}
std::optional<double> stodLike(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || errno == ERANGE) return std::nullopt;
  return v;
}

Rejection reject(std::string key, std::string message) { return {std::move(key), std::move(message)}; }
Rejection unknownKey(const std::string& key) { return reject(key, fmt::format("unknown option `{}`", key)); }
Rejection notANumber(const std::string& key, const std::string& v) {
  return reject(key, fmt::format("`{}` takes a number, not `{}`", key, v));
}
Rejection noValue(const std::string& key) {
  return reject(key, fmt::format("`{}` has no value (write `{}:<value>`)", key, key));
}
Rejection notBool(const std::string& key, const std::string& v) {
  return reject(key, fmt::format("`{}` must be `True` or `False`, not `{}`", key, v));
}

// The checks every release makes the same way once the number is read.
std::optional<Rejection> checkGc(const std::string& key, const std::string& v) {
  auto d = stodLike(v);
  if (!d) return notANumber(key, v);
  if (!(*d > 0.0 && *d < 1.0)) {
    return reject(key, fmt::format("`{}` must be in (0, 1), not `{}`", key, v));
  }
  return std::nullopt;
}
std::optional<Rejection> checkBackend(const std::string& key, const std::string& v) {
  if (v == "native" || v == "cudaMallocAsync") return std::nullopt;
  return reject(key, fmt::format("`backend` must be `native` or `cudaMallocAsync`, not `{}`", v));
}
std::optional<Rejection> checkPowerOfTwo(const std::string& key, const std::string& v, unsigned long long n) {
  if (isPowerOfTwo(n)) return std::nullopt;
  return reject(key, fmt::format("`{}` must be a power of two, not `{}`", key, v));
}
std::optional<Rejection> checkThreads(const std::string& key, const std::string& v, unsigned long long n) {
  if (isPowerOfTwo(n) && n <= 128) return std::nullopt;
  return reject(key, fmt::format("`{}` must be a power of two up to 128, not `{}`", key, v));
}

// ------------------------------------------------------------------------------------- 1.13
// The string is split on runs of whitespace and commas; each option on runs of `:`. An option
// with fewer than two parts is skipped ("max_split_size_mb" alone does nothing); parts after the
// second are ignored.
std::vector<std::string> splitRuns(std::string_view text, bool (*isSep)(char)) {
  // std::sregex_token_iterator with -1: the text before each run of separators (even empty),
  // then the rest after the last run when it is not empty.
  std::vector<std::string> parts;
  size_t start = 0, i = 0;
  bool any = false;
  while (i < text.size()) {
    if (isSep(text[i])) {
      parts.emplace_back(text.substr(start, i - start));
      while (i < text.size() && isSep(text[i])) ++i;
      start = i;
      any = true;
    } else {
      ++i;
    }
  }
  if (start < text.size() || !any) parts.emplace_back(text.substr(start));
  return parts;
}

std::optional<Rejection> check1_13(std::string_view value) {
  auto isOptionSep = [](char c) { return c == ',' || std::isspace(static_cast<unsigned char>(c)) != 0; };
  auto isColon = [](char c) { return c == ':'; };
  for (const auto& option : splitRuns(value, isOptionSep)) {
    auto kv = splitRuns(option, isColon);
    if (kv.size() < 2) continue;
    const std::string& key = kv[0];
    const std::string& v = kv[1];
    const KeyRule* rule = find(kKeys1_13, key);
    if (!rule) return unknownKey(key);
    if (rule->value == Value::GcThreshold) {
      if (auto r = checkGc(key, v)) return r;
      continue;
    }
    auto n = stoiLike(v);
    if (!n) return notANumber(key, v);
    auto as_size = static_cast<unsigned long long>(*n);  // `size_t val2 = stoi(...)`: -1 wraps
    if (rule->value == Value::SplitSizeMb && as_size <= 20) {
      return reject(key, fmt::format("`{}` must be greater than 20, not `{}`", key, v));
    }
    if (rule->value == Value::RoundupDivisions) {
      if (auto r = checkPowerOfTwo(key, v, as_size)) return r;
    }
  }
  return std::nullopt;
}

// ----------------------------------------------------------------------------- 2.6 and 2.14
// `,` `:` `[` `]` stand alone; 2.6 drops spaces only, 2.14 any whitespace (`std::isspace`).
std::vector<std::string> tokenize(std::string_view text, bool any_space) {
  std::vector<std::string> tokens;
  std::string word;
  for (char c : text) {
    if (c == ',' || c == ':' || c == '[' || c == ']') {
      if (!word.empty()) tokens.push_back(std::move(word));
      word.clear();
      tokens.emplace_back(1, c);
    } else if (any_space ? std::isspace(static_cast<unsigned char>(c)) == 0 : c != ' ') {
      word += c;
    }
  }
  if (!word.empty()) tokens.push_back(std::move(word));
  return tokens;
}

// 2.6: CUDAAllocatorConfig::parseArgs. `consumeToken` checks the separator; a missing value is
// an error; after an option the next token must be `,`.
struct Parser2_6 {
  std::vector<std::string> t;
  size_t i = 0;

  bool consume(size_t j, const char* c) const { return j < t.size() && t[j] == c; }

  std::optional<Rejection> divisionsList(const std::string& key) {
    // roundup_power2_divisions:[256:1,512:2,>:4]; `config[i + 1]` past the end of an unclosed
    // list reads out of bounds in PyTorch: counted as an error.
    while (++i < t.size() && t[i] != "]") {
      const std::string interval = t[i];
      if (!consume(++i, ":") || ++i >= t.size()) {
        return reject(key, fmt::format("`{}` list entries are `size:divisions`", key));
      }
      auto div = stoiLike(t[i]);
      if (!div) return notANumber(key, t[i]);
      auto d = static_cast<unsigned long long>(*div);
      if (d != 0 && !isPowerOfTwo(d)) {
        return reject(key, fmt::format("`{}` divisions must be a power of two or 0, not `{}`", key, t[i]));
      }
      if (interval != ">") {
        auto size = stoullLike(interval);  // stoul
        if (!size) return notANumber(key, interval);
        if (!isPowerOfTwo(*size)) {
          return reject(key, fmt::format("`{}` intervals must be powers of two, not `{}`", key, interval));
        }
      }
      if (i + 1 >= t.size()) return reject(key, fmt::format("`{}` list is missing its closing `]`", key));
      if (t[i + 1] != "]" && !consume(++i, ",")) {
        return reject(key, fmt::format("`{}` list entries are separated by `,`", key));
      }
    }
    return std::nullopt;
  }

  std::optional<Rejection> option() {
    const std::string key = t[i];
    const KeyRule* rule = find(kKeys2_6, key);
    if (!rule) return unknownKey(key);
    if (!consume(++i, ":") || ++i >= t.size()) return noValue(key);
    const std::string& v = t[i];
    switch (rule->value) {
      case Value::Bool:
        if (v != "True" && v != "False") return notBool(key, v);
        return std::nullopt;
      case Value::GcThreshold: return checkGc(key, v);
      case Value::Backend: return checkBackend(key, v);
      case Value::RoundupDivisions: {
        if (v == "[") return divisionsList(key);
        auto n = stoiLike(v);
        if (!n) return notANumber(key, v);
        return checkPowerOfTwo(key, v, static_cast<unsigned long long>(*n));
      }
      case Value::SplitSizeMb: {
        auto n = stoiLike(v);
        if (!n) return notANumber(key, v);
        if (static_cast<unsigned long long>(*n) <= 20) {
          return reject(key, fmt::format("`{}` must be greater than 20, not `{}`", key, v));
        }
        return std::nullopt;
      }
      case Value::RegisterThreads: {
        auto n = stoiLike(v);
        if (!n) return notANumber(key, v);
        return checkThreads(key, v, static_cast<unsigned long long>(*n));
      }
      default: return std::nullopt;
    }
  }

  std::optional<Rejection> run() {
    for (i = 0; i < t.size(); ++i) {
      const std::string key = t[i];
      if (auto r = option()) return r;
      if (i + 1 < t.size() && !consume(++i, ",")) {
        return reject(key, fmt::format("`{1}`'s value is followed by `{0}`; separate options with `,`",
                                       t[i], key));
      }
    }
    return std::nullopt;
  }
};

// 2.14: ConfigTokenizer. `checkToken` only reports (its result is ignored), but every index is
// asserted in bounds: a key or value missing at the end is an error, a wrong separator is not.
struct Parser2_14 {
  std::vector<std::string> t;
  size_t i = 0;
  // The large segment size bounds both split sizes. 2.14.1 reads it before the options, from
  // every `large_segment_size_mb` token (the last wins), wherever it stands.
  unsigned long long large_segment_mb = 20;

  static Rejection truncated(const std::string& key) {
    return reject(key, key.empty() ? std::string("the string ends in the middle of an option") : noValue(key).message);
  }
  bool inBounds(size_t j) const { return j < t.size(); }

  // skipKey: `:`, then one token or a bracketed list.
  std::optional<Rejection> skipKey(const std::string& key) {
    ++i;  // the `:` (not checked)
    if (!inBounds(i) || !inBounds(++i)) return truncated(key);
    if (t[i] != "[") return std::nullopt;
    while (++i < t.size() && t[i] != "]") {
    }
    if (!inBounds(i)) return reject(key, fmt::format("`{}` list is missing its closing `]`", key));
    return std::nullopt;
  }

  std::optional<Rejection> size(const std::string& key, unsigned long long& out) {
    if (!inBounds(++i) || !inBounds(++i)) return truncated(key);
    auto n = stoullLike(t[i]);
    if (!n) return notANumber(key, t[i]);
    out = *n;
    return std::nullopt;
  }

  std::optional<Rejection> boolean(const std::string& key) {
    if (!inBounds(++i) || !inBounds(++i)) return truncated(key);
    if (t[i] != "True" && t[i] != "False") return notBool(key, t[i]);
    return std::nullopt;
  }

  std::optional<Rejection> divisions(const std::string& key) {
    if (!inBounds(++i) || !inBounds(++i)) return truncated(key);
    if (t[i] != "[") {
      auto n = stoullLike(t[i]);
      if (!n) return notANumber(key, t[i]);
      return checkPowerOfTwo(key, t[i], *n);
    }
    while (++i < t.size() && t[i] != "]") {
      size_t interval = i;
      if (!inBounds(++i) || !inBounds(++i)) {
        return reject(key, fmt::format("`{}` list is missing its closing `]`", key));
      }
      auto div = stoullLike(t[i]);
      if (!div) return notANumber(key, t[i]);
      if (*div != 0 && !isPowerOfTwo(*div)) {
        return reject(key, fmt::format("`{}` divisions must be a power of two or 0, not `{}`", key, t[i]));
      }
      if (t[interval] != ">") {
        auto size = stoullLike(t[interval]);
        if (!size) return notANumber(key, t[interval]);
        if (!isPowerOfTwo(*size)) {
          return reject(key, fmt::format("`{}` intervals must be powers of two, not `{}`", key, t[interval]));
        }
      }
      if (!inBounds(i + 1)) return reject(key, fmt::format("`{}` list is missing its closing `]`", key));
      if (t[i + 1] != "]") ++i;  // the `,` (not checked)
    }
    if (!inBounds(i)) return reject(key, fmt::format("`{}` list is missing its closing `]`", key));
    return std::nullopt;
  }

  std::optional<Rejection> value(const std::string& key, Value kind) {
    unsigned long long n = 0;
    switch (kind) {
      case Value::Bool: return boolean(key);
      case Value::RoundupDivisions: return divisions(key);
      case Value::GcThreshold:
        if (!inBounds(++i) || !inBounds(++i)) return truncated(key);
        return checkGc(key, t[i]);
      case Value::Backend:
        if (!inBounds(++i) || !inBounds(++i)) return truncated(key);
        return checkBackend(key, t[i]);
      case Value::SplitSizeMb:
        if (auto r = size(key, n)) return r;
        if (n < large_segment_mb) {
          return reject(key, fmt::format("`{}` must be at least {}, not `{}`", key, large_segment_mb, t[i]));
        }
        return std::nullopt;
      case Value::LargeSegment:
        if (auto r = size(key, n)) return r;
        if (n <= 10) return reject(key, fmt::format("`{}` must be greater than 10, not `{}`", key, t[i]));
        return std::nullopt;
      case Value::RegisterThreads:
        if (auto r = size(key, n)) return r;
        return checkThreads(key, t[i], n);
      case Value::PositiveSize:
        if (auto r = size(key, n)) return r;
        if (n == 0) return reject(key, fmt::format("`{}` must be greater than 0", key));
        return std::nullopt;
      case Value::AnySize: return size(key, n);
      default: return skipKey(key);
    }
  }

  // One pass over the tokens: the device-neutral one (unknown keys skipped) or the CUDA one
  // (unknown keys rejected, the device-neutral ones skipped).
  std::optional<Rejection> pass(bool cuda) {
    for (i = 0; i < t.size(); ++i) {
      const std::string key = t[i];
      const KeyRule* own = cuda ? find(kCudaKeys2_14, key) : find(kDeviceKeys2_14, key);
      std::optional<Rejection> r;
      if (own) {
        r = value(key, own->value);
      } else {
        if (cuda && !find(kDeviceKeys2_14, key)) return unknownKey(key);
        r = skipKey(key);
      }
      if (r) return r;
      if (i + 1 < t.size()) ++i;  // the `,` (not checked)
    }
    return std::nullopt;
  }

  std::optional<Rejection> largeSegment() {
    for (size_t j = 0; j < t.size(); ++j) {
      if (t[j] != "large_segment_size_mb") continue;
      const std::string key = t[j];
      if (j + 2 >= t.size()) return truncated(key);
      auto n = stoullLike(t[j + 2]);
      if (!n) return notANumber(key, t[j + 2]);
      if (*n <= 10) return reject(key, fmt::format("`{}` must be greater than 10, not `{}`", key, t[j + 2]));
      large_segment_mb = *n;
    }
    return std::nullopt;
  }

  std::optional<Rejection> run(bool cuda = true) {
    if (auto r = largeSegment()) return r;
    if (auto r = pass(false)) return r;
    if (!cuda) return std::nullopt;
    return pass(true);
  }
};

}  // namespace

std::string_view releaseOf(Parser parser) {
  switch (parser) {
    case Parser::Torch1_13: return "1.13";
    case Parser::Torch2_6: return "2.6";
    case Parser::Torch2_14: return "2.14";
  }
  return "2.14";
}

std::optional<Rejection> check(std::string_view value, Parser parser) {
  switch (parser) {
    case Parser::Torch1_13: return check1_13(value);
    case Parser::Torch2_6: return Parser2_6{tokenize(value, false)}.run();
    case Parser::Torch2_14: return Parser2_14{tokenize(value, true)}.run();
  }
  return std::nullopt;
}

std::optional<Rejection> checkDeviceNeutral2_14(std::string_view value) {
  return Parser2_14{tokenize(value, true)}.run(false);
}

}  // namespace ptlint::alloc_conf
