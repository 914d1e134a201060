// Parse + lint + fix of hostile inputs on a worker thread with a 1 MB stack (what some editors
// and thread pools give): nothing may recurse on the depth of the tree.
#include <gtest/gtest.h>
#include <pthread.h>

#include <functional>
#include <string>

#include "analysis/parse.h"
#include "quickfix/fix_loop.h"
#include "rules/linter.h"

namespace ptlint {
namespace {

// Runs `body` on a thread whose stack is exactly `bytes`.
void runWithStack(size_t bytes, const std::function<void()>& body) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  auto trampoline = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, trampoline, const_cast<std::function<void()>*>(&body)), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

std::string repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * n);
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::vector<std::pair<std::string, std::string>> hostileInputs(int d) {
  return {
      {"brackets", "x = " + repeat("[", d) + repeat("]", d) + "\n"},
      {"parens", "x = " + repeat("(", d) + "1" + repeat(")", d) + "\n"},
      {"calls", "x = " + repeat("f(", d) + repeat(")", d) + "\n"},
      // Every level a finding with a fix; capped: PTL101 is still quadratic in the depth.
      {"torch_calls", "import torch\nx = " + repeat("torch.cuda.amp.autocast(", std::min(d, 1000)) +
                          repeat(")", std::min(d, 1000)) + "\n"},
      {"not", "x = " + repeat("not ", d) + "y\n"},
      {"attributes", "import torch\nx = torch" + repeat(".cuda", d) + ".amp.autocast()\n"},
      {"plus", "x = a" + repeat(" + a", d) + "\n"},
      // Capped: 50,000 unclosed calls corrupt tree-sitter's heap (fuzz/regressions/pending/).
      {"unclosed", "import torch\nx = " + repeat("f(", std::min(d, 30000)) + "torch.cuda.amp.autocast(\n"},
      {"indent", repeat("if x:\n", 1) + [&] {
         std::string s;
         for (int i = 1; i < std::min(d, 2000); ++i) s += std::string(i, ' ') + "if x:\n";
         return s + std::string(std::min(d, 2000), ' ') + "pass\n";
       }()},
      {"nul", std::string("import torch\0\ntorch.cuda.amp.autocast()\n", 41)},
  };
}

class SmallStack : public ::testing::TestWithParam<int> {};

TEST_P(SmallStack, ParseLintFixOnOneMegabyteStack) {
  const int depth = GetParam();
  for (auto& input : hostileInputs(depth)) {
    // Named references, not a structured binding: clang 14 cannot capture one in a lambda.
    const std::string& name = input.first;
    const std::string& text = input.second;
    SCOPED_TRACE(name + " at depth " + std::to_string(depth));
    size_t diagnostics = 0;
    bool fixed_ok = false;
    runWithStack(1 << 20, [&] {
      auto file = analysis::ParsedFile::parse(text);
      rules::Settings settings;
      settings.select = {"ALL"};
      settings.unsafe_fixes = true;
      diagnostics = rules::lintFile(file, settings).diagnostics.size();
      auto provider = [&](const analysis::ParsedFile& f) {
        std::vector<quickfix::Fix> fixes;
        for (auto& d : rules::lintFile(f, settings).diagnostics)
          if (d.fix) fixes.push_back(std::move(*d.fix));
        return fixes;
      };
      auto result = quickfix::fixToFixpoint(text, quickfix::Applicability::Unsafe, provider);
      fixed_ok = !result.hit_pass_cap &&
                 (file.hasSyntaxErrors() ? result.text == text : !analysis::ParsedFile::parse(result.text).hasSyntaxErrors());
    });
    EXPECT_TRUE(fixed_ok);
    if (name == "torch_calls") {
      EXPECT_GT(diagnostics, 0u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Depths, SmallStack, ::testing::Values(100, 1000, 10000, 100000));

}  // namespace
}  // namespace ptlint
