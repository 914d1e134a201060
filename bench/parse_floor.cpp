// The floor ptlint is measured against: read and parse every file that `ptlint check` would lint
// (the same walk, the same reader, the same `analysis::ParsedFile::parse`), on the same number
// of threads, and do nothing else. Whatever `ptlint check` spends above this is the linter's own
// cost.
//
// usage: ptlint_parse_floor [-j N] [--list] PATH...
//   -j N     threads (default: the machine's cores, as `ptlint check`)
//   --list   print the files, one per line, and parse nothing (the corpus for other tools)
// Prints one summary line to stderr: files, bytes, syntax-error files, in-process seconds.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "analysis/parse.h"
#include "cli/file_io.h"
#include "workspace/walk.h"

namespace fs = std::filesystem;
using namespace ptlint;

int main(int argc, char** argv) {
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  bool list = false;
  std::vector<fs::path> roots;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "-j" || arg == "--threads") && i + 1 < argc) {
      threads = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    } else if (arg.starts_with("-j") && arg.size() > 2) {
      threads = static_cast<unsigned>(std::max(1, std::atoi(arg.c_str() + 2)));
    } else if (arg == "--list") {
      list = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << "usage: ptlint_parse_floor [-j N] [--list] PATH...\n";
      return 0;
    } else {
      roots.emplace_back(arg);
    }
  }
  if (roots.empty()) roots.emplace_back(".");

  auto started = std::chrono::steady_clock::now();
  workspace::ConfigResolver resolver;
  auto walk = workspace::collectFiles(roots, resolver, false);
  for (const auto& e : walk.errors) std::cerr << "error: " << e << "\n";
  if (list) {
    for (const auto& f : walk.files) std::cout << f << "\n";
    return walk.errors.empty() ? 0 : 2;
  }

  threads = std::min<unsigned>(threads, std::max<size_t>(1, walk.files.size()));
  std::atomic<size_t> next{0}, bytes{0}, with_errors{0}, unreadable{0};
  auto worker = [&] {
    for (size_t i = next++; i < walk.files.size(); i = next++) {
      std::string error;
      auto source = cli::readSourceFile(std::filesystem::path(walk.files[i]), error);
      if (!source) {
        ++unreadable;
        continue;
      }
      bytes += source->text.size();
      auto parsed = analysis::ParsedFile::parse(std::move(source->text));
      if (parsed.hasSyntaxErrors()) ++with_errors;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cerr << fmt::format("parsed {} files, {} bytes ({} with syntax errors, {} unreadable) on {} thread{} in {:.3f} s\n",
                           walk.files.size() - unreadable, bytes.load(), with_errors.load(), unreadable.load(),
                           threads, threads == 1 ? "" : "s", seconds);
  return 0;
}
