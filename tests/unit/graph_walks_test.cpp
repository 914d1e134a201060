// The graph walks of the project index and of the same-file analyses (base classes, imports,
// calls, factories' returns, names bound from names) on adversarial shapes (tests/graph_shapes.h):
// each must finish (ctest's timeout turns a walk gone exponential into a failure) with the
// findings Python's semantics give. Timing is bench/graph_bench.cpp's business, not a test's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "rules/linter.h"
#include "tests/graph_shapes.h"
#include "workspace/project_index.h"
#include "tests/unit/test_files.h"

namespace fs = std::filesystem;
using namespace ptlint;

namespace ptlint::shapes {
// gtest names a shape by its name, not its bytes.
void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.name; }
}  // namespace ptlint::shapes

namespace {

// Findings of the compiled-code rules in `file`, linted as `ptlint check` lints it.
size_t compiledFindings(workspace::ProjectIndex& index, const fs::path& file) {
  std::string text = *test_files::readIfPresent(file);
  rules::Settings settings;
  settings.select = {"PTL501", "PTL502", "PTL504"};
  if (rules::asksProject(text, settings)) settings.project = index.factsFor(fs::absolute(file));
  if (rules::cannotMatch(text, settings)) return 0;
  auto parsed = analysis::ParsedFile::parse(text);
  return rules::lintFile(parsed, settings).diagnostics.size();
}

class GraphShape : public testing::TestWithParam<shapes::Shape> {};

TEST_P(GraphShape, FinishesWithTheFindingsPythonGives) {
  const shapes::Shape& shape = GetParam();
  fs::path dir = fs::temp_directory_path() / ("ptlint-shape-" + shape.name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  shapes::writeShape(shape, dir);
  workspace::ProjectIndex index(test_files::readIfPresent);
  size_t found = compiledFindings(index, dir / shape.probe);
  if (shape.expected >= 0) {
    EXPECT_EQ(found, static_cast<size_t>(shape.expected));
  }
  // Every other file of the shape too (each asks its own questions of the same link).
  for (const auto& [rel, text] : shape.files)
    if (rel.ends_with(".py")) compiledFindings(index, dir / rel);
  EXPECT_TRUE(index.problems().empty());
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Adversarial, GraphShape, testing::ValuesIn(shapes::adversarialShapes()),
                         [](const testing::TestParamInfo<shapes::Shape>& info) { return info.param.name; });

}  // namespace
