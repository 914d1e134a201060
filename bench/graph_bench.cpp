// The graph walks on adversarial shapes (tests/graph_shapes.h: class lattices, import meshes,
// call chains, mutual recursion, factories of factories, rebound names), each linked from cold by
// a fresh project index and its probe file linked and linted. Each shape is held to a budget: an
// iteration over it fails the benchmark (a walk gone exponential takes minutes; these take
// milliseconds).
//
// usage: ptlint_graph_bench [google-benchmark flags]
//   PTLINT_GRAPH_BUDGET_MS   the budget per iteration (default 2000)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rules/linter.h"
#include "tests/graph_shapes.h"
#include "workspace/project_index.h"

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

double budgetMs() {
  const char* env = std::getenv("PTLINT_GRAPH_BUDGET_MS");
  return env != nullptr ? std::atof(env) : 2000.0;
}

void BM_GraphShape(benchmark::State& state, const shapes::Shape& shape) {
  fs::path dir = fs::temp_directory_path() / ("ptlint-graph-bench-" + shape.name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  shapes::writeShape(shape, dir);
  fs::path probe = fs::absolute(dir / shape.probe);
  std::string text = *readText(probe);
  double worst = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    workspace::ProjectIndex index(readText);
    rules::Settings settings;
    settings.select = {"PTL501", "PTL502", "PTL504"};
    settings.project = index.factsFor(probe);
    auto parsed = analysis::ParsedFile::parse(text);
    benchmark::DoNotOptimize(rules::lintFile(parsed, settings));
    worst = std::max(worst, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  fs::remove_all(dir);
  state.counters["worst_ms"] = worst;
  if (worst > budgetMs()) state.SkipWithError(("over budget: " + std::to_string(worst) + " ms").c_str());
}

const int kRegistered = [] {
  for (const auto& shape : shapes::adversarialShapes())
    benchmark::RegisterBenchmark(("BM_GraphShape/" + shape.name).c_str(), BM_GraphShape, shape)
        ->Unit(benchmark::kMillisecond);
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
