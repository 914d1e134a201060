#include "analysis/module_summary.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "analysis/node_access.h"
#include "analysis/code_text.h"
#include "analysis/compiled_regions.h"
#include "analysis/dynamo_config.h"
#include "analysis/environment_writes.h"
#include "analysis/instrumentation.h"
#include "analysis/module_summarizer.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"

namespace ptlint::analysis {

const ClassSummary* ModuleSummary::findClass(std::string_view name) const {
  for (const auto& c : classes)
    if (c.name == name) return &c;
  return nullptr;
}

const FunctionSummary* ModuleSummary::findFunction(std::string_view name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

const std::string* ModuleSummary::importOf(std::string_view name) const {
  const std::string* found = nullptr;
  for (const auto& [bound, qualified] : imports)
    if (bound == name) found = &qualified;  // the last one, as Python rebinds
  return found;
}

const CrossFileNote* ProjectWideFacts::setsEnvironment(std::string_view variable) const {
  for (const auto& [name, where] : environment)
    if (name == variable) return &where;
  return nullptr;
}

SourcePos sourcePosOf(const ParsedFile& file, uint32_t start, uint32_t end) {
  SourcePos p;
  p.start = start;
  p.end = end;
  const LineIndex& lines = file.lines();
  p.line = lines.lineOf(p.start);
  uint32_t line_start = lines.lineStart(p.line);
  std::string_view prefix = file.text().substr(line_start, p.start - line_start);
  p.column_bytes = static_cast<uint32_t>(prefix.size());
  p.column = countCodePoints(prefix) + 1;
  uint32_t utf16 = 0;
  for (unsigned char c : prefix) {
    if ((c & 0xC0) == 0x80) continue;
    utf16 += c >= 0xF0 ? 2 : 1;
  }
  p.column_utf16 = utf16;
  return p;
}

const ExternalUse* ProjectFacts::useOf(std::string_view function) const {
  for (const auto& use : uses)
    if (use.function == function) return &use;
  return nullptr;
}

const CrossFileNote* ProjectFacts::scalarCaptureSetter() const {
  if (!capture_setter.path.empty()) return &capture_setter;
  if (project == nullptr) return nullptr;
  if (in_tests && !project->captures_scalars_in_tests.path.empty()) return &project->captures_scalars_in_tests;
  return nullptr;
}

const std::vector<std::string_view>& indexedEnvironmentVariables() {
  static const std::vector<std::string_view> kVariables{"CUBLAS_WORKSPACE_CONFIG"};
  return kVariables;
}

namespace {

// A `compile` at `at` follows a `.` (`model.compile(`, `model. compile(`), whatever blanks lie
// between.
bool afterDot(std::string_view text, size_t at) {
  while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == '\n' || text[at - 1] == '\r' ||
                    text[at - 1] == '\\' || text[at - 1] == '\f'))
    --at;
  return at > 0 && text[at - 1] == '.';
}

// The test of mayHoldCompileSite on `text`; `bare_calls`: whether a call of a bare name
// `compile(...)` counts.
bool holdsCompileSite(std::string_view text, bool bare_calls) {
  return forEachWholeWord(text, "compile", [&](size_t at) {
    size_t end = at + 7;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
    bool called = end < text.size() && text[end] == '(';
    size_t back = at;
    while (back > 0 && (isIdentifierByte(text[back - 1]) || text[back - 1] == '.')) --back;
    std::string_view chain = text.substr(back, at - back);
    if (chain == "re." || chain == "regex.") return false;
    size_t before = back;
    while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
    if (before > 0 && text[before - 1] == '@') return true;  // a decorator
    if (!called) return false;
    if (before >= 3 && text.substr(before - 3, 3) == "def" && chain.empty()) return false;
    return bare_calls || !chain.empty() || afterDot(text, at);
  });
}

// Can the name `compile` be bound in `code` to something else than Python's builtin? Some bare
// `compile` that is neither called nor defined: `from torch import compile`, `compile = ...`.
bool mayBindCompile(std::string_view code) {
  return forEachWholeWord(code, "compile", [&](size_t at) {
    if (at > 0 && (isIdentifierByte(code[at - 1]) || code[at - 1] == '.')) return false;
    if (afterDot(code, at)) return false;
    size_t end = at + 7;
    while (end < code.size() && (code[end] == ' ' || code[end] == '\t')) ++end;
    if (end < code.size() && code[end] == '(') return false;  // a call
    size_t before = at;
    while (before > 0 && (code[before - 1] == ' ' || code[before - 1] == '\t')) --before;
    return !(before >= 3 && code.substr(before - 3, 3) == "def");
  });
}

}  // namespace

bool mayHoldCompileSite(std::string_view text, bool code_view) {
  // Every site is a call of something spelled `compile` (`torch.compile(m)`, `m.compile()`,
  // `tc = compile` aside) or a decorator `@torch.compile`. Regular expressions (`re.compile(`)
  // and definitions (`def compile(`) are not sites.
  if (!holdsCompileSite(text, true)) return false;
  if (prefiltersDisabled() || !code_view) return true;  // the oracle's reference: the raw test alone
  // Then in the code alone (a docstring's `@torch.compile` is no site), where a bare
  // `compile(src, name, "exec")` is Python's builtin unless the file binds the name.
  auto code = blankStringsAndComments(text);
  if (!code) return true;
  return holdsCompileSite(*code, mayBindCompile(*code));
}

bool ModuleSummarizer::returnsSelf(std::string_view method) {
  static constexpr std::string_view kSelfReturning[] = {"to",   "cuda",  "cpu",    "eval",     "train",
                                                        "half", "float", "double", "bfloat16", "requires_grad_"};
  return std::find(std::begin(kSelfReturning), std::end(kSelfReturning), method) != std::end(kSelfReturning);
}

TSNode ModuleSummarizer::firstArgument(TSNode call, std::string_view keyword, std::string_view source) {
  TSNode args = fieldNamed(call, "arguments");
  if (!isKind(args, kind::argument_list)) return {};
  TSNode positional{}, by_keyword{};
  forEachNamedChild(args, [&](TSNode arg) {
    analysis::NodeKind kind = kindOf(arg);
    if (kind == kind::keyword_argument) {
      if (!keyword.empty() && textOf(fieldNamed(arg, "name"), source) == keyword) by_keyword = fieldNamed(arg, "value");
    } else if (kind != kind::comment && kind != kind::list_splat && kind != kind::dictionary_splat && ts_node_is_null(positional)) {
      positional = arg;
    }
  });
  return ts_node_is_null(positional) ? by_keyword : positional;
}

bool ModuleSummarizer::hasTrueKeyword(TSNode call, std::string_view keyword, std::string_view source) {
  TSNode args = fieldNamed(call, "arguments");
  bool found = false;
  if (!isKind(args, kind::argument_list)) return false;
  forEachNamedChild(args, [&](TSNode arg) {
    if (isKind(arg, kind::keyword_argument) && textOf(fieldNamed(arg, "name"), source) == keyword &&
        isKind(unparenthesize(fieldNamed(arg, "value")), kind::true_))
      found = true;
  });
  return found;
}

ModuleSummary ModuleSummarizer::run() {
  // Each top-level name once, in order; the set keeps this linear in the number of bindings.
  std::unordered_set<std::string_view> defined;
  for (const auto& b : model_.bindings()) {
    if (b->kind == BindingKind::Import) out_.imports.emplace_back(b->name, b->qualified_name);
    if (b->scope == &model_.moduleScope() && b->kind != BindingKind::Import && defined.insert(b->name).second)
      out_.definitions.push_back(b->name);
  }
  TSNode root = model_.file().root();
  // Top-level functions and classes first, so that calls can name them.
  forEachNamedChildInOnePass(root, [&](TSNode stmt) {
    TSNode def = isKind(stmt, kind::decorated_definition) ? fieldNamed(stmt, "definition") : stmt;
    if (isKind(def, kind::function_definition)) {
      out_.functions.push_back(functionHeader(def));
      defs_.push_back({def, {}, out_.functions.size() - 1, SIZE_MAX});
    } else if (isKind(def, kind::class_definition)) {
      ClassSummary cls;
      cls.name = std::string(textOf(fieldNamed(def, "name"), source_));
      TSNode supers = fieldNamed(def, "superclasses");
      if (isKind(supers, kind::argument_list))
        forEachNamedChild(supers, [&](TSNode base) {
          if (auto ref = nameRef(base)) cls.bases.push_back(*ref);
        });
      if (isKind(stmt, kind::decorated_definition))
        forEachNamedChild(stmt, [&](TSNode child) {
          if (!isKind(child, kind::decorator) || ts_node_named_child_count(child) == 0) return;
          TSNode expr = unparenthesize(ts_node_named_child(child, 0));
          TSNode callee = isKind(expr, kind::call) ? unparenthesize(fieldNamed(expr, "function")) : expr;
          if (auto ref = nameRef(callee)) cls.decorators.push_back(std::move(*ref));
        });
      out_.classes.push_back(std::move(cls));
      size_t ci = out_.classes.size() - 1;
      forEachNamedChildInOnePass(fieldNamed(def, "body"), [&](TSNode member) {
        TSNode mdef = isKind(member, kind::decorated_definition) ? fieldNamed(member, "definition") : member;
        if (!isKind(mdef, kind::function_definition)) return;
        out_.classes[ci].methods.push_back(functionHeader(mdef));
        defs_.push_back({mdef, def, ci, out_.classes[ci].methods.size() - 1});
      });
    }
  });
  for (size_t i = 0; i < defs_.size(); ++i) index_by_def_[defs_[i].def.id] = i;
  walk();
  noteMethodHelperCalls();
  // The indexed variables as the rules read them in one file (a dict of defaults applied over
  // its items, `env["X"] = v` for a child process, ...), not only the `os.environ` forms above.
  for (std::string_view variable : indexedEnvironmentVariables())
    if (std::find(out_.environment.begin(), out_.environment.end(), variable) == out_.environment.end() &&
        source_.find(variable) != std::string_view::npos && setsEnvironmentVariable(model_.file(), variable))
      out_.environment.emplace_back(variable);
  if (auto at = processWideCaptureSetting(model_)) {
    out_.sets_capture = true;
    out_.sets_capture_at = sourcePosOf(model_.file(), at->first, at->second);
  }
  return std::move(out_);
}

FunctionSummary& ModuleSummarizer::summaryOf(const Def& d) {
  return d.method == SIZE_MAX ? out_.functions[d.index] : out_.classes[d.index].methods[d.method];
}

FunctionSummary ModuleSummarizer::functionHeader(TSNode def) {
  FunctionSummary fn;
  fn.name = std::string(textOf(fieldNamed(def, "name"), source_));
  fn.at = pos(fieldNamed(def, "name"));
  TSNode holder = ts_node_parent(def);
  if (isKind(holder, kind::decorated_definition))
    forEachNamedChild(holder, [&](TSNode child) {
      if (!isKind(child, kind::decorator) || ts_node_named_child_count(child) == 0) return;
      TSNode expr = unparenthesize(ts_node_named_child(child, 0));
      TSNode callee = isKind(expr, kind::call) ? unparenthesize(fieldNamed(expr, "function")) : expr;
      auto q = model_.qualifiedName(callee);
      if (q ? isDynamoDisable(*q) || (!q->starts_with("torch.") && namesDynamoDisable(*q))
            : namesDynamoDisable(textOf(callee, source_)))
        fn.disabled = true;
      if (auto ref = nameRef(callee)) fn.decorators.push_back(std::move(*ref));
    });
  return fn;
}

std::optional<NameRef> ModuleSummarizer::nameRef(TSNode expr) const {
  expr = unparenthesize(expr);
  if (auto q = model_.qualifiedName(expr)) return NameRef{NameRef::Kind::Imported, *q};
  if (isKind(expr, kind::identifier)) {
    const Binding* b = model_.resolve(textOf(expr, source_), expr);
    if (b != nullptr && b->scope == &model_.moduleScope() &&
        (b->kind == BindingKind::Class || b->kind == BindingKind::Function))
      return NameRef{NameRef::Kind::Local, b->name};
    return std::nullopt;
  }
  if (isKind(expr, kind::attribute)) {
    TSNode object = unparenthesize(fieldNamed(expr, "object"));
    if (!isKind(object, kind::identifier)) return std::nullopt;
    const Binding* b = model_.resolve(textOf(object, source_), object);
    if (b != nullptr && b->scope == &model_.moduleScope() && b->kind == BindingKind::Class)
      return NameRef{NameRef::Kind::Local, b->name + "." + std::string(textOf(fieldNamed(expr, "attribute"), source_))};
  }
  return std::nullopt;
}

bool ModuleSummarizer::isSelf(TSNode expr, const Def* d) const {
  expr = unparenthesize(expr);
  if (d == nullptr || ts_node_is_null(d->cls) || !isKind(expr, kind::identifier)) return false;
  const Binding* b = model_.resolve(textOf(expr, source_), expr);
  if (b == nullptr || b->kind != BindingKind::Parameter || !sameNode(b->statement, d->def)) return false;
  TSNode params = fieldNamed(d->def, "parameters");
  if (ts_node_named_child_count(params) == 0) return false;
  TSNode first = ts_node_named_child(params, 0);
  if (isKind(first, kind::typed_parameter)) first = ts_node_named_child(first, 0);
  return isKind(first, kind::identifier) && sameNode(first, b->name_node);
}

std::string_view ModuleSummarizer::selfAttribute(TSNode expr, const Def* d) const {
  expr = unparenthesize(expr);
  if (!isKind(expr, kind::attribute) || !isSelf(fieldNamed(expr, "object"), d)) return {};
  return textOf(fieldNamed(expr, "attribute"), source_);
}

bool ModuleSummarizer::initParameter(TSNode ident, const Def* d, std::string& name, int& index) const {
  if (d == nullptr || ts_node_is_null(d->cls)) return false;
  if (out_.classes[d->index].methods[d->method].name != "__init__") return false;
  return parameterOf(ident, d, name, index);
}

bool ModuleSummarizer::functionParameter(TSNode ident, const Def* d, std::string& name, int& index) const {
  return d != nullptr && ts_node_is_null(d->cls) && parameterOf(ident, d, name, index);
}

bool ModuleSummarizer::parameterOf(TSNode ident, const Def* d, std::string& name, int& index) const {
  ident = unparenthesize(ident);
  if (!isKind(ident, kind::identifier)) return false;
  bool method = !ts_node_is_null(d->cls);
  const Binding* b = model_.resolve(textOf(ident, source_), ident);
  if (b == nullptr || b->kind != BindingKind::Parameter || !sameNode(b->statement, d->def)) return false;
  TSNode params = fieldNamed(d->def, "parameters");
  int position = method ? -1 : 0;  // `self` is -1
  bool keyword_only = false;
  bool found = false;
  forEachNamedChild(params, [&](TSNode p) {
    if (found) return;
    analysis::NodeKind kind = kindOf(p);
    if (kind == kind::list_splat_pattern || kind == kind::keyword_separator || kind == kind::dictionary_splat_pattern) {
      keyword_only = true;
      return;
    }
    if (kind == kind::positional_separator || kind == kind::comment) return;
    TSNode n = p;
    if (kind == kind::typed_parameter) n = ts_node_named_child(p, 0);
    else if (kind == kind::default_parameter || kind == kind::typed_default_parameter) n = fieldNamed(p, "name");
    ++position;
    if (isKind(n, kind::identifier) && sameNode(n, b->name_node)) found = true;
  });
  if (!found || position < 1) return false;
  name = b->name;
  index = keyword_only ? -1 : position - 1;
  return true;
}

std::string ModuleSummarizer::selfPath(TSNode expr, const Def* d) const {
  expr = unparenthesize(expr);
  if (isKind(expr, kind::subscript)) {
    std::string base = selfPath(fieldNamed(expr, "value"), d);
    if (base.empty() || base.find('.') != std::string::npos) return base;
    if (auto key = stringLiteral(fieldNamed(expr, "subscript"), source_)) return base + "." + *key;
    return base;
  }
  if (!isKind(expr, kind::attribute)) return {};
  if (std::string_view attr = selfAttribute(expr, d); !attr.empty()) return std::string(attr);
  TSNode object = unparenthesize(fieldNamed(expr, "object"));
  std::string_view inner = selfAttribute(object, d);
  if (inner.empty()) return {};
  return std::string(inner) + "." + std::string(textOf(fieldNamed(expr, "attribute"), source_));
}

void ModuleSummarizer::noteCall(TSNode call, const Def* d) {
  TSNode callee = unparenthesize(fieldNamed(call, "function"));
  noteCompileSite(call, callee, d);
  noteEnvironment(call, callee);
  noteConstruction(call, callee);
  if (d == nullptr) return;
  CallRef ref;
  ref.at = pos(call);
  if (d->method != SIZE_MAX && out_.classes[d->index].methods[d->method].name == "__init__")
    noteInitContainerGrowth(call, callee, *d);
  if (isKind(callee, kind::subscript) || isKind(callee, kind::attribute)) {
    ref.attr = selfPath(callee, d);
    ref.kind = CallRef::Kind::SelfAttr;
    if (isKind(callee, kind::attribute) && ref.attr.empty()) {
      if (auto cls = annotatedClass(fieldNamed(callee, "object"))) {
        ref.kind = CallRef::Kind::Instance;  // `model.decode(x)` for `model: GPT`
        ref.target = std::move(*cls);
        ref.attr = std::string(textOf(fieldNamed(callee, "attribute"), source_));
        summaryOf(*d).calls.push_back(std::move(ref));
        return;
      }
    }
    if (ref.attr.empty()) {
      if (auto target = nameRef(callee)) {
        if (target->kind == NameRef::Kind::Imported && target->name.starts_with("torch.")) return;
        ref.kind = CallRef::Kind::Name;
        ref.target = std::move(*target);
      }
    }
  } else if (isKind(callee, kind::identifier) && !(ref.attr = loopOverSelfAttribute(callee, d)).empty()) {
    ref.kind = CallRef::Kind::SelfAttr;
  } else if (auto cls = annotatedClass(callee)) {
    ref.kind = CallRef::Kind::Instance;  // `model(x)` for `model: GPT`
    ref.target = std::move(*cls);
  } else if (auto target = nameRef(callee)) {
    if (target->kind == NameRef::Kind::Imported && target->name.starts_with("torch.")) return;
    ref.target = std::move(*target);
  } else {
    if (isKind(callee, kind::identifier) && callsUnknownValue(callee)) summaryOf(*d).calls_unknown = true;
    return;
  }
  if (ref.kind == CallRef::Kind::SelfAttr && ref.attr.empty()) return;
  summaryOf(*d).calls.push_back(std::move(ref));
}

std::optional<std::string> ModuleSummarizer::stringLiteral(TSNode node, std::string_view source) {
  node = unparenthesize(node);
  if (!isKind(node, kind::string)) return std::nullopt;
  std::string out;
  bool plain = true;
  forEachNamedChild(node, [&](TSNode part) {
    if (isKind(part, kind::string_content)) out += textOf(part, source);
    else if (!isKind(part, kind::string_start) && !isKind(part, kind::string_end)) plain = false;
  });
  if (!plain) return std::nullopt;
  return out;
}

void ModuleSummarizer::noteAssignment(TSNode assignment) {
  TSNode left = unparenthesize(fieldNamed(assignment, "left"));
  if (!isKind(left, kind::subscript)) return;
  auto q = model_.qualifiedName(fieldNamed(left, "value"));
  if (!q || *q != "os.environ") return;
  if (auto key = stringLiteral(fieldNamed(left, "subscript"), source_)) out_.environment.push_back(*key);
}

void ModuleSummarizer::walk() {
  // The function whose calls are being recorded: top-level functions and methods only; a def
  // nested in them records nothing (what it runs is not known to run).
  struct Frame {
    TSNode node;
    const Def* def;
  };
  std::vector<Frame> stack{{model_.file().root(), nullptr}};
  walkTree(
      model_.file().root(),
      [&](TSNode node) {
        analysis::NodeKind kind = kindOf(node);
        if (kind == kind::comment || kind == kind::string) return false;
        const Def* current = stack.back().def;
        if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::lambda) {
          const Def* def = nullptr;
          if (auto it = index_by_def_.find(node.id); it != index_by_def_.end()) {
            def = &defs_[it->second];
            noteDecoratorSites(*def);
          }
          stack.push_back({node, def});
        } else if (kind == kind::call) {
          noteCall(node, current);
        } else if (kind == kind::return_statement && current != nullptr &&
                   sameNode(stack.back().node, current->def)) {
          noteReturn(node, *current);
        } else if (kind == kind::assignment) {
          noteAssignment(node);
          if (current == nullptr && stack.size() == 1) noteCaptureFlag(node);
          if (current == nullptr && stack.size() == 1) noteCompilerAlias(node);
          if (current != nullptr) noteRegistration(node, *current);
          if (current != nullptr && current->method != SIZE_MAX &&
              out_.classes[current->index].methods[current->method].name == "__init__")
            noteInitStore(node, *current);
        }
        return true;
      },
      [&](TSNode node) {
        if (stack.size() > 1 && sameNode(stack.back().node, node)) stack.pop_back();
      });
}

ModuleSummary summarizeModule(const SemanticModel& model) { return ModuleSummarizer(model).run(); }

}  // namespace ptlint::analysis
