// The `ptlint` executable: `check`, `rule`, `doctor`, `clean`, `version`, `config`,
// `generate-shell-completion`, `--lsp`/`server`, `--version`.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <tuple>

#include "cli/adoption.h"
#include "cli/check.h"
#include "cli/commands.h"
#include "cli/terminal.h"
#include "cli/rule_docs.h"
#include "cli/watch.h"
#include "rules/selectors.h"
#include "ptlint/version.h"

#ifdef PTLINT_WITH_SERVER
#include "server/lsp_server.h"
#endif
#ifdef PTLINT_WITH_GPU_CLIENT
#include "gpu_check/client.h"
#endif

namespace {

using ptlint::cli::OutputFormat;

std::vector<std::string> splitList(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    size_t start = 0;
    while (start <= item.size()) {
      size_t comma = item.find(',', start);
      if (comma == std::string::npos) comma = item.size();
      std::string part = item.substr(start, comma - start);
      part.erase(0, part.find_first_not_of(" \t"));
      part.erase(part.find_last_not_of(" \t") + 1);
      if (!part.empty()) out.push_back(part);
      start = comma + 1;
    }
  }
  return out;
}

bool validCodes(const std::vector<std::string>& codes, const char* flag) {
  for (const auto& c : codes) {
    if (auto error = ptlint::rules::selectorError(c)) {
      std::cerr << fmt::format("error: invalid value for {}: {}\n", flag, *error);
      return false;
    }
  }
  return true;
}

// `--config` values, as Ruff reads them: an existing file is the configuration file; anything
// else must parse as a TOML `KEY = VALUE` and overrides the configuration files.
bool applyConfigOptions(const std::vector<std::string>& values, ptlint::cli::CheckOptions& check) {
  namespace fs = std::filesystem;
  std::optional<ptlint::workspace::FileConfig> inline_config;
  for (const auto& value : values) {
    std::error_code ec;
    // Anything that exists (a folder, a device, a FIFO too) is meant as a file: the loader
    // refuses what is not a regular file, with the reason.
    bool exists = fs::symlink_status(value, ec).type() != fs::file_type::not_found && !ec;
    if (exists) {
      if (check.config) {
        std::cerr << fmt::format("error: invalid value for --config: `{}` is a second configuration file (`{}` is "
                                 "the first); give one file, and inline `KEY = VALUE` settings\n",
                                 value, check.config->string());
        return false;
      }
      check.config = value;
      continue;
    }
    if (value.find('=') == std::string::npos) {
      std::cerr << fmt::format("error: invalid value for --config: `{}`: No such file (an inline setting is "
                               "written `KEY = VALUE`, e.g. \"ignore = ['PTL101']\")\n", value);
      return false;
    }
    try {
      auto parsed = ptlint::workspace::parseInlineConfig(value, fs::current_path(ec));
      inline_config = inline_config ? ptlint::workspace::mergeConfig(*inline_config, parsed) : parsed;
    } catch (const ptlint::workspace::ConfigError& e) {
      std::cerr << fmt::format("error: invalid value for --config: {}\n", e.what());
      return false;
    }
  }
  if (inline_config)
    check.overrides.inline_config = std::make_shared<const ptlint::workspace::FileConfig>(std::move(*inline_config));
  return true;
}

// `--per-file-ignores GLOB:CODE,...` as Ruff spells it; the globs are relative to the working folder.
bool applyPerFileIgnores(const std::vector<std::string>& pairs, ptlint::cli::CheckOptions& check) {
  std::error_code ec;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  std::vector<ptlint::workspace::PerFileIgnore> entries;
  for (const auto& pair : pairs) {
    size_t colon = pair.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == pair.size()) {
      std::cerr << fmt::format("error: invalid value `{}` for --per-file-ignores: expected GLOB:CODE, e.g. "
                               "\"tests/*:PTL501\"\n", pair);
      return false;
    }
    std::string glob = pair.substr(0, colon), code = pair.substr(colon + 1);
    if (!validCodes({code}, "--per-file-ignores")) return false;
    auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.glob == glob; });
    if (it == entries.end()) entries.push_back({glob, {code}, cwd});
    else it->codes.push_back(code);
  }
  check.overrides.per_file_ignores = std::move(entries);
  return true;
}

// Anything left unparsed is a mistyped flag or subcommand: reported as clap does (Ruff's
// parser), with the closest known name. Returns true when something was left.
bool reportUnknown(const CLI::App& app, const CLI::App* command, std::ostream& err) {
  const CLI::App& owner = command ? *command : app;
  std::vector<std::string> left = owner.remaining();
  if (left.empty()) return false;
  const std::string& word = left.front();
  std::string usage = command ? fmt::format("Usage: ptlint {} [OPTIONS]", command->get_name())
                              : std::string("Usage: ptlint [OPTIONS] <COMMAND>");
  if (!command && !word.starts_with("-")) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    err << fmt::format("error: unrecognized subcommand '{}'\n", word);
    if (auto near = ptlint::cli::closestMatch(word, names); !near.empty())
      err << fmt::format("\n  tip: a similar subcommand exists: '{}'\n", near);
  } else {
    std::vector<std::string> names;
    for (const CLI::Option* option : owner.get_options())
      for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    std::string flag = word.substr(0, word.find('='));
    err << fmt::format("error: unexpected argument '{}' found\n", word);
    if (auto near = flag.starts_with("--") ? ptlint::cli::closestMatch(flag, names) : std::string(); !near.empty())
      err << fmt::format("\n  tip: a similar argument exists: '{}'\n", near);
    else if (!flag.starts_with("--") && flag.size() >= 2 && flag[0] == '-')
      err << fmt::format("\n  tip: to pass '{}' as a value, use '-- {}'\n", word, word);
  }
  err << "\n" << usage << "\n\nFor more information, try '--help'.\n";
  return true;
}

// A value from a fixed list, refused as clap refuses it: the possible values, and the closest.
CLI::Validator oneOf(std::vector<std::string> values) {
  return CLI::Validator(
      [values](std::string& value) -> std::string {
        if (std::find(values.begin(), values.end(), value) != values.end()) return {};
        std::string text = fmt::format("invalid value '{}'\n  [possible values: {}]", value, fmt::join(values, ", "));
        if (auto near = ptlint::cli::closestMatch(value, values); !near.empty())
          text += fmt::format("\n\n  tip: a similar value exists: '{}'", near);
        return text;
      },
      "");
}

// A stream that drops what it is given (`--silent`).
struct NullBuffer : std::streambuf {
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

int runServer() {
#ifdef PTLINT_WITH_SERVER
  return ptlint::server::runStdioServer();
#else
  std::cerr << "error: this build of ptlint has no language server\n";
  return 2;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  ptlint::cli::locateRuleDocs();
  CLI::App app{"ptlint: a fast linter and language server for PyTorch code", "ptlint"};
  app.require_subcommand(0, 1);
  bool lsp = false;
  app.add_flag("--lsp", lsp, "Run the language server on stdio (same as `ptlint server`)");
  app.set_version_flag("--version", std::string("ptlint ") + ptlint::kVersion);

  // check
  ptlint::cli::CheckOptions check;
  std::vector<std::string> paths, select, extend_select, ignore, extend_ignore, per_file_ignores, fixable, unfixable;
  std::string output_file;
  std::string format, torch_version, stdin_filename;
  std::vector<std::string> configs;
  auto* check_cmd = app.add_subcommand("check", "Lint files and folders (default: the current folder)");
  check_cmd->add_option("paths", paths, "Files or folders to lint; `-` reads stdin (with --stdin-filename)");
  // Flags with a `--no-*` negation: the last one given wins (as Ruff's `overrides_with`), so
  // they are read from the parse order below. The negations are hidden from the help, as Ruff's.
  std::vector<std::tuple<CLI::Option*, std::optional<bool>*, bool>> toggles;
  std::optional<bool> fix_flag, fix_only_flag, unsafe_flag, show_fixes_flag, force_exclude_flag, gitignore_flag;
  auto toggle = [&](const std::string& name, const std::string& help, std::optional<bool>& target) {
    toggles.emplace_back(check_cmd->add_flag("--" + name)->description(help), &target, true);
    toggles.emplace_back(check_cmd->add_flag("--no-" + name)->description("Negates --" + name)->group(""), &target,
                         false);
  };
  toggle("fix", "Apply safe fixes", fix_flag);
  toggle("unsafe-fixes", "Also apply (and show as fixable) unsafe fixes", unsafe_flag);
  toggle("fix-only", "Apply fixes but report no remaining finding (implies --fix)", fix_only_flag);
  toggle("show-fixes", "List the fixes applied", show_fixes_flag);
  toggle("force-exclude", "Apply `exclude` to files named explicitly too", force_exclude_flag);
  toggle("respect-gitignore", "Skip what .gitignore files exclude (default: the `respect-gitignore` setting)",
         gitignore_flag);
  check_cmd->add_flag("--exit-non-zero-on-fix", check.exit_non_zero_on_fix,
                      "Exit 1 when a fix was applied, even if no finding remains");
  std::vector<std::string> exclude, extend_exclude;
  check_cmd->add_option("--exclude", exclude, "Globs of files and folders to skip, replacing `exclude` (comma-separated)")
      ->delimiter(',')->allow_extra_args(false);
  check_cmd->add_option("--extend-exclude", extend_exclude, "Globs to skip in addition to `exclude` (comma-separated)")
      ->delimiter(',')->allow_extra_args(false);
  bool isolated = false;
  check_cmd->add_flag("--isolated", isolated, "Read no configuration file (flags and defaults only)");
  std::string cache_dir;
  check_cmd->add_option("--cache-dir", cache_dir, "The cache's folder (default: .ptlint_cache in the working folder)")
      ->envname("PTLINT_CACHE_DIR");
  std::string color = "auto";
  check_cmd->add_option("--color", color, "Colour the output: auto (on a terminal, unless NO_COLOR is set), always or never")
      ->check(oneOf({"auto", "always", "never"}));
  bool verbose = false, silent = false;
  check_cmd->add_flag("-v,--verbose", verbose, "Also print the configuration used, the files checked and the time taken");
  check_cmd->add_flag("-s,--silent", silent, "Print nothing but errors; the exit code tells the result");
  check_cmd->add_flag("--diff", check.diff, "Print a unified diff of what the fixes would change; write nothing");
  check_cmd->add_option("--stdin-filename", stdin_filename, "Read source from stdin, as if it were this path");
  check_cmd->add_option("--select", select, "Rule codes or prefixes to enable (comma-separated; ALL for every rule)")->delimiter(',')->allow_extra_args(false);
  check_cmd->add_option("--extend-select", extend_select, "Rule codes or prefixes to enable in addition")->delimiter(',')->allow_extra_args(false);
  check_cmd->add_option("--ignore", ignore, "Rule codes or prefixes to disable")->delimiter(',')->allow_extra_args(false);
  check_cmd->add_option("--extend-ignore", extend_ignore, "Rule codes or prefixes to disable in addition")->delimiter(',')->allow_extra_args(false);
  check_cmd->add_option("--per-file-ignores", per_file_ignores,
                        "GLOB:CODE pairs (comma-separated; globs relative to the working folder) replacing the "
                        "configuration's per-file-ignores")
      ->delimiter(',')->allow_extra_args(false);
  check_cmd->add_option("--fixable", fixable, "Only these rule codes or prefixes get fixes (default: ALL)")->delimiter(',')->allow_extra_args(false);
  check_cmd->add_option("--unfixable", unfixable, "Rule codes or prefixes whose fixes are never shown or applied")->delimiter(',')->allow_extra_args(false);
  check_cmd->add_option("-o,--output-file", output_file, "Write the output to this file instead of stdout");
  check_cmd->add_flag("--add-noqa", check.add_noqa, "Add `# noqa: CODE` comments for every finding (to adopt ptlint on existing code)");
  check_cmd->add_flag("--show-settings", check.show_settings, "Print the settings that apply to the first file, then exit");
  check_cmd->add_flag("--show-files", check.show_files, "Print the files that would be checked, then exit");
  bool watch = false;
  check_cmd->add_flag("-w,--watch", watch,
                      "Check again whenever a Python file, notebook or configuration file changes (until interrupted; "
                      "exit 2 if a watched folder is removed)");
  check_cmd->add_option("--output-format", format,
                        "full, concise, json, json-lines, sarif, github, gitlab, junit, pylint, grouped, rdjson or azure")
      ->check(oneOf(ptlint::cli::outputFormatNames()))
      ->envname("PTLINT_OUTPUT_FORMAT");  // as RUFF_OUTPUT_FORMAT
  check_cmd->add_flag("--statistics", check.statistics, "Show counts per rule instead of each finding");
  check_cmd->add_flag("-e,--exit-zero", check.exit_zero, "Exit 0 even when findings remain");
  check_cmd->add_flag("-n,--no-cache", check.no_cache, "Do not read or write the cache");
  check_cmd->add_option("--config", configs,
                        "A configuration file to use instead of discovering one, or an inline TOML `KEY = VALUE` "
                        "setting that overrides the configuration files (repeatable)")
      ->allow_extra_args(false);
  check_cmd->add_option("--torch-version", torch_version, "PyTorch releases the project runs on, a PEP 440 range (\">=2.1\", \">=2.4,<2.9\"; 2.1 means >=2.1); default: the project's torch requirement");
  check_cmd->add_option("-j,--threads", check.threads, "Threads to lint with (default: the machine's cores)");
  check_cmd->add_option("--compile-log", check.compile_log,
                        "A torch.compile log of a real run (TORCH_LOGS=graph_breaks,recompiles text log, or a "
                        "TORCH_TRACE folder or file): its graph breaks (PTL901) and recompiles (PTL902) on the lines")
      ->allow_extra_args(false);
  check_cmd->add_flag("--gpu-check", check.gpu_check, "Validate attention fixes on the device (needs ptlint-gpu)");
  check_cmd->add_flag("-q,--quiet", check.quiet, "Print findings only, no summary");

  // rule
  std::string rule_code;
  bool rule_all = false;
  std::string rule_format = "text";
  auto* rule_cmd = app.add_subcommand("rule", "Show a rule's documentation, or every rule with --all");
  rule_cmd->add_option("code", rule_code, "Rule code, e.g. PTL101");
  rule_cmd->add_flag("--all", rule_all, "Every rule");
  rule_cmd->add_option("--output-format", rule_format, "text or json")->check(CLI::IsMember({"text", "json"}));

  // doctor
  bool doctor_json = false;
  auto* doctor_cmd = app.add_subcommand("doctor", "Report the device and environment (libtorch, CUDA, allocator settings)");
  doctor_cmd->add_flag("--json", doctor_json, "JSON output");

  auto* server_cmd = app.add_subcommand("server", "Run the language server on stdio");
  auto* clean_cmd = app.add_subcommand("clean", "Remove the cache (.ptlint_cache) of the working folder");

  bool version_json = false;
  std::string version_format = "text";
  auto* version_cmd = app.add_subcommand("version", "Print ptlint's version");
  version_cmd->add_option("--output-format", version_format, "text or json")->check(CLI::IsMember({"text", "json"}));
  std::string config_key;
  auto* config_cmd = app.add_subcommand("config", "List the configuration keys, or show one's documentation");
  config_cmd->add_option("key", config_key, "A configuration key, e.g. select");
  std::string shell;
  auto* completion_cmd = app.add_subcommand("generate-shell-completion", "Print a completion script for a shell");
  completion_cmd->add_option("shell", shell, "bash, zsh or fish")->required();

  // Unknown arguments are kept (not thrown) so that the error can name the closest known one.
  app.allow_extras();
  for (CLI::App* sub : app.get_subcommands({})) sub->allow_extras();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  {
    const CLI::App* parsed = nullptr;
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->parsed()) parsed = sub;
    if (reportUnknown(app, nullptr, std::cerr) || (parsed && reportUnknown(app, parsed, std::cerr))) return 2;
  }

  if (version_cmd->parsed()) {
    version_json = version_format == "json";
    return ptlint::cli::runVersion(version_json, std::cout);
  }
  if (config_cmd->parsed()) return ptlint::cli::runConfig(config_key, std::cout, std::cerr);
  if (completion_cmd->parsed()) return ptlint::cli::runShellCompletion(app, shell, std::cout, std::cerr);

  if (lsp || server_cmd->parsed()) return runServer();

  if (rule_cmd->parsed()) {
    if (rule_all) return ptlint::cli::printAllRules(rule_format == "json", std::cout);
    if (rule_code.empty()) {
      std::cerr << "error: give a rule code (e.g. `ptlint rule PTL101`) or --all\n";
      return 2;
    }
    return ptlint::cli::printRule(rule_code, std::cout, std::cerr);
  }

  if (clean_cmd->parsed()) return ptlint::cli::runClean(std::cout, std::cerr);

  if (doctor_cmd->parsed()) {
#ifdef PTLINT_WITH_GPU_CLIENT
    return ptlint::gpu_check::runDoctor(doctor_json, std::cout, std::cerr);
#else
    (void)doctor_json;
    std::cout << "ptlint doctor: this build has no gpu_check support.\n";
    return 0;
#endif
  }

  if (check_cmd->parsed()) {
    for (const CLI::Option* given : check_cmd->parse_order())
      for (auto& [option, target, value] : toggles)
        if (option == given) *target = value;
    check.fix = fix_flag.value_or(false);
    check.unsafe_fixes_flag = unsafe_flag == true;
    check.no_unsafe_fixes_flag = unsafe_flag == false;
    check.fix_only = fix_only_flag.value_or(false);
    if (check.fix_only) check.fix = true;
    check.show_fixes = show_fixes_flag.value_or(false);
    check.force_exclude = force_exclude_flag.value_or(false);
    check.overrides.respect_gitignore = gitignore_flag;
    check.verbose = verbose;
    if (!exclude.empty()) check.overrides.exclude = splitList(exclude);
    check.overrides.extend_exclude = splitList(extend_exclude);
    check.overrides.isolated = isolated;
    if (!cache_dir.empty()) {
      std::error_code ec;
      check.cache_dir = std::filesystem::absolute(cache_dir, ec);
      // Created as Ruff creates its own: the folders above it too.
      std::filesystem::create_directories(check.cache_dir->parent_path(), ec);
    }
    ptlint::cli::ColorChoice choice = color == "always"  ? ptlint::cli::ColorChoice::Always
                                      : color == "never" ? ptlint::cli::ColorChoice::Never
                                                         : ptlint::cli::ColorChoice::Auto;
    // Coloured only where a person reads it: never into --output-file under `auto`.
    check.color = output_file.empty() ? ptlint::cli::useColor(choice, STDOUT_FILENO)
                                      : choice == ptlint::cli::ColorChoice::Always;
    select = splitList(select);
    extend_select = splitList(extend_select);
    ignore = splitList(ignore);
    extend_ignore = splitList(extend_ignore);
    fixable = splitList(fixable);
    unfixable = splitList(unfixable);
    if (!validCodes(select, "--select") || !validCodes(extend_select, "--extend-select") ||
        !validCodes(ignore, "--ignore") || !validCodes(extend_ignore, "--extend-ignore") ||
        !validCodes(fixable, "--fixable") || !validCodes(unfixable, "--unfixable"))
      return 2;
    check.overrides.extend_ignore = extend_ignore;
    if (!fixable.empty()) check.overrides.fixable = fixable;
    if (!unfixable.empty()) check.overrides.unfixable = unfixable;
    if (!per_file_ignores.empty() && !applyPerFileIgnores(splitList(per_file_ignores), check)) return 2;
    if (!select.empty()) check.overrides.select = select;
    if (!extend_select.empty()) check.overrides.extend_select = extend_select;
    if (!ignore.empty()) check.overrides.ignore = ignore;
    if (!torch_version.empty()) {
      auto v = ptlint::rules::TorchRange::parse(torch_version);
      if (!v) {
        std::cerr << fmt::format("error: invalid value `{}` for --torch-version: expected a range such as \">=2.1\" "
                                 "or \">=2.4,<2.9\" (a bare 2.1 means >=2.1)\n",
                                 torch_version);
        return 2;
      }
      v->source = "--torch-version";
      check.overrides.torch_version = v;
    }
    if (!applyConfigOptions(configs, check)) return 2;
    if (isolated && check.config) {
      std::cerr << fmt::format("error: --isolated reads no configuration file, and --config names one (`{}`)\n",
                               check.config->string());
      return 2;
    }
    if (!stdin_filename.empty()) check.stdin_filename = stdin_filename;
    for (const auto& p : paths)
      if (p != "-") check.paths.emplace_back(p);
    if (!check.stdin_filename && paths.size() == 1 && paths[0] == "-") check.stdin_filename = "-";
    if (!format.empty()) check.format = ptlint::cli::parseOutputFormat(format);
    // --silent: nothing on stdout but the fixed source of stdin; errors still reach stderr.
    NullBuffer null_buffer;
    std::ostream null_out(&null_buffer);
    bool keep_stdout = check.stdin_filename && check.fix && !check.diff;
    if (silent) check.quiet = true;
    std::ostream& out = silent && !keep_stdout ? null_out : std::cout;
    try {
      if (watch) {
        if (check.stdin_filename || check.add_noqa || check.diff || !output_file.empty()) {
          std::cerr << "error: --watch cannot be combined with stdin, --add-noqa, --diff or --output-file\n";
          return 2;
        }
        return ptlint::cli::runWatch(check, std::cin, out, std::cerr);
      }
      if (!output_file.empty()) {
        namespace fs = std::filesystem;
        std::error_code ec;
        fs::path target(output_file);
        if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
        std::ofstream file(target, std::ios::binary | std::ios::trunc);
        if (!file) {
          std::cerr << fmt::format("error: --output-file {}: cannot write the file ({})\n", output_file,
                                   std::strerror(errno));
          return 2;
        }
        int code = ptlint::cli::runCheck(check, std::cin, silent ? out : file, std::cerr);
        file.flush();
        if (!file) {
          std::cerr << fmt::format("error: --output-file {}: writing failed\n", output_file);
          return 2;
        }
        return code;
      }
      return ptlint::cli::runCheck(check, std::cin, out, std::cerr);
    } catch (const std::bad_alloc&) {
      std::cout.flush();
      std::cerr << "error: out of memory\n";
      return 2;
    } catch (const std::exception& e) {
      // Whatever escaped (a file system error): a message and exit 2, never an abort.
      std::cout.flush();
      std::cerr << "error: " << e.what() << "\n";
      return 2;
    }
  }

  std::cout << app.help();
  return 2;
}
