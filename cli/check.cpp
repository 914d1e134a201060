#include "cli/check.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <mutex>
#include <system_error>

#include "cli/adoption.h"
#include "cli/diff.h"
#include "cli/file_io.h"
#include "cli/gpu_validation.h"
#include "cli/notebook_check.h"
#include "cli/terminal.h"
#include "workspace/compile_log.h"
#include "workspace/engine.h"
#include "workspace/walk.h"

namespace fs = std::filesystem;

namespace ptlint::cli {
namespace {

// Control characters escaped (`\n`, `\x1b`): a file name never starts a line of its own or
// moves the cursor in line-oriented output.
std::string escapeControl(std::string_view shown) {
  std::string out;
  out.reserve(shown.size());
  for (unsigned char c : shown) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c == '\\') out += "\\\\";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
  }
  return out;
}

// A path as the terminal shows it: relative to the working folder when inside it, escaped.
// `absolute` relative to `cwd` when it lies below it; `cwd` empty: the current folder.
std::string displayPath(const fs::path& absolute, fs::path cwd = {}) {
  std::error_code ec;
  if (cwd.empty()) cwd = fs::current_path(ec);
  std::string shown = absolute.string();
  const std::string& folder = cwd.native();
  if (!ec && shown != folder && workspace::absoluteAndNormal(shown) && workspace::absoluteAndNormal(folder)) {
    // Both normal (a walk's paths): the relative path, if any, is the rest of the string.
    bool below = shown.size() > folder.size() + 1 && shown[folder.size()] == '/' && shown.starts_with(folder);
    if (below && !std::string_view(shown).substr(folder.size() + 1).starts_with("..")) shown.erase(0, folder.size() + 1);
  } else if (!ec && !cwd.empty()) {
    fs::path rel = absolute.lexically_relative(cwd);
    if (!rel.empty() && !rel.native().starts_with("..")) shown = rel.string();
  }
  return escapeControl(shown);
}

std::string bomOf(const workspace::FileResult& result) { return result.form.had_bom ? "\xEF\xBB\xBF" : ""; }

// The front end's side of a finished result: the report the output formats read, the diff, and
// with --fix the file written back (compare-and-swap). Runs on the engine's worker, no lock held.
void finishReport(FileReport& report, workspace::FileResult& result, const CheckOptions& options,
                  const std::vector<fs::path>& roots, const fs::path& cwd) {
  report.path = result.path.native();
  report.display_path = displayPath(report.path, cwd);
  report.unsafe_fixes = result.unsafe_fixes;
  if (result.status == workspace::FileStatus::ConfigError) {
    report.config_error = result.error;
    return;
  }
  if (result.status == workspace::FileStatus::ReadError || result.status == workspace::FileStatus::Cancelled) {
    report.error = result.error.value_or("not checked");
    return;
  }
  report.diagnostics = std::move(result.diagnostics);
  report.notice = std::move(result.notice);
  report.findings_fixed = result.findings_fixed;
  const workspace::Notebook* notebook = result.form.notebook.get();
  if (result.status == workspace::FileStatus::Cached) {
    if (!report.diagnostics.empty()) {
      report.text = std::move(result.text);
      report.lines = analysis::LineIndex(report.text);
      if (notebook) mapCells(report, *notebook);
    }
    return;
  }
  report.text = std::move(result.text);
  if (options.diff && result.changed) {
    std::string diff_error;
    if (notebook) {
      if (!notebookDiff(*notebook, report.text, result.history, report.display_path, report.diff, diff_error)) {
        report.diff.clear();
        report.findings_fixed = 0;
        report.notice = diff_error;
      }
    } else {
      report.diff = unifiedDiff(bomOf(result) + result.original, bomOf(result) + report.text, report.display_path);
    }
  }
  if (options.fix && !options.diff && result.changed) {
    // The fixed text in the file's own form, written only over the bytes it was made from.
    std::string render_error, write_error;
    auto fixed = workspace::renderText(result.form, report.text, result.history, render_error);
    bool written = fixed && writeFileAtomically(report.path, *fixed,
                                                workspace::renderOriginal(result.form, result.original),
                                                result.identity, roots, write_error);
    if (!written) {
      if (fixed) report.error = write_error;
      else report.notice = render_error;
      // Report against what is on disk: the original text.
      report.diagnostics = workspace::lintOriginal(result);
      report.text = std::move(result.original);
      report.findings_fixed = 0;
    }
  }
  // Rows and columns are needed only to print findings (most files have none); a notebook's
  // findings are mapped to their cells.
  if (!report.diagnostics.empty() || notebook) report.lines = analysis::LineIndex(report.text);
  if (notebook) mapCells(report, *notebook);
  if (report.diagnostics.empty()) {
    report.text.clear();
    report.text.shrink_to_fit();
    report.lines = {};
  }
}

workspace::EngineOptions engineOptions(const CheckOptions& options, bool use_cache) {
  workspace::EngineOptions engine;
  engine.overrides = options.overrides;
  if (options.unsafe_fixes_flag) engine.overrides.unsafe_fixes = true;
  if (options.no_unsafe_fixes_flag) engine.overrides.unsafe_fixes = false;
  engine.explicit_config = options.config;
  engine.fix = options.fix || options.diff;
  engine.threads = options.threads;
  engine.cache_dir = options.cache_dir;
  // The cache serves plain checks only: fixing always works on the file as it is.
  if (use_cache && !options.no_cache && !engine.fix) {
    std::error_code ec;
    fs::path cwd = fs::current_path(ec);
    if (!ec) engine.cache_folder = cwd;
  }
  return engine;
}

// `-v`: where each file's settings come from, and the files found (stderr, as Ruff's debug log).
void logSettings(const std::vector<std::string>& files, workspace::Engine& engine, std::ostream& err) {
  std::vector<std::string> seen;
  for (const fs::path file : files) {
    std::string source = "defaults (no configuration file)";
    try {
      auto resolved = engine.resolver().forFile(file);
      if (resolved.source && !resolved.source->path.empty()) source = resolved.source->path.string();
    } catch (const std::exception&) {
      continue;  // reported as a configuration error below
    }
    if (std::find(seen.begin(), seen.end(), source) != seen.end()) continue;
    seen.push_back(source);
    err << "[ptlint] Using configuration " << escapeControl(source) << "\n";
  }
  err << fmt::format("[ptlint] Found {} file{} to check\n", files.size(), files.size() == 1 ? "" : "s");
}

// `--compile-log`: reads the log, maps it to the checked files and hands the engine each file's
// findings. A log that cannot be read (or is garbled part-way) is an error (exit 2) naming the
// line; what was read before it is still reported, and every static finding is.
bool applyCompileLog(const fs::path& path, const std::vector<fs::path>& files, workspace::Engine& engine,
                     std::ostream& err) {
  workspace::CompileLog log = workspace::readCompileLog(path);
  for (const auto& w : log.warnings) err << "warning: " << escapeControl(w) << "\n";
  if (log.best_effort)
    err << fmt::format("warning: {}: a torch.compile log in a format no known release (2.4 to 2.14) writes; read on "
                       "a best-effort basis\n",
                       escapeControl(path.string()));
  auto mapping = std::make_shared<workspace::CompileLogMapping>(workspace::mapCompileLog(log, files));
  for (const auto& note : mapping->notes) err << "warning: " << escapeControl(note) << "\n";
  engine.setRuntime([mapping](const fs::path& file) -> std::shared_ptr<const rules::RuntimeFindings> {
    auto it = mapping->per_file.find(file);
    return it == mapping->per_file.end() ? nullptr : it->second;
  });
  if (!log.error) return true;
  err << fmt::format("error: {}{}\n", escapeControl(*log.error),
                     log.breaks.empty() && log.recompiles.empty() ? "" : " (the records before it are reported)");
  return false;
}

// `--stdin-filename`: standard input checked as that file. Returns the exit code when done
// (fix mode prints the fixed text), nullopt to report `reports` as a plain check does.
std::optional<int> checkStdin(const CheckOptions& options, std::istream& in, std::ostream& out, std::ostream& err,
                              OutputOptions& output, std::vector<FileReport>& reports, bool& had_error) {
  workspace::Engine engine(engineOptions(options, false));
  FileReport report;
  std::error_code ec;
  report.path = fs::absolute(*options.stdin_filename, ec).lexically_normal().native();
  if (options.compile_log && !applyCompileLog(*options.compile_log, {report.path}, engine, err)) had_error = true;
  report.display_path = displayPath(report.path);
  std::string bytes;
  bool too_large = !readLimited(in, bytes);
  workspace::FileResult result;
  if (!too_large) result = engine.check({report.path, bytes, std::nullopt});
  if (result.status == workspace::FileStatus::ConfigError) {
    err << "error: invalid configuration: " << *result.error << "\n";
    if (options.fix) out << bytes;  // never lose the user's text
    return 2;
  }
  if (too_large) {
    err << fmt::format("error: {}: standard input is too large (more than {} bytes, the limit for every file); "
                       "nothing was checked\n",
                       report.display_path, kMaxFileBytes);
    if (options.fix) {
      // Never lose the user's text: pass it through unchanged, without holding all of it.
      out << bytes;
      char buffer[65536];
      while (in.read(buffer, sizeof buffer) || in.gcount() > 0) out.write(buffer, in.gcount());
    }
    return 2;
  }
  output.unsafe_fixes = result.unsafe_fixes;
  if (result.status != workspace::FileStatus::Checked) {
    err << fmt::format("error: {}: {}\n", report.display_path, result.error.value_or("not checked"));
    if (options.fix) out << bytes;  // never lose the user's text
    return 2;
  }
  report.diagnostics = std::move(result.diagnostics);
  report.notice = std::move(result.notice);
  report.findings_fixed = result.findings_fixed;
  report.text = std::move(result.text);
  bool print_fixed = options.fix && !options.diff;
  const workspace::Notebook* notebook = result.form.notebook.get();
  if (options.diff && result.changed) {
    std::string diff_error;
    if (!notebook)
      report.diff = unifiedDiff(bomOf(result) + result.original, bomOf(result) + report.text, report.display_path);
    else if (!notebookDiff(*notebook, report.text, result.history, report.display_path, report.diff, diff_error))
      report.diff.clear();
  }
  if (print_fixed) {
    // The fixed text in the input's own form; unchanged (as it came) when it cannot be.
    std::string render_error;
    std::optional<std::string> rendered;
    if (result.changed) rendered = workspace::renderText(result.form, report.text, result.history, render_error);
    if (!render_error.empty()) report.notice = render_error;
    out << (rendered ? *rendered : bytes);
  }
  report.lines = analysis::LineIndex(report.text);
  if (notebook) mapCells(report, *notebook);
  if (print_fixed) {
    // Fix mode on stdin prints the fixed source, diagnostics go to stderr.
    if (report.notice) err << fmt::format("warning: {}: {}\n", report.display_path, *report.notice);
    if (!options.quiet && !options.fix_only) writeDiagnostics(err, {report}, output);
    if (options.exit_zero) return 0;
    if (options.exit_non_zero_on_fix && report.findings_fixed > 0) return 1;
    return report.diagnostics.empty() || options.fix_only ? 0 : 1;
  }
  reports.push_back(std::move(report));
  return std::nullopt;
}

}  // namespace

int runCheck(const CheckOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  if (options.show_files) return runShowFiles(options, out, err);
  if (options.show_settings) return runShowSettings(options, out, err);
  if (options.add_noqa) return runAddNoqa(options, out, err);
  bool had_error = false;
  size_t unchecked = 0;  // paths asked for that could not be checked (walk errors, unreadable files)

  OutputOptions output;
  output.format = options.format.value_or(::isatty(STDOUT_FILENO) ? OutputFormat::Full : OutputFormat::Concise);
  output.color = options.color;
  Styles st{options.color};
  auto started = std::chrono::steady_clock::now();
  output.unsafe_fixes = options.unsafe_fixes_flag ? true
                        : options.no_unsafe_fixes_flag ? false
                                                       : options.overrides.unsafe_fixes.value_or(false);

  std::vector<FileReport> reports;
  // Invalid configurations, each once: their files are not checked, every other file is.
  std::vector<std::string> config_errors;
  auto addConfigError = [&](const std::string& message) {
    if (std::find(config_errors.begin(), config_errors.end(), message) == config_errors.end())
      config_errors.push_back(message);
  };
  if (options.stdin_filename) {
    if (auto code = checkStdin(options, in, out, err, output, reports, had_error)) return *code;
  } else {
    workspace::Engine engine(engineOptions(options, true));
    std::vector<fs::path> paths = options.paths.empty() ? std::vector<fs::path>{"."} : options.paths;
    auto walk = workspace::collectFiles(paths, engine.resolver(), options.force_exclude);
    for (auto& e : walk.errors) {
      err << "error: " << escapeControl(e) << "\n";
      had_error = true;
      ++unchecked;
    }
    for (auto& e : walk.config_errors) {
      addConfigError(e);
      ++unchecked;
    }
    for (auto& w : walk.warnings) err << "warning: " << escapeControl(w) << "\n";
    if (options.verbose) logSettings(walk.files, engine, err);
    if (auto problem = engine.cacheProblem()) err << "warning: " << *problem << "\n";

    std::vector<fs::path> roots;
    for (auto& p : paths) {
      std::error_code ec;
      roots.push_back(fs::absolute(p, ec).lexically_normal());
    }
    if (options.fix && !options.diff) removeStaleTemporaries(walk.files);
    if (options.compile_log &&
        !applyCompileLog(*options.compile_log, std::vector<fs::path>(walk.files.begin(), walk.files.end()), engine, err))
      had_error = true;
    std::vector<workspace::FileInput> inputs;
    inputs.reserve(walk.files.size());
    for (auto& file : walk.files) inputs.push_back({std::move(file), std::nullopt, std::nullopt});
    walk.files = {};  // moved: no second copy of every path
    reports.resize(inputs.size());
    std::mutex err_mutex;
    std::error_code cwd_error;
    const fs::path cwd = fs::current_path(cwd_error);  // once, not per file
    workspace::RunHooks hooks;
    hooks.on_result = [&](size_t i, workspace::FileResult& result) {
      try {
        finishReport(reports[i], result, options, roots, cwd);
      } catch (const std::bad_alloc&) {
        reports[i].error = "out of memory while reporting the file";  // the others go on
      } catch (const std::exception& e) {
        reports[i].error = e.what();
      }
      result = workspace::FileResult{};  // the report holds what is shown: the run's results are not read
    };
    hooks.warn = [&](const std::string& warning) {
      std::lock_guard lock(err_mutex);
      err << "warning: " << warning << "\n";
    };
    engine.run(inputs, hooks);
    engine.save();
    // What the project index could not list: its cross-file facts are incomplete. Past a limit
    // the check is too (exit 2), though every file was linted.
    for (const auto& problem : engine.projectProblems()) {
      err << "warning: " << escapeControl(problem.message) << "\n";
      if (problem.limit) {
        had_error = true;
        ++unchecked;
      }
    }
    for (auto& r : reports)
      if (r.config_error) {
        addConfigError(*r.config_error);
        ++unchecked;
      }
  }
  for (const auto& e : config_errors) err << "error: invalid configuration: " << e << "\n";
  if (!config_errors.empty()) had_error = true;

  if (options.gpu_check) validateAttentionFixes(reports, err);

// Report.
  size_t remaining = 0, fixed = 0, fixable = 0, hidden = 0;
  for (auto& r : reports) {
    if (r.error) {
      err << fmt::format("error: {}: {}\n", r.display_path, *r.error);
      had_error = true;
      ++unchecked;
    }
    if (r.notice) err << fmt::format("warning: {}: {}\n", r.display_path, *r.notice);
    remaining += r.diagnostics.size();
    fixed += static_cast<size_t>(r.findings_fixed);
    bool unsafe_ok = output.unsafe_fixes || r.unsafe_fixes;
    for (auto& d : r.diagnostics)
      if (d.fix && (d.fix->applicability == quickfix::Applicability::Safe ||
                    (unsafe_ok && d.fix->applicability == quickfix::Applicability::Unsafe)))
        ++fixable;
      else if (d.fix && !unsafe_ok && d.fix->applicability == quickfix::Applicability::Unsafe)
        ++hidden;
  }
  bool diff_changes = false;
  if (options.diff) {
    for (auto& r : reports)
      if (!r.diff.empty()) {
        out << r.diff;
        diff_changes = true;
      }
    if (!options.quiet)
      err << fmt::format("{} fix{} would be applied.\n", fixed, fixed == 1 ? "" : "es");
    if (had_error) return 2;
    return diff_changes && !options.exit_zero ? 1 : 0;
  }
  if (options.verbose)
    err << fmt::format("[ptlint] Checked {} file{} in {} ms\n", reports.size(), reports.size() == 1 ? "" : "s",
                       std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
                           .count());

  if (options.fix_only) {
    // Ruff's --fix-only: what was fixed, never what remains.
    if (!options.quiet) {
      if (hidden > 0 && fixed > 0)
        out << fmt::format("Fixed {} error{} ({} additional fix{} available with `--unsafe-fixes`).\n", fixed,
                           fixed == 1 ? "" : "s", hidden, hidden == 1 ? "" : "es");
      else if (hidden > 0)
        out << fmt::format("No errors fixed ({} fix{} available with `--unsafe-fixes`).\n", hidden,
                           hidden == 1 ? "" : "es");
      else if (fixed > 0)
        out << fmt::format("Fixed {} error{}.\n", fixed, fixed == 1 ? "" : "s");
    }
    if (had_error) return 2;
    return options.exit_non_zero_on_fix && fixed > 0 && !options.exit_zero ? 1 : 0;
  }

  if (options.statistics) {
    writeStatistics(out, reports, output);
  } else {
    writeDiagnostics(out, reports, output);
  }
  if (!options.quiet && !isMachineFormat(output.format)) {
    if (remaining == 0 && fixed == 0 && unchecked > 0) {
      // Not "All checks passed!": something that was asked for was not (fully) checked.
      out << fmt::format("No findings in what could be checked; {} error{} above.\n", unchecked,
                         unchecked == 1 ? "" : "s");
    } else if (remaining == 0 && fixed == 0) {
      out << st.paint(st.success(), "All checks passed!") << "\n";
    } else if (fixed > 0) {
      out << fmt::format("Found {} error{} ({} fixed, {} remaining).\n", remaining + fixed,
                         remaining + fixed == 1 ? "" : "s", fixed, remaining);
    } else {
      out << fmt::format("Found {} error{}.\n", remaining, remaining == 1 ? "" : "s");
    }
    std::string hidden_hint =
        hidden == 0 ? "" : fmt::format("{} hidden fix{} can be enabled with the `--unsafe-fixes` option", hidden,
                                       hidden == 1 ? "" : "es");
    if (fixable > 0 && !options.fix)
      out << fmt::format("[{}] {} fixable with the `--fix` option{}.\n", st.paint(st.separator(), "*"), fixable,
                         hidden_hint.empty() ? "" : " (" + hidden_hint + ")");
    else if (!hidden_hint.empty())
      out << fmt::format("No fixes available ({}).\n", hidden_hint);
    if (options.show_fixes && fixed > 0) {
      out << fmt::format("Fixed {} error{}:\n", fixed, fixed == 1 ? "" : "s");
      for (auto& r : reports)
        if (r.findings_fixed > 0) out << fmt::format("- {}: {} fixed\n", r.display_path, r.findings_fixed);
    }
  }
  if (had_error) return 2;
  if (options.exit_zero) return 0;
  if (options.exit_non_zero_on_fix && fixed > 0) return 1;
  return remaining > 0 ? 1 : 0;
}

}  // namespace ptlint::cli
