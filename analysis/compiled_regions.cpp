#include "analysis/compiled_regions.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "analysis/code_text.h"
#include "analysis/compiled_regions_builder.h"
#include "analysis/name_shapes.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {

bool isTorchCompile(std::string_view qualified) {
  return qualified == "torch.compile" || qualified == "torch.compiler.compile";
}

bool isDynamoOptimize(std::string_view qualified) {
  return qualified == "torch._dynamo.optimize" || qualified == "torch._dynamo.eval_frame.optimize" ||
         qualified == "torch._dynamo.optimize_assert" || qualified == "torch._dynamo.eval_frame.optimize_assert";
}

bool isDynamoDisable(std::string_view qualified) {
  return qualified == "torch.compiler.disable" || qualified == "torch._dynamo.disable" ||
         qualified == "torch._dynamo.eval_frame.disable" || qualified == "torch._disable_dynamo";
}

bool namesDynamoDisable(std::string_view spelled) {
  size_t dot = spelled.rfind('.');
  std::string_view name = dot == std::string_view::npos ? spelled : spelled.substr(dot + 1);
  return name.find("disable") != std::string_view::npos &&
         (name.find("compile") != std::string_view::npos || name.find("dynamo") != std::string_view::npos);
}

bool isCompilingPredicate(std::string_view qualified) {
  return qualified == "torch.compiler.is_compiling" || qualified == "torch.compiler.is_dynamo_compiling" ||
         qualified == "torch._dynamo.is_compiling" || qualified == "torch._dynamo.external_utils.is_compiling" ||
         qualified == "torch._utils.is_compiling";
}

// The first positional argument of a call, or the keyword argument `keyword` if given; null if
// neither.
TSNode CompiledRegions::Builder::targetArgument(TSNode call, std::string_view keyword, std::string_view source) {
  TSNode args = fieldOf(call, "arguments");
  if (!isKind(args, kind::argument_list)) return {};
  TSNode positional{}, by_keyword{};
  forEachNamedChild(args, [&](TSNode arg) {
    analysis::NodeKind kind = kindOf(arg);
    if (kind == kind::keyword_argument) {
      if (!keyword.empty() && textOf(fieldOf(arg, "name"), source) == keyword) by_keyword = fieldOf(arg, "value");
    } else if (kind != kind::comment && kind != kind::list_splat && kind != kind::dictionary_splat &&
               ts_node_is_null(positional)) {
      positional = arg;
    }
  });
  return ts_node_is_null(positional) ? by_keyword : positional;
}

// `torch.compile(fn, disable=True)` compiles nothing.
bool CompiledRegions::Builder::disablesItself(TSNode call, std::string_view source) {
  TSNode args = fieldOf(call, "arguments");
  if (!isKind(args, kind::argument_list)) return false;
  bool disabled = false;
  forEachNamedChild(args, [&](TSNode arg) {
    if (isKind(arg, kind::keyword_argument) && textOf(fieldOf(arg, "name"), source) == "disable" &&
        isKind(unparenthesize(fieldOf(arg, "value")), kind::true_))
      disabled = true;
  });
  return disabled;
}

std::string_view CompiledRegions::Builder::lastSegment(std::string_view dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

CompiledRegions::CompiledRegions(const SemanticModel& model, std::vector<std::string> extra_decorators,
                                 std::shared_ptr<const ProjectFacts> project)
    : model_(model), extra_decorators_(std::move(extra_decorators)), project_(std::move(project)) {
  Builder(*this).run();
}

CompiledRegions::~CompiledRegions() = default;

// Every root is reached through an identifier spelled `compile` (`torch.compile`, `from torch
// import compile as c`, `torch.compiler.compile`) or spelled as a configured decorator's last
// segment. When no such identifier occurs (the word in comments and strings does not count),
// the file compiles nothing.
bool CompiledRegions::mayCompileAnything(const ParsedFile& file, const std::vector<std::string>& extra_decorators) {
  std::string_view source = file.text();
  std::vector<std::string_view> words{"compile", "optimize"};
  for (const auto& extra : extra_decorators) words.push_back(Builder::lastSegment(extra));
  for (std::string_view word : words) {
    if (word.empty()) continue;
    bool named = forEachWholeWord(source, word, [&](size_t at) {
      auto start = static_cast<uint32_t>(at), end = static_cast<uint32_t>(at + word.size());
      TSNode node = ts_node_descendant_for_byte_range(file.root(), start, end);
      return isKind(node, kind::identifier) && startOf(node) == start && endOf(node) == end;
    });
    if (named) return true;
  }
  return false;
}

namespace {

// Can this occurrence of `compile` / `optimize` (a whole word of `code`, at `at`) be part of a
// name that resolves to torch's? `X.compile` cannot when `X` is a bare name other than `torch`,
// `compiler`, `_dynamo` or `eval_frame` that nothing rebinds (`re.compile`: only the module `re`);
// a bare `compile(...)` call reads a binding whose own occurrence is looked at.
bool mayNameCompilerAt(std::string_view code, size_t at, size_t size) {
  Receiver receiver = receiverOf(code, at);
  if (receiver.kind == Receiver::Kind::None) {
    size_t after = skipSpaceForward(code, at + size);
    return after >= code.size() || code[after] != '(';
  }
  if (receiver.kind == Receiver::Kind::Unresolved) return false;
  if (receiver.kind == Receiver::Kind::Other) return true;
  // `from torch import compiler` binds `torch.compiler`: these names are taken as torch's.
  std::string_view object = receiver.name;
  if (object == "torch" || object == "compiler" || object == "_dynamo" || object == "eval_frame") return true;
  return mayBeRebound(code, object);
}

}  // namespace

bool CompiledRegions::mayCompileAnythingInCode(const PrefilterText& source, std::span<const std::string_view> words,
                                               const std::vector<std::string>& extra_decorators) {
  // A configured decorator spelled `compile` is named as it is configured, not as torch's.
  bool configured = std::any_of(extra_decorators.begin(), extra_decorators.end(), [](const std::string& extra) {
    return Builder::lastSegment(extra) == "compile" || Builder::lastSegment(extra) == "optimize";
  });
  const std::string* code = source.code();
  if (code == nullptr) return true;
  for (std::string_view word : words) {
    if (word.empty()) continue;
    bool torchs = !configured && (word == "compile" || word == "optimize");
    if (forEachWholeWord(*code, word, [&](size_t at) { return !torchs || mayNameCompilerAt(*code, at, word.size()); }))
      return true;
  }
  return false;
}

const CompiledRegions& CompiledRegions::of(const SemanticModel& model,
                                           const std::vector<std::string>& extra_decorators,
                                           const std::shared_ptr<const ProjectFacts>& project) {
  // One slot per model; several decorator sets are possible in principle (never in one lint
  // run), so the slot keeps a short list.
  struct Slot {
    mutable std::mutex mutex;
    mutable std::vector<std::unique_ptr<CompiledRegions>> built;
  };
  static const char kTag = 0;
  const Slot& slot = model.perFileAnalysis<Slot>(&kTag, [] { return std::make_shared<const Slot>(); });
  std::lock_guard<std::mutex> lock(slot.mutex);
  for (const auto& regions : slot.built)
    if (regions->extra_decorators_ == extra_decorators && regions->project_ == project) return *regions;
  slot.built.push_back(std::make_unique<CompiledRegions>(model, extra_decorators, project));
  return *slot.built.back();
}

namespace {

// +1: `condition` is true while compiling (`is_compiling()`), -1: false while compiling
// (`not is_compiling()`), 0: neither.
int compilingPolarity(const SemanticModel& model, TSNode condition) {
  condition = unparenthesize(condition);
  int polarity = 1;
  while (isKind(condition, kind::not_operator)) {
    polarity = -polarity;
    condition = unparenthesize(fieldOf(condition, "argument"));
  }
  if (!isKind(condition, kind::call)) return 0;
  auto q = model.qualifiedName(fieldOf(condition, "function"));
  return q && isCompilingPredicate(*q) ? polarity : 0;
}

// Does a block always leave the enclosing code (its last statement returns or raises)?
bool leaves(TSNode block) {
  uint32_t count = ts_node_named_child_count(block);
  for (uint32_t i = count; i-- > 0;) {
    TSNode last = ts_node_named_child(block, i);
    if (isKind(last, kind::comment)) continue;
    return isKind(last, kind::return_statement) || isKind(last, kind::raise_statement);
  }
  return false;
}

}  // namespace

bool CompiledRegions::isSkippedWhileCompiling(TSNode node) const {
  TSNode child = node;
  for (TSNode cur = ts_node_parent(node); !ts_node_is_null(cur); child = cur, cur = ts_node_parent(cur)) {
    analysis::NodeKind kind = kindOf(cur);
    if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::lambda) return false;
    if (kind == kind::if_statement || kind == kind::elif_clause) {
      int polarity = compilingPolarity(model_, fieldOf(cur, "condition"));
      TSNode consequence = fieldOf(cur, "consequence");
      if (polarity < 0 && sameNode(child, consequence)) return true;
      if (polarity > 0 && !sameNode(child, consequence) && !isKind(child, kind::comment) &&
          !sameNode(child, fieldOf(cur, "condition")))
        return true;  // an `elif` or `else` after `if is_compiling():`
    } else if (kind == kind::conditional_expression && ts_node_named_child_count(cur) == 3) {
      // `a if cond else b`
      int polarity = compilingPolarity(model_, ts_node_named_child(cur, 1));
      if (polarity < 0 && sameNode(child, ts_node_named_child(cur, 0))) return true;
      if (polarity > 0 && sameNode(child, ts_node_named_child(cur, 2))) return true;
    } else if (kind == kind::block || kind == kind::module) {
      // `if is_compiling(): return ...` earlier in the same block.
      int budget = 512;  // statements looked at per block: bounded on generated code
      for (TSNode prev = ts_node_prev_named_sibling(child); !ts_node_is_null(prev) && budget-- > 0;
           prev = ts_node_prev_named_sibling(prev)) {
        if (isKind(prev, kind::if_statement) && compilingPolarity(model_, fieldOf(prev, "condition")) > 0 &&
            leaves(fieldOf(prev, "consequence")))
          return true;
      }
    }
  }
  return false;
}

const CompiledRegions::Function* CompiledRegions::functionAt(TSNode node) const {
  if (compiled_.empty()) return nullptr;
  for (const Scope* scope = &model_.scopeAt(node); scope != nullptr; scope = scope->parent) {
    if (scope->kind == Scope::Kind::Class || scope->kind == Scope::Kind::Module) return nullptr;
    if (scope->kind != Scope::Kind::Function) continue;  // lambdas, comprehensions
    if (!contains(fieldOf(scope->node, "body"), node)) continue;  // a default value or annotation
    auto it = by_def_.find(scope->node.id);
    return it == by_def_.end() ? nullptr : it->second;
  }
  return nullptr;
}

}  // namespace ptlint::analysis
