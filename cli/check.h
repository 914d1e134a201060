// `ptlint check`: options, the walk, the engine (workspace/engine.h) on the files, fixed files written
// back, output. Exit codes as README's table gives them.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cli/output.h"
#include "workspace/config.h"

namespace ptlint::cli {

struct CheckOptions {
  std::vector<std::filesystem::path> paths;
  bool fix = false;
  bool unsafe_fixes_flag = false;      // --unsafe-fixes given
  bool no_unsafe_fixes_flag = false;   // --no-unsafe-fixes given
  bool diff = false;
  std::optional<std::string> stdin_filename;
  std::optional<OutputFormat> format;  // default: full on a terminal, concise otherwise
  bool statistics = false;
  bool show_fixes = false;
  bool exit_zero = false;
  bool no_cache = false;
  bool force_exclude = false;
  bool gpu_check = false;
  bool quiet = false;
  bool fix_only = false;              // --fix-only: fix, report no remaining finding
  bool exit_non_zero_on_fix = false;  // --exit-non-zero-on-fix
  bool color = false;                 // ANSI colours in full, concise and grouped output
  bool verbose = false;               // -v: configuration, files and timing on stderr
  std::optional<std::filesystem::path> cache_dir;  // --cache-dir
  unsigned threads = 0;  // 0: the machine's cores
  bool add_noqa = false;       // --add-noqa: suppress every current finding in place
  bool show_settings = false;  // --show-settings
  bool show_files = false;     // --show-files
  std::optional<std::filesystem::path> config;
  // `--compile-log PATH`: a torch.compile text log, TORCH_TRACE folder or trace file.
  std::optional<std::filesystem::path> compile_log;
  workspace::Overrides overrides;
};

int runCheck(const CheckOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace ptlint::cli
