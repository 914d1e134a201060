#include "cli/adoption.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <ostream>
#include <set>

#include "analysis/noqa.h"
#include "analysis/syntax.h"
#include "cli/file_io.h"
#include "quickfix/edit_guard.h"
#include "workspace/notebook_edits.h"
#include "workspace/notebook.h"
#include "rules/linter.h"
#include "rules/noqa/unused_noqa.h"
#include "rules/registry.h"
#include "workspace/engine.h"
#include "workspace/walk.h"

namespace fs = std::filesystem;

namespace ptlint::cli {
namespace {

std::string shownPath(const fs::path& absolute) {
  std::error_code ec;
  fs::path rel = absolute.lexically_relative(fs::current_path(ec));
  if (!ec && !rel.empty() && !rel.native().starts_with("..")) return rel.string();
  return absolute.string();
}

workspace::Overrides effectiveOverrides(const CheckOptions& options) {
  workspace::Overrides overrides = options.overrides;
  if (options.unsafe_fixes_flag) overrides.unsafe_fixes = true;
  if (options.no_unsafe_fixes_flag) overrides.unsafe_fixes = false;
  return overrides;
}

std::vector<fs::path> rootsOf(const CheckOptions& options) {
  return options.paths.empty() ? std::vector<fs::path>{"."} : options.paths;
}

std::string joinList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", \"" : "\"") + items[i] + "\"";
  return out + "]";
}

}  // namespace

std::string addNoqaDirectives(const analysis::ParsedFile& file, const std::vector<rules::Diagnostic>& diagnostics,
                              int& added, int& skipped, std::vector<quickfix::Edit>* edits,
                              const std::function<bool(const quickfix::Edit&)>& allow) {
  std::string_view text = file.text();
  analysis::NoqaIndex noqa = analysis::NoqaIndex::build(file);
  std::map<uint32_t, std::set<std::string>> by_row;
  for (const auto& d : diagnostics) {
    if (d.code == rules::syntaxErrorMeta().code || d.code == rules::unusedNoqaMeta().code) continue;
    by_row[file.lines().lineOf(d.start)].insert(std::string(d.code));
  }
  struct Insert {
    uint32_t at;
    std::string content;
  };
  std::vector<Insert> inserts;
  quickfix::LexicalMap lexical(text);
  for (const auto& [row, codes] : by_row) {
    const analysis::NoqaDirective* directive = noqa.directiveOnRow(row);
    if (directive && directive->all) continue;
    std::vector<std::string> missing;
    for (const auto& code : codes) {
      bool covered = directive && std::any_of(directive->codes.begin(), directive->codes.end(),
                                              [&](const std::string& c) { return analysis::codeMatches(c, code); });
      if (!covered) missing.push_back(code);
    }
    if (missing.empty()) continue;
    std::string list;
    for (const auto& code : missing) list += (list.empty() ? "" : ", ") + code;
    // One placement for --add-noqa and the editor's "Disable for this line": never inside a
    // string, never after a `\` continuation, never on a line an editor shows differently.
    std::optional<uint32_t> codes_end;
    if (directive && !directive->codes.empty()) codes_end = directive->codes_end;
    auto edit = quickfix::noqaInsertion(text, lexical, file.lines().lineStart(row), list, codes_end);
    if (!edit || !lexical.allows(*edit) || (allow && !allow(*edit))) {
      skipped += static_cast<int>(missing.size());
      continue;
    }
    inserts.push_back({edit->start, edit->content});
    added += static_cast<int>(missing.size());
  }
  std::string out(text);
  std::sort(inserts.begin(), inserts.end(), [](const Insert& a, const Insert& b) { return a.at > b.at; });
  for (const auto& insert : inserts) out.insert(insert.at, insert.content);
  if (edits)
    for (auto it = inserts.rbegin(); it != inserts.rend(); ++it) edits->push_back({it->at, it->at, it->content});
  return out;
}

int runAddNoqa(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  (void)out;
  // The findings are the engine's, as `ptlint check` finds them (cross-file facts included), so
  // that no comment is written for a finding the check does not report.
  workspace::EngineOptions engine_options;
  engine_options.overrides = effectiveOverrides(options);
  engine_options.explicit_config = options.config;
  engine_options.threads = options.threads;
  workspace::Engine engine(std::move(engine_options));
  auto roots = rootsOf(options);
  auto walk = workspace::collectFiles(roots, engine.resolver(), options.force_exclude);
  bool had_error = !walk.errors.empty() || !walk.config_errors.empty();
  std::set<std::string> config_errors(walk.config_errors.begin(), walk.config_errors.end());
  for (auto& e : walk.config_errors) err << "error: invalid configuration: " << e << "\n";
  for (auto& e : walk.errors) err << "error: " << e << "\n";
  for (auto& w : walk.warnings) err << "warning: " << w << "\n";
  std::vector<fs::path> allowed;
  for (auto& p : roots) allowed.push_back(fs::absolute(p).lexically_normal());
  std::vector<workspace::FileInput> inputs;
  for (auto& file : walk.files) inputs.push_back({file, std::nullopt, std::nullopt});
  auto results = engine.run(inputs);
  int total = 0;
  for (auto& result : results) {
    const fs::path& path = result.path;
    if (result.status == workspace::FileStatus::ConfigError) {
      if (config_errors.insert(*result.error).second) err << "error: invalid configuration: " << *result.error << "\n";
      had_error = true;
      continue;
    }
    if (result.status != workspace::FileStatus::Checked) {
      err << fmt::format("error: {}: {}\n", shownPath(path), result.error.value_or("not checked"));
      had_error = true;
      continue;
    }
    if (result.diagnostics.empty()) continue;
    const workspace::Notebook* notebook = result.form.notebook.get();
    if (result.form.endings == LoneCr::Mixed) {
      err << fmt::format("warning: {}: mixes lone `\\r` line endings with others; no `# noqa` comments were added\n",
                         shownPath(path));
      continue;
    }
    // A notebook: the comments go into its joined code cells, written back cell by cell.
    std::optional<workspace::JoinedTracker> tracker;
    std::function<bool(const quickfix::Edit&)> allow;
    if (notebook) {
      tracker.emplace(*notebook);
      allow = [&tracker](const quickfix::Edit& e) { return tracker->allows(e); };
    }
    auto parsed = analysis::ParsedFile::parse(result.text);
    int added = 0, skipped = 0;
    std::vector<quickfix::Edit> edits;
    std::string text = addNoqaDirectives(parsed, result.diagnostics, added, skipped, &edits, allow);
    if (skipped > 0)
      err << fmt::format("warning: {}: {} finding{} on lines that cannot take a comment (inside a string, "
                         "continued with `\\`{}) were left as they are\n",
                         shownPath(path), skipped, skipped == 1 ? "" : "s", notebook ? ", or an IPython magic" : "");
    if (added == 0) continue;
    // Never write a file the comments would break.
    if (analysis::ParsedFile::parse(text).hasSyntaxErrors() && !parsed.hasSyntaxErrors()) {
      err << fmt::format("warning: {}: adding `# noqa` comments would break the file; it was left as it is\n",
                         shownPath(path));
      continue;
    }
    std::string error;
    auto bytes = workspace::renderText(result.form, text, {edits}, error);
    if (!bytes) {
      err << fmt::format("warning: {}: {}\n", shownPath(path), error);
      continue;
    }
    if (!writeFileAtomically(path, *bytes, workspace::renderOriginal(result.form, result.text), result.identity,
                             allowed, error)) {
      err << fmt::format("error: {}: {}\n", shownPath(path), error);
      had_error = true;
      continue;
    }
    total += added;
  }
  for (const auto& problem : engine.projectProblems()) err << "warning: " << problem.message << "\n";
  err << fmt::format("Added {} noqa directive{}.\n", total, total == 1 ? "" : "s");
  return had_error ? 2 : 0;
}

int runShowFiles(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  try {
    workspace::ConfigResolver resolver(effectiveOverrides(options), options.config);
    auto walk = workspace::collectFiles(rootsOf(options), resolver, options.force_exclude);
    for (auto& e : walk.config_errors) err << "error: invalid configuration: " << e << "\n";
    for (auto& e : walk.errors) err << "error: " << e << "\n";
    for (auto& w : walk.warnings) err << "warning: " << w << "\n";
    for (const auto& file : walk.files) out << file << "\n";
    return walk.errors.empty() && walk.config_errors.empty() ? 0 : 2;
  } catch (const workspace::ConfigError& e) {
    err << "error: invalid configuration: " << e.what() << "\n";
    return 2;
  }
}

int runShowSettings(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  try {
    workspace::ConfigResolver resolver(effectiveOverrides(options), options.config);
    auto walk = workspace::collectFiles(rootsOf(options), resolver, options.force_exclude);
    for (auto& e : walk.errors) err << "error: " << e << "\n";
    for (auto& e : walk.config_errors) err << "error: invalid configuration: " << e << "\n";
    fs::path target = walk.files.empty() ? fs::absolute(rootsOf(options).front()) : fs::path(walk.files.front());
    workspace::ResolvedConfig config = resolver.forPath(target);
    rules::Settings settings = workspace::settingsForFile(config, target);
    out << fmt::format("Resolved settings for: \"{}\"\n", target.string());
    out << fmt::format("Settings path: {}\n",
                       config.source && !config.source->path.empty() ? "\"" + config.source->path.string() + "\""
                                                                     : std::string("none (defaults)"));
    out << "\n# Rules\n";
    out << fmt::format("select = {}\n", settings.select.empty() ? "(default)" : joinList(settings.select));
    out << fmt::format("extend-select = {}\n", joinList(settings.extend_select));
    out << fmt::format("ignore = {}\n", joinList(settings.ignore));
    std::vector<std::string> enabled;
    for (const rules::RuleMeta* meta : rules::allMetas())
      if (settings.isEnabled(meta->code, settings.onByDefault(meta->code, meta->enabled_by_default))) enabled.push_back(std::string(meta->code));
    out << fmt::format("enabled rules = {}\n", joinList(enabled));
    out << "per-file-ignores = {";
    for (size_t i = 0; i < config.per_file_ignores.size(); ++i)
      out << (i ? ", " : "") << "\"" << config.per_file_ignores[i].glob << "\" = " << joinList(config.per_file_ignores[i].codes);
    out << "}\n";
    out << "\n# Fixes\n";
    out << fmt::format("unsafe-fixes = {}\n", settings.unsafe_fixes);
    out << fmt::format("fixable = {}\n", config.fixable ? joinList(*config.fixable) : "[\"ALL\"]");
    out << fmt::format("unfixable = {}\n", joinList(config.unfixable));
    out << "\n# Analysis\n";
    {
      rules::TorchRange range = settings.torchRange();
      out << fmt::format("torch-version = \"{}\"  # {} to {}, from {}\n", range.str(), range.floor().str(),
                         range.newestKnown().str(), range.source.empty() ? "the default" : range.source);
    }
    out << fmt::format("compile-decorators = {}\n", joinList(settings.compile_decorators));
    out << "\n# Files\n";
    out << fmt::format("exclude = {}\n", joinList(config.exclude));
    out << fmt::format("respect-gitignore = {}\n", config.respect_gitignore);
    return walk.errors.empty() && walk.config_errors.empty() ? 0 : 2;
  } catch (const workspace::ConfigError& e) {
    err << "error: invalid configuration: " << e.what() << "\n";
    return 2;
  }
}

int runClean(std::ostream& out, std::ostream& err) {
  std::error_code ec;
  fs::path cache = fs::current_path(ec) / ".ptlint_cache";
  fs::file_status status = fs::symlink_status(cache, ec);
  if (!fs::exists(status)) {
    out << "No cache to remove.\n";
    return 0;
  }
  out << fmt::format("Removing cache at: {}\n", cache.string());
  // A symlink is removed itself, never followed.
  if (fs::is_symlink(status)) fs::remove(cache, ec);
  else fs::remove_all(cache, ec);
  if (ec) {
    err << fmt::format("error: {}: {}\n", cache.string(), ec.message());
    return 2;
  }
  return 0;
}

}  // namespace ptlint::cli
