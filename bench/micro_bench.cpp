// In-process micro-benchmarks of the engine's stages on one file: the parse, the semantic model,
// the noqa index, the whole lint (default rules and ALL), and each rule alone (its share of the
// dispatch walk plus what it builds). Not a test: Google Benchmark prints the figures.
//
// usage: ptlint_micro_bench [google-benchmark flags]
//   PTLINT_BENCH_FILE   the file to measure (default: Debian's common_methods_invocations.py,
//                       the LSP benchmark's big file)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "analysis/noqa.h"
#include "analysis/parse.h"
#include "analysis/semantic_model.h"
#include "rules/linter.h"
#include "rules/registry.h"

using namespace ptlint;

namespace {

const std::string& benchText() {
  static const std::string text = [] {
    const char* env = std::getenv("PTLINT_BENCH_FILE");
    std::string path = env != nullptr ? env : "/usr/lib/python3/dist-packages/torch/testing/_internal/common_methods_invocations.py";
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::cerr << "cannot read " << path << " (set PTLINT_BENCH_FILE)\n";
      std::exit(2);
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }();
  return text;
}

const analysis::ParsedFile& benchFile() {
  static const analysis::ParsedFile file = analysis::ParsedFile::parse(benchText());
  return file;
}

void setBytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(benchText().size()));
}

void BM_Parse(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(analysis::ParsedFile::parse(benchText()));
  setBytes(state);
}
BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond);

void BM_SemanticModel(benchmark::State& state) {
  const auto& file = benchFile();
  for (auto _ : state) {
    analysis::SemanticModel model(file);
    benchmark::DoNotOptimize(model.scopes().size());
  }
  setBytes(state);
}
BENCHMARK(BM_SemanticModel)->Unit(benchmark::kMillisecond);

void BM_NoqaIndex(benchmark::State& state) {
  const auto& file = benchFile();
  for (auto _ : state) benchmark::DoNotOptimize(analysis::NoqaIndex::build(file));
  setBytes(state);
}
BENCHMARK(BM_NoqaIndex)->Unit(benchmark::kMillisecond);

void lintWith(benchmark::State& state, rules::Settings settings) {
  const auto& file = benchFile();
  for (auto _ : state) benchmark::DoNotOptimize(rules::lintFile(file, settings));
  setBytes(state);
}

void BM_LintDefault(benchmark::State& state) { lintWith(state, {}); }
BENCHMARK(BM_LintDefault)->Unit(benchmark::kMillisecond);

void BM_LintAll(benchmark::State& state) {
  rules::Settings settings;
  settings.select = {"ALL"};
  lintWith(state, settings);
}
BENCHMARK(BM_LintAll)->Unit(benchmark::kMillisecond);

// Parse and lint, as one LSP analysis of a fresh text costs.
void BM_ParseAndLintAll(benchmark::State& state) {
  rules::Settings settings;
  settings.select = {"ALL"};
  for (auto _ : state) {
    auto file = analysis::ParsedFile::parse(benchText());
    benchmark::DoNotOptimize(rules::lintFile(file, settings));
  }
  setBytes(state);
}
BENCHMARK(BM_ParseAndLintAll)->Unit(benchmark::kMillisecond);

// What the LSP server does per keystroke: one character typed at the end of the first line (and
// deleted again), an incremental re-parse reusing the old tree, then (with `settings`) lint
// (lintFileConcurrently, as the server calls it, unless `concurrently` is false).
void benchKeystrokes(benchmark::State& state, const rules::Settings* settings,
                     const std::string& text = benchText(), bool concurrently = true) {
  uint32_t at = static_cast<uint32_t>(text.find('\n'));
  std::string typed = text;
  typed.insert(at, "x");
  auto current = std::make_unique<analysis::ParsedFile>(analysis::ParsedFile::parse(text));
  bool inserted = false;
  for (auto _ : state) {
    TSInputEdit edit{};
    edit.start_byte = at;
    edit.start_point = {0, at};
    edit.old_end_byte = inserted ? at + 1 : at;
    edit.old_end_point = {0, edit.old_end_byte};
    edit.new_end_byte = inserted ? at : at + 1;
    edit.new_end_point = {0, edit.new_end_byte};
    inserted = !inserted;
    current = std::make_unique<analysis::ParsedFile>(current->reparse(inserted ? typed : text, edit));
    if (settings != nullptr)
      benchmark::DoNotOptimize(concurrently ? rules::lintFileConcurrently(*current, *settings)
                                            : rules::lintFile(*current, *settings));
  }
  setBytes(state);
}

void BM_LspEditReparseAndLintAll(benchmark::State& state) {
  rules::Settings settings;
  settings.select = {"ALL"};
  benchKeystrokes(state, &settings);
}
BENCHMARK(BM_LspEditReparseAndLintAll)->Unit(benchmark::kMillisecond);

void BM_LspEditReparseOnly(benchmark::State& state) { benchKeystrokes(state, nullptr); }
BENCHMARK(BM_LspEditReparseOnly)->Unit(benchmark::kMillisecond);

// The same file with one compiled function in front (bench/lsp/lsp_latency.py's third case):
// PTL501 must know what torch.compile reaches, and each keystroke edits the `import torch` the
// compiled function resolves through.
const std::string& compiledBenchText() {
  static const std::string text =
      "import torch\n\n@torch.compile\ndef _compiled_probe(x):\n    return x.sum().item()\n\n" + benchText();
  return text;
}

void BM_LspEditCompiledDefault(benchmark::State& state) {
  rules::Settings settings;
  benchKeystrokes(state, &settings, compiledBenchText());
}
BENCHMARK(BM_LspEditCompiledDefault)->Unit(benchmark::kMillisecond);

// The same on one thread (lintFile, as `ptlint check` lints each file).
void BM_LspEditCompiledDefaultOneThread(benchmark::State& state) {
  rules::Settings settings;
  benchKeystrokes(state, &settings, compiledBenchText(), false);
}
BENCHMARK(BM_LspEditCompiledDefaultOneThread)->Unit(benchmark::kMillisecond);

// One benchmark per registered rule: lintFile with only that rule selected.
const bool kPerRuleRegistered = [] {
  for (const rules::Rule* rule : rules::allRules()) {
    std::string code(rule->meta().code);
    benchmark::RegisterBenchmark(("BM_Rule/" + code).c_str(), [code](benchmark::State& state) {
      rules::Settings settings;
      settings.select = {code};
      lintWith(state, settings);
    })->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
