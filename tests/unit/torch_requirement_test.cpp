// Finding the torch range a project declares or has installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "workspace/torch_requirement.h"

namespace fs = std::filesystem;

namespace ptlint::workspace {
namespace {

class TorchRequirementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ptlint_torch_req_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& name, const std::string& text) {
    fs::create_directories((root_ / name).parent_path());
    std::ofstream(root_ / name) << text;
  }
  std::string found(const TorchEnv& env = {}) {
    auto r = findProjectTorchRange(root_, env);
    if (!r) return "none";
    return r->floor().str() + ".." + r->newestKnown().str() + " " + fs::path(r->source.substr(0, r->source.find(' '))).filename().string();
  }
  fs::path root_;
};

TEST(TorchRequirementLine, Pep508) {
  EXPECT_EQ(torchRangeOfRequirement("torch>=2.1")->floor(), (rules::TorchVersion{2, 1}));
  EXPECT_EQ(torchRangeOfRequirement("Torch [opt] (>=2.0,<2.5) ; sys_platform == 'linux'")->newestKnown(),
            (rules::TorchVersion{2, 4}));
  EXPECT_EQ(torchRangeOfRequirement("torch @ https://download.pytorch.org/whl/cu118/torch-2.0.1%2Bcu118-cp310-linux_x86_64.whl")->floor(),
            (rules::TorchVersion{2, 0}));
  EXPECT_FALSE(torchRangeOfRequirement("torch"));
  EXPECT_FALSE(torchRangeOfRequirement("torchvision>=0.15"));
  EXPECT_FALSE(torchRangeOfRequirement("pytorch-lightning>=2.0"));
}

TEST(TorchRequirementLine, PoetryAndConda) {
  auto caret = torchRangeOfPoetry("^2.1");
  EXPECT_EQ(caret->floor(), (rules::TorchVersion{2, 1}));
  EXPECT_EQ(caret->newestKnown(), rules::kNewestKnownTorch);
  EXPECT_EQ(torchRangeOfPoetry("~2.1.2")->newestKnown(), (rules::TorchVersion{2, 1}));
  EXPECT_EQ(torchRangeOfPoetry("2.3.0")->newestKnown(), (rules::TorchVersion{2, 3}));
  EXPECT_EQ(torchRangeOfPoetry(">=1.13 <2.2")->newestKnown(), (rules::TorchVersion{2, 1}));
  auto either = torchRangeOfPoetry("~1.13 || ^2.2");
  EXPECT_EQ(either->floor(), (rules::TorchVersion{1, 13}));
  EXPECT_EQ(torchRangeOfConda("pytorch=2.1.0=py3.10_cuda11.8_0")->newestKnown(), (rules::TorchVersion{2, 1}));
  EXPECT_EQ(torchRangeOfConda("pytorch::pytorch>=2.0")->floor(), (rules::TorchVersion{2, 0}));
  EXPECT_EQ(torchRangeOfConda("pytorch 2.2.*")->newestKnown(), (rules::TorchVersion{2, 2}));
  EXPECT_FALSE(torchRangeOfConda("torchvision=0.16"));
}

TEST_F(TorchRequirementTest, PyprojectProjectAndOptionalDependencies) {
  write("pyproject.toml",
        "[project]\nname = \"x\"\ndependencies = [\"numpy\"]\n[project.optional-dependencies]\n"
        "gpu = [\"torch>=2.2; sys_platform == 'linux'\"]\ncpu = [\"torch>=2.3\"]\n");
  EXPECT_EQ(found(), "2.2..2.14 pyproject.toml");
}

TEST_F(TorchRequirementTest, Poetry) {
  write("pyproject.toml", "[tool.poetry.dependencies]\npython = \"^3.10\"\ntorch = {version = \"^2.1\", source = \"pt\"}\n");
  EXPECT_EQ(found(), "2.1..2.14 pyproject.toml");
}

TEST_F(TorchRequirementTest, RequirementsWithIncludesHashesAndContinuations) {
  write("requirements.txt", "numpy  # torch>=1.0 in a comment\n-r requirements/base.txt\n");
  write("requirements/base.txt", "--index-url https://x\n-c constraints.txt\n");
  write("requirements/constraints.txt", "torch==2.3.1 \\\n    --hash=sha256:00\n");
  EXPECT_EQ(found(), "2.3..2.3 constraints.txt");
}

TEST_F(TorchRequirementTest, SetupCfgAndSetupPy) {
  write("setup.cfg", "[metadata]\nname = x\n[options]\ninstall_requires =\n    numpy\n    torch>=1.12,<2.1\n");
  EXPECT_EQ(found(), "1.12..2.0 setup.cfg");
  fs::remove(root_ / "setup.cfg");
  write("setup.py", "from setuptools import setup\nREQS = ['numpy', 'torch>=2.0']\nsetup(name='x', install_requires=REQS)\n");
  EXPECT_EQ(found(), "2.0..2.14 setup.py");
  write("setup.py", "import subprocess\nsetup(install_requires=subprocess.check_output(['x']))\n");
  EXPECT_EQ(found(), "none");
}

TEST_F(TorchRequirementTest, EnvironmentYml) {
  write("environment.yml", "name: x\ndependencies:\n  - python=3.10\n  - pytorch::pytorch=2.1.0\n  - pip:\n    - numpy\n");
  EXPECT_EQ(found(), "2.1..2.1 environment.yml");
}

TEST_F(TorchRequirementTest, InstalledTorchWhenNothingIsDeclared) {
  write("requirements.txt", "torch\n");  // declared without a version: the environment decides
  write(".venv/lib/python3.11/site-packages/torch-2.4.1+cu121.dist-info/METADATA", "Name: torch\n");
  EXPECT_EQ(found(), "2.4..2.4 torch-2.4.1+cu121.dist-info");
  fs::remove_all(root_ / ".venv");
  EXPECT_EQ(found(), "none");
  write("env/lib/python3.12/site-packages/torch-2.7.0.dist-info/METADATA", "");
  TorchEnv env;
  env.virtual_env = root_ / "env";
  EXPECT_EQ(found(env), "2.7..2.7 torch-2.7.0.dist-info");
}

TEST_F(TorchRequirementTest, DeclaredBeatsInstalled) {
  write("pyproject.toml", "[project]\nname = \"x\"\ndependencies = [\"torch>=2.0\"]\n");
  write("venv/lib/python3.11/site-packages/torch-2.4.1.dist-info/METADATA", "");
  EXPECT_EQ(found(), "2.0..2.14 pyproject.toml");
}

TEST_F(TorchRequirementTest, BadFilesAreIgnored) {
  write("pyproject.toml", "[project\ndependencies = [");
  write("setup.py", std::string(100000, '(') + "install_requires");
  write("requirements.txt", "-r requirements.txt\ntorch>=banana\n");
  fs::create_directories(root_ / "requirements-dev.txt");  // a folder named like a file
  EXPECT_EQ(found(), "none");
}

}  // namespace
}  // namespace ptlint::workspace
