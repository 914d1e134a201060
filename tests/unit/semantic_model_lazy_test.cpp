// The semantic model built without a visitor leaves def bodies for later; built with one, it
// walks everything at once. Both must give the same answers: on every fixture and fixture
// project, for every identifier (its scope and what it resolves to), and for the bindings in
// order. The lazy model is asked in an order of its own (from the end of the file backwards),
// so bodies are completed out of order before bindings() completes the rest.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/semantic_model.h"
#include "analysis/syntax.h"
#include "test_files.h"

using namespace ptlint;
namespace fs = std::filesystem;

namespace {

std::string describe(const analysis::Scope& scope) {
  return std::to_string(static_cast<int>(scope.kind)) + "@" + std::to_string(scope.start) + "-" + std::to_string(scope.end);
}

std::string describe(const analysis::Binding* b) {
  if (b == nullptr) return "-";
  return b->name + "@" + std::to_string(analysis::startOf(b->name_node)) + "/" + std::to_string(static_cast<int>(b->kind)) +
         "/" + b->qualified_name;
}

std::vector<TSNode> identifiers(const analysis::ParsedFile& file) {
  std::vector<TSNode> out;
  analysis::walkTree(
      file.root(),
      [&](TSNode node) {
        if (analysis::isKind(node, kind::identifier)) out.push_back(node);
        return true;
      },
      [](TSNode) {});
  return out;
}

void expectSameAnswersFor(const std::string& text);

void expectSameAnswers(const fs::path& path) {
  SCOPED_TRACE(path.string());
  expectSameAnswersFor(test_files::readFile(path));
}

void expectSameAnswersFor(const std::string& text) {
  auto file = analysis::ParsedFile::parse(text);
  analysis::SemanticModel eager(file, [](TSNode) {});
  analysis::SemanticModel lazy(file);
  auto names = identifiers(file);
  std::vector<std::string> from_eager, from_lazy;
  for (TSNode id : names) {
    from_eager.push_back(describe(eager.scopeAt(id)) + " " + describe(eager.resolve(eager.text(id), id)));
  }
  from_lazy.resize(names.size());
  for (size_t i = names.size(); i-- > 0;) {
    TSNode id = names[i];
    from_lazy[i] = describe(lazy.scopeAt(id)) + " " + describe(lazy.resolve(lazy.text(id), id));
  }
  for (size_t i = 0; i < names.size(); ++i)
    ASSERT_EQ(from_lazy[i], from_eager[i]) << "at byte " << analysis::startOf(names[i]);
  std::vector<std::string> eager_imports, lazy_imports;
  for (const auto* b : eager.imports()) eager_imports.push_back(describe(b));
  for (const auto* b : lazy.imports()) lazy_imports.push_back(describe(b));
  EXPECT_EQ(lazy_imports, eager_imports);
  // A fresh lazy model: bindings() and scopes() complete it in one go.
  analysis::SemanticModel fresh(file);
  std::vector<std::string> eager_bindings, lazy_bindings, fresh_bindings;
  for (const auto& b : eager.bindings()) eager_bindings.push_back(describe(b.get()));
  for (const auto& b : lazy.bindings()) lazy_bindings.push_back(describe(b.get()));
  for (const auto& b : fresh.bindings()) fresh_bindings.push_back(describe(b.get()));
  EXPECT_EQ(lazy_bindings, eager_bindings);
  EXPECT_EQ(fresh_bindings, eager_bindings);
  std::vector<std::string> eager_scopes, fresh_scopes;
  for (const auto& s : eager.scopes()) eager_scopes.push_back(describe(*s));
  for (const auto& s : fresh.scopes()) fresh_scopes.push_back(describe(*s));
  EXPECT_EQ(fresh_scopes, eager_scopes);
}

TEST(LazySemanticModel, AnswersAsTheCompleteModelOnEveryFixture) {
  int files = 0;
  fs::path fixtures = PTLINT_FIXTURES_DIR;
  for (const fs::path& dir : {fixtures, fixtures.parent_path() / "projects"})
    for (const fs::path& path : test_files::pythonFilesUnder(dir)) {
      expectSameAnswers(path);
      ++files;
    }
  EXPECT_GT(files, 100);
}

// The same over a corpus of one's choosing (not part of the suite's default run):
//   PTLINT_LAZY_MODEL_CORPUS=/usr/lib/python3/dist-packages/torch ptlint_unit_tests --gtest_filter='*Corpus*'
TEST(LazySemanticModel, AnswersAsTheCompleteModelOnACorpus) {
  const char* corpus = std::getenv("PTLINT_LAZY_MODEL_CORPUS");
  if (corpus == nullptr) GTEST_SKIP() << "PTLINT_LAZY_MODEL_CORPUS not set";
  int files = 0;
  for (const fs::path& path : test_files::pythonFilesUnder(corpus, 2'000'000)) {
    expectSameAnswers(path);
    ++files;
  }
  EXPECT_GT(files, 0);
}

// Tables of lambdas and comprehensions (left for later, a level at a time) next to the
// expressions that bind where they stand (`:=`, `as`), which are walked at once.
TEST(LazySemanticModel, ExpressionsHoldingScopesAnswerAsTheCompleteModel) {
  const std::string text =
      "import torch\n"
      "from torch import nn\n"
      "op_db = [\n"
      "    OpInfo('add', ref=lambda x, y=torch.ones(1): torch.add(x, y),\n"
      "           samples=[s for s in range(3) if (lambda t: t)(s)],\n"
      "           nested={k: (lambda k=k: k * torch.pi) for k in 'ab'}),\n"
      "    OpInfo('mul', ref=lambda a: (lambda b: a * b)(a), dtypes=(torch.float, torch.half)),\n"
      "    OpInfo('walrus', ref=[y := 1, [z for z in range(y)]], again=lambda: y),\n"
      "]\n"
      "table = {name: lambda t, name=name: getattr(torch, name)(t) for name in ('sin', 'cos')}\n"
      "class Registry:\n"
      "    hooks = [lambda m: m.eval(), lambda m: nn.Identity()(m)]\n"
      "    @staticmethod\n"
      "    @register(key=lambda m: type(m).__name__)\n"
      "    def run(model, hooks=[lambda m: m]):\n"
      "        squares = sorted(hooks, key=lambda h: [h for h in (n := hooks)])\n"
      "        with (open('f') as handle, torch.no_grad()):\n"
      "            return [h(model) for h in hooks if n], handle\n"
      "late = [lambda: op_db, lambda: table[0](torch.zeros(2))]\n"
      "def use():\n"
      "    return [f() for f in late], y, z\n";
  expectSameAnswersFor(text);
}

TEST(LazySemanticModel, BodiesThatBindOutsideAreWalkedAtOnce) {
  const std::string text =
      "import torch\n"
      "def setup():\n"
      "    global amp\n"
      "    from torch.cuda import amp\n"
      "def later(x):\n"
      "    y = x\n"
      "    def inner(z=lambda w: w):\n"
      "        nonlocal y\n"
      "        y = z\n"
      "    return amp.autocast()\n";
  auto file = analysis::ParsedFile::parse(text);
  analysis::SemanticModel lazy(file);
  // `global amp` in setup() binds at module level: visible before any body is asked about.
  const auto* amp = lazy.bindingsOf(lazy.moduleScope(), "amp");
  ASSERT_NE(amp, nullptr);
  EXPECT_EQ(lazy.imports().size(), 2u);
  TSNode call = file.root();
  size_t at = text.find("amp.autocast");
  call = ts_node_descendant_for_byte_range(file.root(), static_cast<uint32_t>(at), static_cast<uint32_t>(at + 3));
  auto name = lazy.qualifiedName(call);
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(*name, "torch.cuda.amp");
}

}  // namespace
