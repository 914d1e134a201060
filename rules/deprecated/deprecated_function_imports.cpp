// PTL106: imports of deprecated names, fixed together with the uses of what they bind
// (deprecated_function_use.h).
#include "rules/deprecated/deprecated_function_use.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"
#include "rules/deprecated/call_rewrite.h"
#include "rules/deprecated/deprecated_symbols.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"

namespace ptlint::rules::deprecated_function {

bool movesWithImport(const Symbol& s) { return s.qualified.starts_with("functorch."); }

namespace {
struct ImportedName {
  TSNode node{};           // dotted_name or aliased_import
  std::string_view bound;  // the name it binds
  const Symbol* symbol = nullptr;  // null: not a symbol reported at this version
};
}  // namespace

static bool inExceptHandler(TSNode node) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    analysis::NodeKind kind = kindOf(n);
    if (kind == kind::except_clause) return true;
    if (kind == kind::function_definition || kind == kind::class_definition || kind == kind::module) return false;
  }
  return false;
}

// Where `word` occurs as a whole word outside [from, to), other than as an attribute name
// (`torch.linalg.cholesky` does not use a bare `cholesky`); strings and comments count.
static std::vector<uint32_t> bareOccurrences(std::string_view source, std::string_view word, uint32_t from, uint32_t to) {
  std::vector<uint32_t> out;
  analysis::forEachWholeWord(source, word, [&](size_t at) {
    if ((at < from || at >= to) && !(at > 0 && source[at - 1] == '.')) out.push_back(static_cast<uint32_t>(at));
    return false;
  });
  return out;
}

static bool isReferenceIn(TSNode identifier, TSNode parent) {
  analysis::NodeKind kind = kindOf(parent);
  if (kind == kind::attribute) return !sameNode(fieldOf(parent, "attribute"), identifier);
  if (kind == kind::keyword_argument) return !sameNode(fieldOf(parent, "name"), identifier);
  if (kind == kind::function_definition || kind == kind::class_definition) return !sameNode(fieldOf(parent, "name"), identifier);
  if (kind == kind::assignment || kind == kind::augmented_assignment) return !sameNode(fieldOf(parent, "left"), identifier);
  return kind != kind::global_statement && kind != kind::nonlocal_statement && kind != kind::parameters &&
         kind != kind::default_parameter && kind != kind::typed_parameter && kind != kind::typed_default_parameter &&
         kind != kind::lambda_parameters && kind != kind::dotted_name && kind != kind::aliased_import;
}

namespace {
struct NameUse {
  Use use;
  const Symbol* symbol = nullptr;
  const Binding* binding = nullptr;
  std::optional<Fix> fix;  // this use alone
};
}  // namespace

// One `from M import a, b as c` statement that imports deprecated names.
namespace {
struct ImportGroup {
  TSNode statement{};
  std::vector<const NameUse*> uses;
  std::unordered_set<std::string_view> dropped;  // bound names the group fix removes
  std::optional<Fix> fix;
};
}  // namespace

// The edit that removes `names` from the import statement (the statement itself when nothing is
// left), or nullopt when it cannot be done cleanly.
static std::optional<Edit> importRemoval(TSNode statement, const std::vector<ImportedName>& all,
                                         const std::unordered_set<std::string_view>& dropped, std::string_view source) {
  bool has_comment = false;
  analysis::forEachNamedChild(statement, [&](TSNode c) { has_comment = has_comment || isKind(c, kind::comment); });
  if (has_comment) return std::nullopt;
  std::vector<std::string> kept;
  for (const ImportedName& n : all)
    if (!dropped.contains(n.bound)) kept.push_back(std::string(analysis::textOf(n.node, source)));
  Edit edit{startOf(statement), endOf(statement), {}};
  if (!kept.empty()) {
    edit.content = "from " + std::string(analysis::textOf(fieldOf(statement, "module_name"), source)) + " import " +
                   joinArgs(kept);
    return edit;
  }
  TSNode parent = ts_node_parent(statement);
  uint32_t statements = 0;
  analysis::forEachNamedChild(parent, [&](TSNode c) { statements += isKind(c, kind::comment) ? 0 : 1; });
  uint32_t line_start = startOf(statement);
  while (line_start > 0 && (source[line_start - 1] == ' ' || source[line_start - 1] == '\t')) --line_start;
  uint32_t rest = endOf(statement);
  while (rest < source.size() && (source[rest] == ' ' || source[rest] == '\t')) ++rest;
  bool own_line = line_start == 0 || source[line_start - 1] == '\n';
  if (isKind(parent, kind::block) && statements == 1) {
    edit.content = "pass";  // the block would be empty
  } else if (!own_line) {
    return std::nullopt;  // `x = 1; from torch import qr`
  } else if (rest < source.size() && source[rest] == '\n') {
    edit = {line_start, rest + 1, {}};  // the whole line
  } else if (rest < source.size() && source[rest] == '#') {
    edit = {startOf(statement), rest, {}};  // the trailing comment stays
  } else if (rest >= source.size()) {
    edit = {line_start, static_cast<uint32_t>(source.size()), {}};
  } else {
    return std::nullopt;  // `from torch import qr; x = 1`
  }
  return edit;
}

// `from functorch import make_functional, vmap as v` -> `from functorch import make_functional`
// and `from torch.func import vmap as v` on the next line, at the same indentation: the bound
// names do not change, so their uses stay. Nullopt when the statement holds a comment or does not
// stand on a line of its own.
static std::optional<Fix> functorchSplit(TSNode statement, const std::vector<ImportedName>& all, const Context& ctx) {
  std::string_view source = ctx.source();
  bool has_comment = false;
  analysis::forEachNamedChild(statement, [&](TSNode c) { has_comment = has_comment || isKind(c, kind::comment); });
  if (has_comment) return std::nullopt;
  uint32_t line_start = startOf(statement);
  while (line_start > 0 && (source[line_start - 1] == ' ' || source[line_start - 1] == '\t')) --line_start;
  if (line_start > 0 && source[line_start - 1] != '\n') return std::nullopt;
  uint32_t rest = endOf(statement);
  while (rest < source.size() && (source[rest] == ' ' || source[rest] == '\t')) ++rest;
  if (rest < source.size() && source[rest] != '\n' && source[rest] != '\r' && source[rest] != '#') return std::nullopt;
  std::vector<std::string> kept, moved;
  for (const ImportedName& n : all) {
    bool moves = n.symbol != nullptr && movesWithImport(*n.symbol) && atLeast(ctx, n.symbol->replacement_since);
    (moves ? moved : kept).push_back(std::string(analysis::textOf(n.node, source)));
  }
  if (moved.empty() || kept.empty()) return std::nullopt;
  std::string indent(source.substr(line_start, startOf(statement) - line_start));
  std::string eol = source.find("\r\n") != std::string_view::npos ? "\r\n" : "\n";
  std::string text = "from functorch import " + joinArgs(kept) + eol + indent + "from torch.func import " + joinArgs(moved);
  return Fix{quickfix::Applicability::Safe, "Import " + joinArgs(moved) + " from `torch.func`",
             {{startOf(statement), endOf(statement), std::move(text)}}};
}

void checkImports(TSNode root, Context& ctx) {
  const SemanticModel& model = ctx.model();
  std::string_view source = ctx.source();
  std::unordered_map<const Binding*, const Symbol*> bound;  // names whose uses are reported
  std::unordered_map<const void*, ImportGroup> groups;
  std::unordered_set<std::string_view> names;
  for (const Binding* binding : model.imports()) {
    const Symbol* s = deprecated::findSymbol(analysis::canonicalQualifiedName(binding->qualified_name));
    if (s == nullptr || !atLeast(ctx, s->deprecated)) continue;
    if (!isKind(binding->statement, kind::import_from_statement)) continue;
    // `try: from torch.func import vmap / except ImportError: from functorch import vmap`, and the
    // same choice made by a version test (`if TORCH_2: ... else: from functorch import vmap`).
    if (binding->is_fallback || inExceptHandler(binding->statement) ||
        inCompatibilityFallback(binding->statement, *s, ctx))
      continue;
    groups[binding->statement.id].statement = binding->statement;
    bound.emplace(binding, s);
    names.insert(binding->name);
  }
  if (groups.empty()) return;

  // 1. Uses of the bound names (not inside import statements).
  std::vector<NameUse> uses;
  if (!bound.empty()) {
    analysis::WordPositions words;
    for (std::string_view word : names) words.add(source, word);
    std::vector<TSNode> path;
    analysis::walkTree(
        root,
        [&](TSNode node) {
          path.push_back(node);
          if (!words.anyWithin(startOf(node), endOf(node))) return false;
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::import_statement || kind == kind::import_from_statement) return false;
          if (kind != kind::identifier) return true;
          std::string_view text = model.text(node);
          if (!names.contains(text) || path.size() < 2 || !isReferenceIn(node, path[path.size() - 2])) return true;
          const Binding* binding = model.resolve(text, node);
          auto it = bound.find(binding);
          if (it == bound.end()) return true;
          TSNode parent = path[path.size() - 2];
          TSNode call = isKind(parent, kind::call) && sameNode(fieldOf(parent, "function"), node) ? parent : TSNode{};
          uses.push_back({{node, call}, it->second, binding, std::nullopt});
          return true;
        },
        [&](TSNode) { path.pop_back(); });
  }
  for (NameUse& use : uses) {
    // A functorch name is fixed at its import (the module changes, the name stays).
    if (!movesWithImport(*use.symbol)) use.fix = useFix(*use.symbol, use.use, ctx);
    groups[use.binding->statement.id].uses.push_back(&use);
  }

  // 2. One report per import statement; its fix also rewrites the uses.
  for (auto& [id, group] : groups) {
    TSNode statement = group.statement;
    TSNode module_node = fieldOf(statement, "module_name");
    if (!isKind(module_node, kind::dotted_name)) continue;
    std::string module = analysis::dottedNameText(module_node, source);
    std::vector<ImportedName> all;
    std::vector<const ImportedName*> deprecated_names;
    analysis::forEachFieldChild(statement, "name", [&](TSNode name) {
      bool aliased = isKind(name, kind::aliased_import);
      TSNode dotted = aliased ? fieldOf(name, "name") : name;
      TSNode bound_node = aliased ? fieldOf(name, "alias") : name;
      const Symbol* s = deprecated::findSymbol(analysis::canonicalQualifiedName(module + "." + analysis::dottedNameText(dotted, source)));
      if (s != nullptr && !atLeast(ctx, s->deprecated)) s = nullptr;
      all.push_back({name, analysis::textOf(bound_node, source), s});
    });
    std::string list;
    bool removed = false;
    for (const ImportedName& n : all) {
      if (n.symbol == nullptr) continue;
      deprecated_names.push_back(&n);
      list += (list.empty() ? "`" : ", `") + std::string(n.symbol->qualified) + "`";
      removed = removed || isRemoved(*n.symbol, ctx);
    }
    if (deprecated_names.empty()) continue;
    std::string text = deprecated_names.size() == 1 ? "Import of " + message(*deprecated_names.front()->symbol, ctx, {})
                                                     : "Import of deprecated " + list + versions::judgedFor(ctx.settings());
    Diagnostic& d = ctx.report(statement, text);
    if (deprecated_names.size() == 1) d.help = deprecatedHelp(*deprecated_names.front()->symbol);
    if (removed) d.severity = Severity::Error;

    // Every name moved unchanged to torch.func: rewrite the module, the uses stay.
    bool all_move = std::all_of(all.begin(), all.end(), [&](const ImportedName& n) {
      return n.symbol != nullptr && movesWithImport(*n.symbol) && atLeast(ctx, n.symbol->replacement_since);
    });
    if (all_move && module == "functorch") {
      d.fix = Fix{quickfix::Applicability::Safe, "Import from `torch.func` instead of `functorch`",
                  {{startOf(module_node), endOf(module_node), "torch.func"}}};
      group.fix = d.fix;
      continue;
    }
    if (module == "functorch") {
      // `from functorch import make_functional, vmap`: the names torch.func has move to a
      // `from torch.func import` of their own; the others (functorch's module API, which
      // torch.func replaces with a different one) stay.
      if (auto split = functorchSplit(statement, all, ctx)) {
        d.fix = std::move(split);
        group.fix = d.fix;
      } else {
        d.help = "No fix: the statement has a comment or shares its line.";
      }
      continue;
    }
    // Names whose every use is rewritten, and that occur nowhere else, are dropped.
    std::vector<Edit> edits;
    auto applicability = quickfix::Applicability::Safe;
    for (const ImportedName* n : deprecated_names) {
      if (movesWithImport(*n->symbol)) continue;
      std::vector<const NameUse*> own;
      for (const NameUse* u : group.uses)
        if (u->binding->name == n->bound) own.push_back(u);
      bool fixable = std::all_of(own.begin(), own.end(), [](const NameUse* u) { return u->fix.has_value(); });
      std::vector<uint32_t> occurrences = bareOccurrences(source, n->bound, startOf(statement), endOf(statement));
      bool only_uses = occurrences.size() == own.size() &&
                       std::all_of(own.begin(), own.end(), [&](const NameUse* u) {
                         return std::find(occurrences.begin(), occurrences.end(), startOf(u->use.ref)) != occurrences.end();
                       });
      if (!fixable || !only_uses || own.size() > 256) continue;
      group.dropped.insert(n->bound);
      for (const NameUse* u : own) {
        if (u->fix->applicability == quickfix::Applicability::Unsafe) applicability = quickfix::Applicability::Unsafe;
        for (const Edit& e : u->fix->edits) {
          bool duplicate = std::any_of(edits.begin(), edits.end(), [&](const Edit& x) {
            return x.start == e.start && x.end == e.end && x.content == e.content;
          });
          if (!duplicate) edits.push_back(e);
        }
      }
    }
    if (group.dropped.empty()) continue;
    auto removal = importRemoval(statement, all, group.dropped, source);
    if (!removal) {
      group.dropped.clear();
      continue;
    }
    edits.push_back(std::move(*removal));
    if (!quickfix::normalizeEdits(edits)) {
      group.dropped.clear();
      continue;
    }
    std::string replacements;
    for (const ImportedName* n : deprecated_names)
      if (group.dropped.contains(n->bound))
        replacements += (replacements.empty() ? "`" : ", `") + std::string(n->symbol->replacement) + "`";
    group.fix = Fix{applicability, "Use " + replacements + " and remove the deprecated import", std::move(edits)};
    d.fix = group.fix;
  }

  // 3. The uses: with the import's fix where it covers them.
  for (NameUse& u : uses) {
    if (inCompatibilityFallback(u.use.ref, *u.symbol, ctx)) continue;
    const ImportGroup& group = groups[u.binding->statement.id];
    TSNode range = ts_node_is_null(u.use.call) ? u.use.ref : u.use.call;
    Diagnostic& d = ctx.report(range, message(*u.symbol, ctx, ctx.text(u.use.ref)));
    d.help = deprecatedHelp(*u.symbol);
    if (isRemoved(*u.symbol, ctx)) d.severity = Severity::Error;
    if (movesWithImport(*u.symbol)) d.fix = group.fix;  // the import's fix: `vmap` stays `vmap`
    else d.fix = group.dropped.contains(u.binding->name) ? group.fix : u.fix;
  }
}

}  // namespace ptlint::rules::deprecated_function
