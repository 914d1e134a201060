// The raw tests the project index makes on every project file before it parses any: they may
// let a file through needlessly, never hold back one whose summary or evaluation functions
// matter; and what they hold back is neither summarised nor parsed.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/module_summary.h"
#include "analysis/semantic_model.h"
#include "analysis/value_flow.h"
#include "workspace/project_index.h"
#include "workspace/training_scan.h"

namespace fs = std::filesystem;
using namespace ptlint;

namespace {

std::optional<std::string> readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool setsEvalMode(std::string_view text) { return (workspace::trainingWordsOf(text) & workspace::kSetsEvalMode) != 0; }

}  // namespace

TEST(ProjectScan, PythonsBuiltinCompileIsNoSite) {
  EXPECT_FALSE(analysis::mayHoldCompileSite("code = compile(src, 'x.py', 'exec')\nexec(compile(src, 'y', 'eval'))\n"));
  EXPECT_FALSE(analysis::mayHoldCompileSite("def compile(self):\n    return compile(self.src, 'f', 'exec')\n"));
  // Bound to torch's: `from torch import compile`, an alias, a method.
  EXPECT_TRUE(analysis::mayHoldCompileSite("from torch import compile\nm = compile(model)\n"));
  EXPECT_TRUE(analysis::mayHoldCompileSite("from torch import (\n    compile,\n)\nm = compile(model)\n"));
  EXPECT_TRUE(analysis::mayHoldCompileSite("import torch\ncompile = torch.compile\nm = compile(model)\n"));
  EXPECT_TRUE(analysis::mayHoldCompileSite("model. compile()\n"));
  EXPECT_TRUE(analysis::mayHoldCompileSite("(model.\n compile())\n"));
  EXPECT_TRUE(analysis::mayHoldCompileSite("m = torch.compile(model)\n"));
  EXPECT_TRUE(analysis::mayHoldCompileSite("@torch.compile\ndef f(x):\n    return x\n"));
  EXPECT_TRUE(analysis::mayHoldCompileSite("s = f'{torch.compile(m)}'\n"));
}

TEST(ProjectScan, ADocstringOrACommentHoldsNoCompileSite) {
  EXPECT_FALSE(analysis::mayHoldCompileSite("\"\"\"Decorate it with `@torch.compile`.\"\"\"\n# torch.compile(model)\n"));
  // Unclear lexing: the raw test stands.
  EXPECT_TRUE(analysis::mayHoldCompileSite("s = '''never closed\n@torch.compile\n"));
}

TEST(ProjectScan, OnlyAWriteInCodeOrANamingLiteralMaySetTheVariable) {
  constexpr std::string_view kVar = "CUBLAS_WORKSPACE_CONFIG";
  EXPECT_FALSE(workspace::mayWriteVariable("\"\"\"Needs ``CUBLAS_WORKSPACE_CONFIG=:4096:8``.\"\"\"\n", kVar));
  EXPECT_FALSE(workspace::mayWriteVariable("# set CUBLAS_WORKSPACE_CONFIG=:4096:8 first\nx = 1\n", kVar));
  EXPECT_FALSE(workspace::mayWriteVariable(">>> # xdoctest: +REQUIRES(env:CUBLAS_WORKSPACE_CONFIG)\n", kVar));
  EXPECT_TRUE(workspace::mayWriteVariable("os.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'\n", kVar));
  EXPECT_TRUE(workspace::mayWriteVariable("os.environ.update(CUBLAS_WORKSPACE_CONFIG=':4096:8')\n", kVar));
  EXPECT_TRUE(workspace::mayWriteVariable("env = dict(\n    CUBLAS_WORKSPACE_CONFIG=':16:8')\n", kVar));
  EXPECT_TRUE(workspace::mayWriteVariable("s = f'{CUBLAS_WORKSPACE_CONFIG}'\n", kVar));
  EXPECT_TRUE(workspace::mayWriteVariable("s = '\\N{CUBLAS_WORKSPACE_CONFIG}'\n", kVar));
  EXPECT_FALSE(workspace::mayWriteVariable("x = 1\n", kVar));
}

TEST(ProjectScan, EvaluationModeInAClassBodyIsNoTopLevelFunction) {
  EXPECT_TRUE(setsEvalMode("def infer(model, x):\n    model.eval()\n    return model(x)\n"));
  EXPECT_FALSE(setsEvalMode("class Tests:\n    def test_infer(self, model, x):\n        model.eval()\n"
                            "        return model(x)\n"));
  // A class header in a docstring, a comment or a plain string is no class.
  EXPECT_TRUE(setsEvalMode("def infer(model, x):\n    s = '''\nclass A:\n'''\n# class B:\n    model.eval()\n"
                           "    return model(x)\n"));
  // Nor is one inside an f-string (kept whole by the code view).
  EXPECT_TRUE(setsEvalMode("def infer(model, x):\n    s = f'''{x}\nclass A:\n'''\n    model.eval()\n"
                           "    return model(x)\n"));
  // A function after the class.
  EXPECT_TRUE(setsEvalMode("class A:\n    pass\ndef infer(model, x):\n    model.eval()\n    return model(x)\n"));
  // Lone carriage returns end lines too.
  EXPECT_TRUE(setsEvalMode("class A:\r    pass\rdef infer(model, x):\r    model.eval()\r    return model(x)\r"));
}

TEST(ProjectScan, FilesTheRawTestsHoldBackAreNotSummarised) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-scan-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "setup.cfg") << "";
  std::ofstream(dir / "model.py") << "import torch.nn as nn\n\nclass M(nn.Module):\n    def forward(self, x):\n"
                                     "        return x.item()\n";
  std::ofstream(dir / "train.py") << "import torch\nfrom model import M\n\nm = torch.compile(M())\n";
  std::ofstream(dir / "codegen.py") << "def run(src):\n    exec(compile(src, '<gen>', 'exec'))\n";
  std::ofstream(dir / "docs.py") << "\"\"\"Wrap the model in `torch.compile(model)`; set CUBLAS_WORKSPACE_CONFIG.\"\"\"\n";
  workspace::ProjectIndex index(readText);
  auto facts = index.factsFor(dir / "model.py");
  ASSERT_EQ(facts->compiled.size(), 1u);
  EXPECT_EQ(index.summariesBuilt(), 2u);  // train.py and model.py
  fs::remove_all(dir);
}

TEST(ProjectScan, ASummarisedFileIsParsedOnceForItsLint) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-kept-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "setup.cfg") << "";
  const std::string model = "import torch.nn as nn\n\nclass M(nn.Module):\n    def forward(self, x):\n"
                            "        return x.item()\n";
  const std::string train = "import torch\nfrom model import M\n\nm = torch.compile(M())\n";
  std::ofstream(dir / "model.py") << model;
  std::ofstream(dir / "train.py") << train;
  workspace::ProjectIndex index(readText);
  index.keepParsedFiles();
  // Asked before the link: not kept when summarised afterwards.
  EXPECT_EQ(index.takeParsed(train), nullptr);
  ASSERT_EQ(index.factsFor(dir / "model.py")->compiled.size(), 1u);
  EXPECT_EQ(index.summariesBuilt(), 2u);
  auto parsed = index.takeParsed(model);
  ASSERT_NE(parsed, nullptr);
  EXPECT_EQ(parsed->text(), model);
  EXPECT_FALSE(parsed->hasSyntaxErrors());
  EXPECT_EQ(index.takeParsed(model), nullptr);  // handed over once
  EXPECT_EQ(index.takeParsed(train), nullptr);
  // Without keepParsedFiles nothing is kept.
  workspace::ProjectIndex plain(readText);
  plain.factsFor(dir / "model.py");
  EXPECT_EQ(plain.takeParsed(model), nullptr);
  fs::remove_all(dir);
}

TEST(ProjectScan, AHelperModuleValueFlowReadsIsParsedOnceForItsLint) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-kept-helper-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "setup.cfg") << "";
  const std::string helpers = "import torch\n\ndef get_device():\n    return torch.device(\"cuda\")\n";
  std::ofstream(dir / "helpers.py") << helpers;
  std::ofstream(dir / "main.py") << "from helpers import get_device\n\ndevice = get_device()\n";
  workspace::ProjectIndex index(readText);
  index.keepParsedFiles();
  auto facts = index.factsFor(dir / "main.py");
  ASSERT_NE(facts->functions, nullptr);
  auto definition = facts->functions->definition("helpers.get_device");
  ASSERT_TRUE(definition.has_value());
  // The parse value flow read is the one handed to the helper module's own lint.
  auto parsed = index.takeParsed(helpers);
  ASSERT_NE(parsed, nullptr);
  EXPECT_EQ(&definition->model->file(), parsed.get());
  // Asked again, value flow answers from the same parse.
  auto again = facts->functions->definition("helpers.get_device");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(&again->model->file(), parsed.get());
  fs::remove_all(dir);
}
