// The prefilter oracle: every byte-level and tree-level shortcut that skips a file, a rule or
// part of a tree (Rule::prefilter()'s words and conditions, Rule::mayReport, checkRanges, project words)
// must never hide a finding. Every fixture and every fixture project is linted with the
// prefilters on and with them off (analysis::setPrefiltersDisabled, PTLINT_NO_PREFILTER=1 for the
// binary), and everything must be identical: findings, messages, ranges, related locations,
// fixes, and the text the fix loop leaves.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/instrumentation.h"
#include "rules/linter.h"
#include "test_files.h"
#include "workspace/pipeline.h"
#include "workspace/engine.h"

using namespace ptlint;
namespace fs = std::filesystem;

namespace {

// Restores the prefilters when a test ends, whatever happens in it.
struct PrefiltersOff {
  PrefiltersOff() { analysis::setPrefiltersDisabled(true); }
  ~PrefiltersOff() { analysis::setPrefiltersDisabled(false); }
};

std::string describe(const std::vector<rules::Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) {
    out += std::string(d.code) + " " + std::to_string(d.start) + "-" + std::to_string(d.end) + " " + d.message;
    if (!d.help.empty()) out += " | help " + d.help;
    for (const auto& related : d.related) out += " | related " + std::to_string(related.start) + " " + related.message;
    if (d.fix) {
      out += " | fix " + d.fix->message;
      for (const auto& edit : d.fix->edits)
        out += " [" + std::to_string(edit.start) + "," + std::to_string(edit.end) + ") " + edit.content;
    }
    out += "\n";
  }
  return out;
}

// The fixture's own settings (its `# ptlint-test:` line), as the fixture harness reads them.
rules::Settings fixtureSettings(const fs::path& path, const std::string& text) {
  rules::Settings settings;
  std::string stem = path.stem().string();
  settings.select = {stem.substr(0, stem.find('_'))};
  size_t at = text.find("# ptlint-test:");
  if (at == std::string::npos) return settings;
  std::istringstream options(text.substr(at + 14, text.find('\n', at) - at - 14));
  for (std::string option; options >> option;) {
    if (option.starts_with("select=")) {
      settings.select.clear();
      std::istringstream codes(option.substr(7));
      for (std::string code; std::getline(codes, code, ',');)
        if (!code.empty()) settings.select.push_back(code);
    } else if (option.starts_with("torch-version=")) {
      if (auto range = rules::TorchRange::parse(option.substr(14))) settings.setTorchRange(*range);
    } else if (option == "unsafe-fixes") {
      settings.unsafe_fixes = true;
    } else if (option.starts_with("compile-decorators=")) {
      std::istringstream names(option.substr(19));
      for (std::string name; std::getline(names, name, ',');)
        if (!name.empty()) settings.compile_decorators.push_back(name);
    }
  }
  return settings;
}

// What the CLI's pipeline gives on one text: the findings, then the text after the fix loop.
std::string lintAndFix(const std::string& text, const rules::Settings& settings) {
  workspace::LintRequest request;
  request.settings = settings;
  auto found = workspace::lintSource(text, request, workspace::LoneCr::None, nullptr);
  request.fix = true;
  auto fixed = workspace::lintSource(text, request, workspace::LoneCr::None, nullptr);
  return describe(found.diagnostics) + "--- fixed:\n" + fixed.text + "--- left:\n" + describe(fixed.diagnostics);
}

TEST(PrefilterOracle, FixturesGiveTheSameWithPrefiltersOff) {
  std::vector<fs::path> paths = test_files::pythonFilesUnder(PTLINT_FIXTURES_DIR, 2'000'000);
  ASSERT_GT(paths.size(), 100u);
  for (const fs::path& path : paths) {
    SCOPED_TRACE(path.string());
    std::string text = test_files::readFile(path);
    rules::Settings own = fixtureSettings(path, text), all = own;
    all.select = {"ALL"};
    for (const rules::Settings* settings : {&own, &all}) {
      std::string on = lintAndFix(text, *settings);
      std::string off;
      {
        PrefiltersOff guard;
        off = lintAndFix(text, *settings);
      }
      EXPECT_EQ(on, off) << "a prefilter hides something in " << path << " (select "
                         << (settings == &all ? "ALL" : "as the fixture says") << ")";
    }
  }
}

// Each project through the engine, as `ptlint check` runs it: its configuration, the project
// index's facts from the other files, every rule and the default ones.
std::string checkProject(const fs::path& project, bool select_all) {
  workspace::EngineOptions options;
  options.threads = 1;
  if (select_all) options.overrides.select = std::vector<std::string>{"ALL"};
  workspace::Engine engine(std::move(options));
  std::string out;
  for (const fs::path& path : test_files::pythonFilesUnder(project, 2'000'000)) {
    auto result = engine.check({fs::absolute(path), std::nullopt, std::nullopt}, {});
    out += path.string() + "\n" + describe(result.diagnostics);
  }
  return out;
}

TEST(PrefilterOracle, ProjectsGiveTheSameWithPrefiltersOff) {
  fs::path projects = fs::path(PTLINT_FIXTURES_DIR).parent_path() / "projects";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(projects)) {
    if (!entry.is_directory()) continue;
    SCOPED_TRACE(entry.path().string());
    for (bool select_all : {false, true}) {
      std::string on = checkProject(entry.path(), select_all);
      std::string off;
      {
        PrefiltersOff guard;
        off = checkProject(entry.path(), select_all);
      }
      EXPECT_EQ(on, off) << "a prefilter hides something in " << entry.path() << (select_all ? " (select ALL)" : "");
    }
    ++count;
  }
  EXPECT_GT(count, 5);
}

}  // namespace
