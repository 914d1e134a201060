// The project index against the multi-file projects in tests/projects/: every `.py` file of a
// project is linted the way `ptlint check` lints it (the index consulted when a rule asks), and
// its findings must be exactly the `# expect: CODE` comments of that file. Also: the module
// summary's contents, and that the index parses only what a question reaches.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/module_summary.h"
#include "rules/linter.h"
#include "workspace/project_index.h"

namespace fs = std::filesystem;
using namespace ptlint;

namespace {

const fs::path kProjects = fs::path(PTLINT_FIXTURES_DIR).parent_path() / "projects";

std::optional<std::string> readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::map<uint32_t, std::vector<std::string>> expectations(const std::string& text) {
  std::map<uint32_t, std::vector<std::string>> out;
  std::istringstream lines(text);
  std::string line;
  for (uint32_t row = 0; std::getline(lines, line); ++row) {
    auto pos = line.find("# expect: ");
    if (pos == std::string::npos) continue;
    std::istringstream codes(line.substr(pos + 10));
    std::string code;
    while (std::getline(codes, code, ',')) {
      code.erase(0, code.find_first_not_of(' '));
      code.erase(code.find_last_not_of(" \r") + 1);
      if (!code.empty()) out[row].push_back(code);
    }
  }
  return out;
}

std::vector<fs::path> pythonFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".py") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

struct Finding {
  uint32_t row;
  std::string code;
  rules::Diagnostic diagnostic;
};

// The rules that ask the project index.
const std::vector<std::string> kProjectRules{"PTL501", "PTL502", "PTL504", "PTL603", "PTL702", "PTL201", "PTL406", "PTL707"};

std::vector<Finding> lintInProject(workspace::ProjectIndex& index, const fs::path& file,
                                   const std::vector<std::string>& select = kProjectRules) {
  std::string text = *readText(file);
  rules::Settings settings;
  settings.select = select;
  if (rules::asksProject(text, settings)) settings.project = index.factsFor(fs::absolute(file));
  std::vector<Finding> out;
  if (rules::cannotMatch(text, settings)) return out;
  auto parsed = analysis::ParsedFile::parse(text);
  for (auto& d : rules::lintFile(parsed, settings).diagnostics)
    out.push_back({parsed.lines().lineOf(d.start), std::string(d.code), d});
  return out;
}

class ProjectFixture : public testing::TestWithParam<std::string> {};

TEST_P(ProjectFixture, FindingsMatchExpectations) {
  fs::path project = kProjects / GetParam();
  workspace::ProjectIndex index(readText);
  size_t expected_total = 0;
  for (const fs::path& file : pythonFiles(project)) {
    SCOPED_TRACE(file.string());
    auto expected = expectations(*readText(file));
    std::map<uint32_t, std::vector<std::string>> actual;
    for (auto& f : lintInProject(index, file)) actual[f.row].push_back(f.code);
    for (auto& [row, codes] : expected) expected_total += codes.size();
    // Codes on one line in any order.
    for (auto* rows : {&actual, &expected})
      for (auto& [row, codes] : *rows) std::sort(codes.begin(), codes.end());
    EXPECT_EQ(actual, expected);
  }
  EXPECT_GT(expected_total, 0u) << "a project fixture must expect findings";
}

INSTANTIATE_TEST_SUITE_P(Projects, ProjectFixture,
                         testing::Values("nanogpt", "relimport", "srclayout", "namespace", "keraslike", "flexattn",
                                         "flexunknown", "determinism_unset", "gptlike", "timmlike", "containers", "diffuserslike",
                                         "trainerlike", "graphbreaks", "compilereach", "scriptfolder", "evalgrad",
                                         "samplerepoch", "helpers", "nested", "gptfast", "capture", "capture_setup",
                                         "capture_env", "capture_scoped", "capture_tests", "methodhelper",
                                         "isinstancecompile"));

// Value flow across files: what a helper of another file returns (a device, a dtype, an
// autocast) reaches the rules that ask value flow, with look-alikes beside each positive.
TEST(ProjectIndex, HelperReturnsAcrossFiles) {
  const std::vector<std::string> select{"PTL402", "PTL201", "PTL202", "PTL203", "PTL204", "PTL401"};
  fs::path project = kProjects / "crossvalues";
  workspace::ProjectIndex index(readText);
  size_t expected_total = 0;
  for (const fs::path& file : pythonFiles(project)) {
    SCOPED_TRACE(file.string());
    auto expected = expectations(*readText(file));
    std::map<uint32_t, std::vector<std::string>> actual;
    for (auto& f : lintInProject(index, file, select)) {
      actual[f.row].push_back(f.code);
      // PTL401 on a dataset class of data.py points at its generator there.
      if (f.code == "PTL401") {
        ASSERT_EQ(f.diagnostic.related.size(), 1u);
        EXPECT_EQ(fs::path(f.diagnostic.related[0].path).filename(), "data.py");
        EXPECT_EQ(f.diagnostic.related[0].line, 7u);
        EXPECT_FALSE(f.diagnostic.fix.has_value());
      }
    }
    for (auto& [row, codes] : expected) expected_total += codes.size();
    EXPECT_EQ(actual, expected);
  }
  EXPECT_EQ(expected_total, 16u);
}

// Projects whose look-alikes another file makes right: no finding at all.
TEST(ProjectIndex, QuietProjectsHaveNoFindings) {
  for (const char* name : {"samplerepoch_quiet", "samplerepoch_trainer"}) {
    SCOPED_TRACE(name);
    workspace::ProjectIndex index(readText);
    for (const fs::path& file : pythonFiles(kProjects / name)) {
      SCOPED_TRACE(file.string());
      EXPECT_TRUE(expectations(*readText(file)).empty());
      for (auto& f : lintInProject(index, file)) ADD_FAILURE() << f.code << " at row " << f.row;
    }
  }
}

// What keeps the quiet projects quiet is in another file: their loader module, checked alone
// (no project), reports.
TEST(ProjectIndex, AloneTheLoaderModulesReport) {
  for (const char* name : {"samplerepoch_quiet", "samplerepoch_trainer"}) {
    SCOPED_TRACE(name);
    std::string text = *readText(kProjects / name / "data.py");
    rules::Settings settings;
    settings.select = {"PTL406"};
    auto parsed = analysis::ParsedFile::parse(text);
    EXPECT_EQ(rules::lintFile(parsed, settings).diagnostics.size(), 1u);
  }
}

// A folder of scripts with no project marker (an unpacked archive, a notebook upload): the
// script's folder is an import root, as `python train.py` makes it, and a package beside the
// scripts is compiled from them. The findings match those of the same files under a marker.
TEST(ProjectIndex, WithoutAMarkerTheFindingsAreTheSame) {
  for (const char* name : {"scriptfolder", "compilereach", "nanogpt", "helpers"}) {
    SCOPED_TRACE(name);
    fs::path marked = kProjects / name;
    fs::path bare = fs::temp_directory_path() / ("ptlint-bare-" + std::to_string(::getpid())) / name;
    fs::remove_all(bare);
    fs::create_directories(bare);
    fs::copy(marked, bare, fs::copy_options::recursive);
    fs::remove(bare / "pyproject.toml");
    ASSERT_EQ(workspace::ProjectIndex::projectRoot(bare / "train.py"), bare);  // no marker above
    workspace::ProjectIndex with_marker(readText), without(readText);
    size_t total = 0;
    for (const fs::path& file : pythonFiles(marked)) {
      fs::path rel = file.lexically_relative(marked);
      SCOPED_TRACE(rel.string());
      std::vector<std::pair<uint32_t, std::string>> a, b;
      for (auto& f : lintInProject(with_marker, file)) a.emplace_back(f.row, f.code);
      for (auto& f : lintInProject(without, bare / rel)) b.emplace_back(f.row, f.code);
      EXPECT_EQ(a, b);
      total += a.size();
    }
    EXPECT_GT(total, 0u);
    fs::remove_all(bare.parent_path());
  }
}

// Without a marker, checked from the project's folder (the working folder): the scripts above
// a module in a subfolder without `__init__.py` import it (`from models.net import Net`), and a
// script's own folder resolves its imports (`tools/bench.py` importing `tiny`). The findings
// match those of the same files under a marker.
TEST(ProjectIndex, WithoutAMarkerTheWorkingFolderIsTheProject) {
  for (const char* name : {"nested", "helpers", "scriptfolder"}) {
    SCOPED_TRACE(name);
    fs::path marked = kProjects / name;
    fs::path bare = fs::temp_directory_path() / ("ptlint-cwd-" + std::to_string(::getpid())) / name;
    fs::remove_all(bare);
    fs::create_directories(bare);
    fs::copy(marked, bare, fs::copy_options::recursive);
    fs::remove(bare / "pyproject.toml");
    fs::path previous = fs::current_path();
    fs::current_path(bare);
    workspace::ProjectIndex with_marker(readText), without(readText);
    size_t total = 0;
    for (const fs::path& file : pythonFiles(marked)) {
      fs::path rel = file.lexically_relative(marked);
      SCOPED_TRACE(rel.string());
      std::vector<std::pair<uint32_t, std::string>> a, b;
      for (auto& f : lintInProject(with_marker, file)) a.emplace_back(f.row, f.code);
      for (auto& f : lintInProject(without, bare / rel)) b.emplace_back(f.row, f.code);
      EXPECT_EQ(a, b);
      total += a.size();
    }
    fs::current_path(previous);
    EXPECT_GT(total, 0u);
    fs::remove_all(bare.parent_path());
  }
}

TEST(ProjectIndex, RelatedInformationNamesTheCompileSiteInTheOtherFile) {
  workspace::ProjectIndex index(readText);
  auto findings = lintInProject(index, kProjects / "nanogpt" / "layers.py", {"PTL501"});
  ASSERT_EQ(findings.size(), 1u);
  const auto& related = findings[0].diagnostic.related;
  ASSERT_EQ(related.size(), 3u);
  EXPECT_EQ(fs::path(related[0].path).filename(), "layers.py");  // self.attn(x) in Block.forward
  EXPECT_EQ(related[0].message, "`CausalSelfAttention.forward` is called from compiled `Block.forward` here");
  EXPECT_EQ(fs::path(related[1].path).filename(), "model.py");  // block(x) in GPT.forward
  EXPECT_EQ(related[1].line, 17u);
  EXPECT_EQ(fs::path(related[2].path).filename(), "train.py");
  EXPECT_EQ(related[2].message, "`GPT` is compiled here");
  EXPECT_EQ(related[2].line, 7u);
  EXPECT_EQ(related[2].column, 13u);  // torch.compile(model)
}

TEST(ProjectIndex, OnlyFilesWithACompileSiteOrReachedAreSummarised) {
  workspace::ProjectIndex index(readText);
  // evaluate.py asks (it holds `.item()`); train.py holds the only `compile`; model.py and
  // layers.py are reached from its site. evaluate.py itself is never summarised.
  index.factsFor(fs::absolute(kProjects / "nanogpt" / "evaluate.py"));
  EXPECT_EQ(index.summariesBuilt(), 3u);
}

TEST(ProjectIndex, CheckedAloneAFileStillSeesItsProject) {
  workspace::ProjectIndex index(readText);
  auto findings = lintInProject(index, kProjects / "srclayout" / "src" / "proj" / "net.py", {"PTL501"});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(workspace::ProjectIndex::projectRoot(kProjects / "srclayout" / "src" / "proj" / "net.py"),
            kProjects / "srclayout");
}

TEST(ProjectIndex, FactsFollowTheCompileSite) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-index-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "setup.cfg") << "";
  std::ofstream(dir / "model.py") << "import torch.nn as nn\n\nclass M(nn.Module):\n    def forward(self, x):\n        return x.item()\n";
  std::ofstream(dir / "train.py") << "import torch\nfrom model import M\n\nm = torch.compile(M())\n";
  {
    workspace::ProjectIndex index(readText);
    EXPECT_EQ(lintInProject(index, dir / "model.py").size(), 1u);
  }
  std::ofstream(dir / "train.py") << "import torch\nfrom model import M\n\nm = M()\n";
  {
    workspace::ProjectIndex index(readText);
    EXPECT_TRUE(lintInProject(index, dir / "model.py").empty());
  }
  // Behind @torch.compiler.disable the region stops.
  std::ofstream(dir / "train.py") << "import torch\nfrom model import M\n\nm = torch.compile(M())\n";
  std::ofstream(dir / "model.py")
      << "import torch\nimport torch.nn as nn\n\nclass M(nn.Module):\n    @torch.compiler.disable\n"
         "    def forward(self, x):\n        return x.item()\n";
  {
    workspace::ProjectIndex index(readText);
    EXPECT_TRUE(lintInProject(index, dir / "model.py").empty());
  }
  fs::remove_all(dir);
}

TEST(ProjectIndex, ChainsWithinTheFileKeepTheirOwnRoot) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-chain-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "setup.py") << "";
  std::ofstream(dir / "train.py") << "import torch\n\ndef helper(x):\n    return x.item()\n\n"
                                     "@torch.compile\ndef step(x):\n    return helper(x)\n";
  workspace::ProjectIndex index(readText);
  auto findings = lintInProject(index, dir / "train.py");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].diagnostic.message,
            "`.item()` in `helper`, which compiled `step` calls, breaks the graph and waits for the device");
  for (const auto& r : findings[0].diagnostic.related) EXPECT_TRUE(r.path.empty()) << r.message;
  fs::remove_all(dir);
}

TEST(ProjectIndex, AWarmRunReusesTheScanAndTheSummaries) {
  fs::path cache = fs::temp_directory_path() / ("ptlint-scan-" + std::to_string(::getpid()));
  fs::path file = fs::absolute(kProjects / "nanogpt" / "layers.py");
  std::string digest;
  {
    workspace::ProjectIndex index(readText);
    index.useScanCache(cache);
    digest = index.factsFor(file)->digest;
    EXPECT_EQ(index.summariesBuilt(), 3u);
    EXPECT_TRUE(index.saveScanCache());
  }
  {
    workspace::ProjectIndex index(readText);
    index.useScanCache(cache);
    EXPECT_EQ(index.factsFor(file)->digest, digest);
    EXPECT_FALSE(digest.empty());
    EXPECT_EQ(index.summariesBuilt(), 0u);  // every summary came from the cache
  }
  // A corrupt cache is ignored.
  std::ofstream(cache / "project-scan.json") << "{\"build\": 3, ";
  {
    workspace::ProjectIndex index(readText);
    index.useScanCache(cache);
    EXPECT_EQ(index.factsFor(file)->digest, digest);
    EXPECT_EQ(index.summariesBuilt(), 3u);
  }
  fs::remove_all(cache);
}

// The training words of the scan (PTL406's `set_epoch`, PTL707's `.eval()`) come back from the
// scan cache: a warm run gives the same facts.
TEST(ProjectIndex, AWarmRunKeepsTheTrainingFacts) {
  fs::path cache = fs::temp_directory_path() / ("ptlint-scan-training-" + std::to_string(::getpid()));
  fs::path loader = fs::absolute(kProjects / "samplerepoch_quiet" / "data.py");
  fs::path metrics = fs::absolute(kProjects / "evalgrad" / "pkg" / "metrics.py");
  std::string loader_digest, metrics_digest;
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE(run);
    workspace::ProjectIndex index(readText);
    index.useScanCache(cache);
    auto facts = index.factsFor(loader);
    EXPECT_EQ(fs::path(facts->project->sets_epoch.path).filename(), "engine.py");
    EXPECT_EQ(fs::path(facts->project->loops_epochs.path).filename(), "data.py");
    auto uses = index.factsFor(metrics);
    ASSERT_NE(uses->useOf("score_model"), nullptr);
    EXPECT_TRUE(uses->useOf("score_model")->grad_off_or_unknown);
    ASSERT_NE(uses->useOf("collect_outputs"), nullptr);
    EXPECT_FALSE(uses->useOf("collect_outputs")->grad_off_or_unknown);
    EXPECT_TRUE(uses->useOf("collect_outputs")->called);
    if (run == 0) {
      loader_digest = facts->digest;
      metrics_digest = uses->digest;
      EXPECT_TRUE(index.saveScanCache());
    } else {
      EXPECT_EQ(facts->digest, loader_digest);
      EXPECT_EQ(uses->digest, metrics_digest);
    }
  }
  fs::remove_all(cache);
}

// An editor's new text of any file may change the training facts: a `set_epoch` typed in a file
// the link never read, or a call of an evaluation function.
TEST(ProjectIndex, TrainingWordsMakeATextAffectTheProject) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-affected-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(kProjects / "evalgrad", dir, fs::copy_options::recursive);
  std::ofstream(dir / "other.py") << "x = 1\n";
  std::ofstream(dir / "loop.py") << "for epoch in range(3):\n    pass\n";
  workspace::ProjectIndex index(readText);
  index.factsFor(dir / "evaluation.py");
  EXPECT_TRUE(index.projectsAffectedBy(dir / "other.py", std::string_view("y = 2\n")).empty());
  EXPECT_EQ(index.projectsAffectedBy(dir / "other.py", std::string_view("s.set_epoch(e)\n")).size(), 1u);
  EXPECT_EQ(index.projectsAffectedBy(dir / "other.py", std::string_view("from evaluation import infer\n")).size(), 1u);
  EXPECT_EQ(index.projectsAffectedBy(dir / "train.py", std::string_view("y = 2\n")).size(), 1u);  // a caller read
  // A file whose training words stay the same is no news; one that loses them is.
  EXPECT_TRUE(index.projectsAffectedBy(dir / "loop.py", std::string_view("for epoch in range(4):\n    pass\n")).empty());
  EXPECT_EQ(index.projectsAffectedBy(dir / "loop.py", std::string_view("x = 1\n")).size(), 1u);
  fs::remove_all(dir);
}

// A new text that turns Dynamo's scalar capture on, in a file the link never read, changes what
// every file of the project reports.
TEST(ProjectIndex, ACaptureSettingMakesATextAffectTheProject) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-capture-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(kProjects / "capture_scoped", dir, fs::copy_options::recursive);
  std::ofstream(dir / "other.py") << "x = 1\n";
  workspace::ProjectIndex index(readText);
  EXPECT_TRUE(index.factsFor(dir / "model.py")->project->captures_scalars.path.empty());
  EXPECT_TRUE(index.projectsAffectedBy(dir / "other.py", std::string_view("y = 2\n")).empty());
  EXPECT_EQ(index.projectsAffectedBy(dir / "other.py",
                                     std::string_view("import torch\ntorch._dynamo.config.capture_scalar_outputs = True\n"))
                .size(),
            1u);
  std::ofstream(dir / "other.py") << "import os\nos.environ['TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS'] = '1'\n";
  index.relink(dir);
  const auto& where = index.factsFor(dir / "model.py")->project->captures_scalars;
  EXPECT_EQ(where.path, (dir / "other.py").string());
  EXPECT_EQ(where.at.line, 1u);
  fs::remove_all(dir);
}

TEST(ModuleSummary, RecordsImportsClassesCallsSitesAndEnvironment) {
  auto parsed = analysis::ParsedFile::parse(
      "import os\nimport torch\nimport torch.nn as nn\nfrom .layers import Block as B\nfrom . import ops\n"
      "os.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'\nos.environ.setdefault('A', '1')\nos.putenv('B', '2')\n"
      "class Net(nn.Module):\n"
      "    def __init__(self, n):\n"
      "        super().__init__()\n"
      "        self.blocks = nn.ModuleList([B(i) for i in range(n)])\n"
      "        self.seq = nn.Sequential(B(1), Head())\n"
      "        self.d = nn.ModuleDict({'a': Head()})\n"
      "        self.lin = nn.Linear(2, 2)\n"
      "        self.unknown = n\n"
      "    def forward(self, x):\n"
      "        for blk in self.blocks:\n"
      "            x = blk(x)\n"
      "        x = self.seq(x)\n"
      "        return ops.scale(x) + self.d['a'](x)\n"
      "class Head(nn.Module):\n"
      "    pass\n"
      "model = torch.compile(Net(3))\n"
      "Net(2).compile()\n");
  analysis::SemanticModel model(parsed);
  auto s = analysis::summarizeModule(model);
  EXPECT_EQ(*s.importOf("B"), ".layers.Block");
  EXPECT_EQ(*s.importOf("ops"), ".ops");
  EXPECT_EQ(s.environment, (std::vector<std::string>{"CUBLAS_WORKSPACE_CONFIG", "A", "B"}));
  const auto* net = s.findClass("Net");
  ASSERT_NE(net, nullptr);
  ASSERT_EQ(net->bases.size(), 1u);
  EXPECT_EQ(net->bases[0].name, "torch.nn.Module");
  std::map<std::string, std::vector<std::string>> attrs;
  for (const auto& [attr, classes] : net->attributes)
    for (const auto& c : classes) attrs[attr].push_back(c.name);
  EXPECT_EQ(attrs["blocks"], (std::vector<std::string>{".layers.Block"}));
  EXPECT_EQ(attrs["seq"].size(), 2u);
  EXPECT_EQ(attrs["d"], (std::vector<std::string>{"Head"}));
  EXPECT_EQ(attrs["lin"], (std::vector<std::string>{"torch.nn.Linear"}));
  EXPECT_EQ(attrs.count("unknown"), 0u);
  ASSERT_EQ(net->methods.size(), 2u);
  std::vector<std::string> calls;
  for (const auto& c : net->methods[1].calls)
    calls.push_back(c.kind == analysis::CallRef::Kind::SelfAttr ? "self." + c.attr : c.target.name);
  // `self.d['a'](x)` names the ModuleDict's element, which `__init__` records on its own.
  EXPECT_EQ(calls, (std::vector<std::string>{"self.blocks", "self.seq", ".ops.scale", "self.d.a"}));
  EXPECT_EQ(attrs["d.a"], (std::vector<std::string>{"Head"}));
  ASSERT_EQ(s.compile_sites.size(), 2u);
  EXPECT_EQ(s.compile_sites[0].target.name, "Net");
  EXPECT_EQ(s.compile_sites[1].target.name, "Net");
  EXPECT_EQ(s.compile_sites[1].at.line, 24u);
}

}  // namespace

TEST(ProjectIndex, CublasConfigSetInAnotherFileSilencesPTL702) {
  workspace::ProjectIndex index(readText);
  // utils/seed.py sets it through os.environ.update({...}).
  EXPECT_TRUE(lintInProject(index, kProjects / "determinism" / "train.py", {"PTL702"}).empty());
  auto facts = index.factsFor(fs::absolute(kProjects / "determinism" / "train.py"));
  ASSERT_NE(facts->project, nullptr);
  const auto* where = facts->project->setsEnvironment("CUBLAS_WORKSPACE_CONFIG");
  ASSERT_NE(where, nullptr);
  EXPECT_EQ(fs::path(where->path).filename(), "seed.py");
  // Checked without the project, the same file is reported.
  std::string text = *readText(kProjects / "determinism" / "train.py");
  rules::Settings settings;
  settings.select = {"PTL702"};
  auto parsed = analysis::ParsedFile::parse(text);
  EXPECT_EQ(rules::lintFile(parsed, settings).diagnostics.size(), 1u);
}

TEST(ProjectIndex, ModuleSummaryRecordsEnvironmentAndUnknowns) {
  std::string text =
      "import os\nimport torch\nimport torch.nn as nn\n"
      "os.environ['A'] = '1'\nos.environ.setdefault('B', '1')\nos.putenv('C', '1')\n"
      "os.environ.update({'D': '1'}, E='1')\n"
      "class M(nn.Module):\n"
      "    def __init__(self, fn, make):\n"
      "        super().__init__()\n"
      "        self.fn = fn\n"
      "        self.blocks = nn.ModuleList([make(i) for i in range(2)])\n"
      "        self.lin = nn.Linear(2, 2)\n"
      "    def forward(self, x, hook):\n"
      "        return hook(self.fn(x))\n"
      "def build(f):\n"
      "    return torch.compile(f())\n";
  auto parsed = analysis::ParsedFile::parse(text);
  analysis::SemanticModel model(parsed);
  auto summary = analysis::summarizeModule(model);
  EXPECT_EQ(summary.environment, (std::vector<std::string>{"A", "B", "C", "D", "E"}));
  ASSERT_EQ(summary.classes.size(), 1u);
  EXPECT_EQ(summary.classes[0].unknown_attributes, (std::vector<std::string>{"fn", "blocks"}));
  ASSERT_EQ(summary.classes[0].attributes.size(), 1u);  // lin
  ASSERT_EQ(summary.classes[0].methods.size(), 2u);
  EXPECT_TRUE(summary.classes[0].methods[1].calls_unknown);  // hook(...)
  EXPECT_EQ(summary.unknown_compile_sites.size(), 1u);     // torch.compile(f())
}

TEST(ProjectIndex, FlexAttentionStaysQuietWhenAnotherLibraryBuildsTheCompiledModel) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-flex-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "setup.py") << "";
  std::ofstream(dir / "attn.py") << "import torch.nn as nn\n"
                                    "from torch.nn.attention.flex_attention import flex_attention\n\n"
                                    "class Attn(nn.Module):\n"
                                    "    def forward(self, q, k, v):\n"
                                    "        return flex_attention(q, k, v)\n";
  // hydra's instantiate may build Attn from a configuration: it may be compiled.
  std::ofstream(dir / "train.py") << "import torch\nfrom hydra.utils import instantiate\n\n"
                                     "def main(cfg):\n    return torch.compile(instantiate(cfg.model))\n";
  {
    workspace::ProjectIndex index(readText);
    EXPECT_TRUE(lintInProject(index, dir / "attn.py", {"PTL603"}).empty());
  }
  // torch's own modules build no class of the project.
  std::ofstream(dir / "train.py") << "import torch\n\n"
                                     "def main(cfg):\n    return torch.compile(torch.nn.Linear(2, 2))\n";
  {
    workspace::ProjectIndex index(readText);
    auto findings = lintInProject(index, dir / "attn.py", {"PTL603"});
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].row, 5u);
  }
  fs::remove_all(dir);
}

// A dict of defaults applied over its items sets the variable; a file that only reads it, logs
// it or names it in a comment does not.
TEST(ProjectIndex, CublasConfigFromADictOfDefaultsCountsAndAReadDoesNot) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-env-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "pyproject.toml") << "";
  std::ofstream(dir / "train.py") << "import torch\n\ntorch.use_deterministic_algorithms(True)\n";
  std::ofstream(dir / "report.py") << "import os\n\n# CUBLAS_WORKSPACE_CONFIG is set by the launcher\n"
                                      "print('CUBLAS_WORKSPACE_CONFIG =', os.environ.get('CUBLAS_WORKSPACE_CONFIG'))\n";
  {
    workspace::ProjectIndex index(readText);
    EXPECT_EQ(lintInProject(index, dir / "train.py", {"PTL702"}).size(), 1u);
  }
  std::ofstream(dir / "env.py") << "import os\n\nDEFAULTS = {'CUBLAS_WORKSPACE_CONFIG': ':4096:8', 'OMP_NUM_THREADS': '1'}\n"
                                   "for k, v in DEFAULTS.items():\n    os.environ.setdefault(k, v)\n";
  {
    workspace::ProjectIndex index(readText);
    EXPECT_TRUE(lintInProject(index, dir / "train.py", {"PTL702"}).empty());
  }
  fs::remove_all(dir);
}
