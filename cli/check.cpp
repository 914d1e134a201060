#include "cli/check.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>

#include "cli/adoption.h"
#include "cli/diff.h"
#include "cli/file_io.h"
#include "cli/gpu_validation.h"
#include "cli/notebook_check.h"
#include "quickfix/fix_loop.h"
#include "rules/linter.h"
#include "workspace/cache.h"
#include "workspace/project_index.h"
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
std::string displayPath(const fs::path& absolute) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  std::string shown = absolute.string();
  if (!ec) {
    fs::path rel = absolute.lexically_relative(cwd);
    if (!rel.empty() && !rel.native().starts_with("..")) shown = rel.string();
  }
  return escapeControl(shown);
}

quickfix::Applicability minimumApplicability(const rules::Settings& settings) {
  return settings.unsafe_fixes ? quickfix::Applicability::Unsafe : quickfix::Applicability::Safe;
}

// Lints (and with --fix, fixes) one source text whose lone '\r' were made '\n' (`endings` says
// what it held). `report.text` is the final text, with '\n' line ends.
// `keep_fix`, when set, decides which fixes may apply (a notebook keeps them inside cells).
void checkText(FileReport& report, SourceFile source, const rules::Settings& settings,
               const workspace::ResolvedConfig& config, const CheckOptions& options, LoneCr endings,
               const FixFilter& keep_fix = {}) {
  if (endings == LoneCr::Mixed && (options.fix || options.diff)) {
    // A fixed text could not be given back the file's own mix of line endings.
    report.notice = "not fixed: the file ends some lines with a lone \\r and others with \\n; "
                    "give it one kind of line ending to let --fix change it";
    CheckOptions lint_only = options;
    lint_only.fix = lint_only.diff = false;
    return checkText(report, std::move(source), settings, config, lint_only, LoneCr::None, keep_fix);
  }
  // A file in which no enabled rule could match is neither parsed nor fixed.
  std::vector<const rules::Rule*> candidates = rules::rulesThatMayMatch(source.text, settings);
  if (rules::cannotMatch(source.text, settings, candidates)) {
    report.text = std::move(source.text);
    return;
  }
  std::string original = source.text;
  bool want_fix = options.fix || options.diff;
  size_t initial_findings = 0;
  if (want_fix) {
    bool first_pass = true;
    auto provider = [&](const analysis::ParsedFile& file) {
      std::vector<quickfix::Fix> fixes;
      auto lint = rules::lintFile(file, settings);
      dropUnfixable(lint.diagnostics, config);
      if (first_pass) initial_findings = lint.diagnostics.size();
      first_pass = false;
      for (auto& d : lint.diagnostics)
        if (d.fix && (!keep_fix || keep_fix(file.text(), *d.fix))) fixes.push_back(std::move(*d.fix));
      return fixes;
    };
    auto outcome = quickfix::fixToFixpoint(std::move(source.text), minimumApplicability(settings), provider);
    if (outcome.reverted) report.notice = "a fix would have introduced a syntax error; it was not applied";
    if (outcome.hit_pass_cap) report.notice = "fixes did not converge after " + std::to_string(quickfix::kMaxFixPasses) + " passes";
    source.text = std::move(outcome.text);
  }
  auto parsed = analysis::ParsedFile::parse(source.text);
  // The byte-level tests already ran on this text unless fixes changed it.
  auto result = want_fix && source.text != original ? rules::lintFile(parsed, settings)
                                                    : rules::lintFile(parsed, settings, std::move(candidates));
  report.diagnostics = std::move(result.diagnostics);
  dropUnfixable(report.diagnostics, config);
  if (want_fix && source.text != original) {
    // Findings resolved, as Ruff counts them (one fix can resolve several).
    report.findings_fixed = static_cast<int>(initial_findings > report.diagnostics.size()
                                                ? initial_findings - report.diagnostics.size() : 0);
    std::string bom = source.had_bom ? "\xEF\xBB\xBF" : "";
    if (options.diff) report.diff = unifiedDiff(bom + original, bom + source.text, report.display_path);
  }
  report.text = std::move(source.text);
  report.lines = analysis::LineIndex(report.text);
}

}  // namespace

int runCheck(const CheckOptions& options, std::istream& in, std::ostream& out, std::ostream& err) {
  if (options.show_files) return runShowFiles(options, out, err);
  if (options.show_settings) return runShowSettings(options, out, err);
  if (options.add_noqa) return runAddNoqa(options, out, err);
  workspace::Overrides overrides = options.overrides;
  if (options.unsafe_fixes_flag) overrides.unsafe_fixes = true;
  if (options.no_unsafe_fixes_flag) overrides.unsafe_fixes = false;
  workspace::ConfigResolver resolver(overrides, options.config);
  bool had_error = false;
  size_t unchecked = 0;  // paths asked for that could not be checked (walk errors, unreadable files)

  OutputOptions output;
  output.format = options.format.value_or(::isatty(STDOUT_FILENO) ? OutputFormat::Full : OutputFormat::Concise);
  output.unsafe_fixes = overrides.unsafe_fixes.value_or(false);

  std::vector<FileReport> reports;
  std::vector<std::string> walk_warnings;
  // Cross-file facts, read on demand through the same reader as the checked files.
  workspace::ProjectIndex project_index([](const fs::path& path) -> std::optional<std::string> {
    std::string error;
    auto source = readSourceFile(path, error);
    if (!source) return std::nullopt;
    if (workspace::isNotebookPath(path.native())) {
      auto notebook = workspace::parseNotebook(source->text, error);
      if (!notebook) return std::nullopt;
      source->text = notebook->joined;
    }
    normalizeLoneCr(source->text);
    return std::optional<std::string>(std::move(source->text));
  }, kMaxFileBytes);

  try {
    if (options.stdin_filename) {
      FileReport report;
      std::error_code ec;
      report.path = fs::absolute(*options.stdin_filename, ec).lexically_normal();
      report.display_path = displayPath(report.path);
      workspace::ResolvedConfig config = resolver.forPath(report.path);
      rules::Settings settings = workspace::settingsForFile(config, report.path);
      output.unsafe_fixes = settings.unsafe_fixes;
      std::string bytes;
      if (!readLimited(in, bytes)) {
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
      std::string error;
      auto source = decodeSource(bytes, error);
      LoneCr endings = source ? normalizeLoneCr(source->text) : LoneCr::None;
      if (!source) {
        err << fmt::format("error: {}: {}\n", report.display_path, error);
        if (options.fix) out << bytes;  // never lose the user's text
        return 2;
      }
      bool had_bom = source->had_bom;
      std::optional<workspace::Notebook> notebook;
      std::string notebook_bytes;
      if (workspace::isNotebookPath(report.path.native())) {
        notebook = workspace::parseNotebook(source->text, error);
        if (!notebook) {
          err << fmt::format("error: {}: {}\n", report.display_path, error);
          if (options.fix) out << bytes;  // never lose the user's text
          return 2;
        }
        if (endings != LoneCr::None) endings = LoneCr::Mixed;  // lint only: the JSON is given back as it came
        notebook_bytes = std::move(source->text);
        source->text = notebook->joined;
        normalizeLoneCr(source->text);
      }
      std::string joined = notebook ? notebook->joined : std::string();
      if (rules::asksProject(source->text, settings)) settings.project = project_index.factsFor(report.path);
      checkText(report, std::move(*source), settings, config, options, endings,
                notebook ? notebookFixFilter(*notebook) : FixFilter{});
      if (notebook) {
        dropCrossCellFixes(report, *notebook);
        std::string map_error;
        if (options.diff && report.text != joined &&
            !notebookDiff(*notebook, report.text, report.display_path, report.diff, map_error))
          report.diff.clear();
        std::optional<std::string> rendered;
        if (options.fix && !options.diff && report.text != joined)
          rendered = workspace::renderNotebook(notebook_bytes, *notebook, report.text, map_error);
        if (!map_error.empty()) report.notice = map_error;
        mapCells(report, *notebook);
        if (options.fix && !options.diff) {
          if (rendered) out << (had_bom ? "\xEF\xBB\xBF" : "") << *rendered;
          else out << bytes;  // unchanged, as it came
          if (report.notice) err << fmt::format("warning: {}: {}\n", report.display_path, *report.notice);
          if (!options.quiet) writeDiagnostics(err, {report}, output);
          return report.diagnostics.empty() || options.exit_zero ? 0 : 1;
        }
      }
      if (options.fix && !options.diff) {
        // Fix mode on stdin prints the fixed source, diagnostics go to stderr.
        if (endings == LoneCr::Mixed) {
          out << bytes;
        } else {
          std::string text = report.text;
          if (endings == LoneCr::Only) restoreLoneCr(text);
          out << (had_bom ? "\xEF\xBB\xBF" : "") << text;
        }
        if (report.notice) err << fmt::format("warning: {}: {}\n", report.display_path, *report.notice);
        if (!options.quiet) writeDiagnostics(err, {report}, output);
        return report.diagnostics.empty() || options.exit_zero ? 0 : 1;
      }
      reports.push_back(std::move(report));
    } else {
      std::vector<fs::path> paths = options.paths.empty() ? std::vector<fs::path>{"."} : options.paths;
      auto walk = workspace::collectFiles(paths, resolver, options.force_exclude);
      for (auto& e : walk.errors) {
        err << "error: " << escapeControl(e) << "\n";
        had_error = true;
        ++unchecked;
      }
      walk_warnings = std::move(walk.warnings);
      for (auto& w : walk_warnings) err << "warning: " << escapeControl(w) << "\n";

      reports.resize(walk.files.size());
      std::vector<fs::path> roots;
      for (auto& p : paths) {
        std::error_code ec;
        roots.push_back(fs::absolute(p, ec).lexically_normal());
      }
      if (options.fix && !options.diff) removeStaleTemporaries(walk.files);
      unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
      threads = std::min<unsigned>(threads, std::max<size_t>(1, walk.files.size()));
      // The cache serves plain checks only: fixing always works on the file as it is.
      std::unique_ptr<workspace::ResultsCache> cache;
      if (!options.no_cache && !options.fix && !options.diff) {
        std::error_code ec;
        fs::path cwd = fs::current_path(ec);
        if (!ec) {
          cache = std::make_unique<workspace::ResultsCache>(cwd);
          if (auto problem = cache->problem())
            err << "warning: " << *problem << "\n";
          else
            project_index.useScanCache(cwd / ".ptlint_cache");
        }
      }
      std::atomic<size_t> next{0};
      std::atomic<bool> config_failed{false};
      std::string config_error;
      std::mutex error_mutex;
      auto worker = [&] {
        for (size_t i = next++; i < walk.files.size(); i = next++) {
          FileReport& report = reports[i];
          report.path = walk.files[i];
          report.display_path = displayPath(report.path);
          try {
            workspace::ResolvedConfig config = resolver.forPath(report.path);
            rules::Settings settings = workspace::settingsForFile(config, report.path);
            report.unsafe_fixes = settings.unsafe_fixes;
            std::string error;
            auto source = readSourceFile(report.path, error);
            if (!source) {
              report.error = error;
              continue;
            }
            // A notebook: its code cells, joined, are linted as one Python text.
            std::optional<workspace::Notebook> notebook;
            std::string notebook_bytes;
            if (workspace::isNotebookPath(report.path.native())) {
              notebook = workspace::parseNotebook(source->text, error);
              if (!notebook) {
                report.error = error;
                continue;
              }
              notebook_bytes = std::move(source->text);
              source->text = notebook->joined;
            }
            LoneCr endings = normalizeLoneCr(source->text);
            if (notebook && endings != LoneCr::None) endings = LoneCr::Mixed;  // lint only
            if (rules::asksProject(source->text, settings)) settings.project = project_index.factsFor(report.path);
            std::string cache_key;
            if (cache) {
              cache_key = workspace::ResultsCache::keyFor(source->text, settings);
              // The stored findings lost the fixes `fixable` / `unfixable` dropped (a prefix:
              // the key ends with the content size).
              if (config.fixable || !config.unfixable.empty()) {
                std::string selection = "fixable:";
                for (const auto& code : config.fixable.value_or(std::vector<std::string>{"ALL"})) selection += code + ",";
                selection += "unfixable:";
                for (const auto& code : config.unfixable) selection += code + ",";
                cache_key = selection + "|" + cache_key;
              }
              if (auto hit = cache->lookup(report.path, cache_key)) {
                report.diagnostics = std::move(*hit);
                dropUnfixable(report.diagnostics, config);
                if (!report.diagnostics.empty()) {
                  report.text = std::move(source->text);
                  report.lines = analysis::LineIndex(report.text);
                  if (notebook) mapCells(report, *notebook);
                }
                continue;
              }
            }
            bool had_bom = source->had_bom;
            FileIdentity identity = source->identity;
            std::string original = source->text;
            checkText(report, std::move(*source), settings, config, options, endings,
                      notebook ? notebookFixFilter(*notebook) : FixFilter{});
            if (notebook) dropCrossCellFixes(report, *notebook);
            if (cache) cache->store(report.path, cache_key, report.diagnostics);
            if (notebook) {
              std::string map_error;
              if (options.diff && report.text != original &&
                  !notebookDiff(*notebook, report.text, report.display_path, report.diff, map_error)) {
                report.diff.clear();
                report.findings_fixed = 0;
                report.notice = map_error;
              }
              if (options.fix && !options.diff && report.text != original) {
                auto fixed = workspace::renderNotebook(notebook_bytes, *notebook, report.text, map_error);
                std::string bom = had_bom ? "\xEF\xBB\xBF" : "";
                std::string write_error;
                if (!fixed) write_error = map_error;
                if (fixed && !writeFileAtomically(report.path, bom + *fixed, bom + notebook_bytes, identity, roots,
                                                  write_error))
                  fixed.reset();
                if (!fixed) {
                  if (map_error.empty()) report.error = write_error;
                  else report.notice = map_error;
                  auto parsed = analysis::ParsedFile::parse(original);
                  report.diagnostics = rules::lintFile(parsed, settings).diagnostics;
                  report.text = std::move(original);
                  report.findings_fixed = 0;
                }
              }
              report.lines = analysis::LineIndex(report.text);
              mapCells(report, *notebook);
            } else if (options.fix && !options.diff && report.text != original) {
              std::string bom = had_bom ? "\xEF\xBB\xBF" : "";
              std::string fixed = bom + report.text, on_disk = bom + original;
              if (endings == LoneCr::Only) {
                restoreLoneCr(fixed);
                restoreLoneCr(on_disk);
              }
              std::string write_error;
              if (!writeFileAtomically(report.path, fixed, on_disk, identity, roots, write_error)) {
                report.error = write_error;
                // Report against what is on disk: the original text.
                auto parsed = analysis::ParsedFile::parse(original);
                report.diagnostics = rules::lintFile(parsed, settings).diagnostics;
                report.text = std::move(original);
                report.lines = analysis::LineIndex(report.text);
                report.findings_fixed = 0;
              }
            }
            if (report.diagnostics.empty()) {
              report.text.clear();
              report.text.shrink_to_fit();
              report.lines = {};
            }
          } catch (const workspace::ConfigError& e) {
            std::lock_guard lock(error_mutex);
            if (!config_failed.exchange(true)) config_error = e.what();
          } catch (const std::exception& e) {
            // An I/O failure (or memory) on one file: reported against it; the others go on.
            report.error = e.what();
          }
        }
      };
      std::vector<std::thread> pool;
      for (unsigned t = 1; t < threads; ++t) {
        try {
          pool.emplace_back(worker);
        } catch (const std::system_error& e) {
          // Out of threads (`ulimit -u`, memory): the ones started share the work.
          err << fmt::format("warning: could start only {} of {} threads ({}); continuing with {}\n", t, threads,
                             e.what(), t);
          break;
        }
      }
      worker();
      for (auto& t : pool) t.join();
      if (config_failed) throw workspace::ConfigError("", 0, "", config_error);
      if (cache) {
        cache->save();
        project_index.saveScanCache();
      }
    }
  } catch (const workspace::ConfigError& e) {
    err << "error: invalid configuration: " << e.what() << "\n";
    return 2;
  }

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

  if (options.statistics) {
    writeStatistics(out, reports, output);
  } else {
    writeDiagnostics(out, reports, output);
  }
  bool machine_format = output.format == OutputFormat::Json || output.format == OutputFormat::JsonLines ||
                        output.format == OutputFormat::Sarif;
  if (!options.quiet && !machine_format) {
    if (remaining == 0 && fixed == 0 && unchecked > 0) {
      // Not "All checks passed!": something that was asked for was not (fully) checked.
      out << fmt::format("No findings in what could be checked; {} error{} above.\n", unchecked,
                         unchecked == 1 ? "" : "s");
    } else if (remaining == 0 && fixed == 0) {
      out << "All checks passed!\n";
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
      out << fmt::format("[*] {} fixable with the `--fix` option{}.\n", fixable,
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
  return remaining > 0 ? 1 : 0;
}

}  // namespace ptlint::cli
