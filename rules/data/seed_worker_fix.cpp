// PTL401's fix (seed_worker_fix.h): where the `seed_worker` function goes, the names it uses for
// torch and numpy, and its body.
#include "rules/data/seed_worker_fix.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/code_text.h"
#include "analysis/syntax.h"
#include "analysis/value_resolution.h"
#include "rules/data/dataloader_args.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"

namespace ptlint::rules::seed_worker {

using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;
using analysis::startOf;

// contains any DataLoader call, so that every fix in a file agrees on one place (two fixes in one
// pass then clash, and the next pass reuses the definition the first one added).
namespace {
struct SeedWorkerPlacement {
  bool found = false;
  TSNode statement{};
};
}  // namespace

static const SeedWorkerPlacement& placementFor(const analysis::SemanticModel& model) {
  static const char kKey = 0;
  return model.perFileAnalysis<SeedWorkerPlacement>(&kKey, [&] {
    auto out = std::make_shared<SeedWorkerPlacement>();
    TSNode root = model.file().root();
    uint32_t count = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < count && !out->found; ++i) {
      TSNode statement = ts_node_named_child(root, i);
      analysis::walkTree(
          statement,
          [&](TSNode node) {
            if (out->found || isKind(node, kind::string) || isKind(node, kind::comment)) return false;
            if (isKind(node, kind::call) && data::isDataLoaderCall(model, node)) {
              out->found = true;
              out->statement = statement;
              return false;
            }
            return true;
          },
          [](TSNode) {});
    }
    return out;
  });
}

static bool boundAtModuleLevel(const analysis::SemanticModel& model, std::string_view name) {
  const auto* bindings = model.bindingsOf(model.moduleScope(), name);
  return bindings != nullptr && !bindings->empty();
}

// The module-level name bound to the module `qualified` by imports only (`np` for
// `import numpy as np`); empty when there is none.
static std::string moduleImportName(const analysis::SemanticModel& model, std::string_view qualified) {
  for (const auto& binding : model.bindings()) {
    if (binding->kind != analysis::BindingKind::Import || binding->scope != &model.moduleScope() ||
        binding->qualified_name != qualified || binding->is_fallback)
      continue;
    const auto* all = model.bindingsOf(model.moduleScope(), binding->name);
    bool only_this_module = std::all_of(all->begin(), all->end(), [&](const analysis::Binding* b) {
      return b->kind == analysis::BindingKind::Import && b->qualified_name == qualified;
    });
    if (only_this_module) return binding->name;
  }
  return {};
}

// The name to use for module `qualified`: the file's own, else the first free candidate, which
// then needs `import_line`. Empty when every candidate is taken by something else.
static std::string nameForModule(const analysis::SemanticModel& model, std::string_view qualified,
                                 std::initializer_list<std::string_view> candidates, std::vector<std::string>& imports) {
  std::string existing = moduleImportName(model, qualified);
  if (!existing.empty()) return existing;
  for (std::string_view candidate : candidates) {
    if (boundAtModuleLevel(model, candidate)) continue;
    if (candidate == qualified) imports.push_back(fmt::format("import {}", qualified));
    else imports.push_back(fmt::format("import {} as {}", qualified, candidate));
    return std::string(candidate);
  }
  return {};
}

// Start of the line where the `def` goes: the statement's line, moved above the comment lines
// directly attached to it.
static uint32_t definitionInsertionPoint(const analysis::ParsedFile& file, TSNode statement) {
  const auto& lines = file.lines();
  uint32_t row = lines.lineOf(analysis::startOf(statement));
  for (TSNode prev = ts_node_prev_named_sibling(statement); isKind(prev, kind::comment);
       prev = ts_node_prev_named_sibling(prev)) {
    uint32_t prev_row = lines.lineOf(analysis::startOf(prev));
    if (prev_row + 1 != row || lines.lineStart(prev_row) != analysis::startOf(prev)) break;
    row = prev_row;
  }
  return lines.lineStart(row);
}

static bool isBlankLine(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

std::string oneLine(std::string_view text, size_t limit) {
  if (text.size() > limit || text.find('\n') != std::string_view::npos) return {};
  return std::string(text);
}

// The statement that re-seeds generator `index` of `count` in `seed_worker`, given the file's
// name for numpy. Every generator gets a seed of its own, distinct from the worker's global
// streams (PyTorch seeds `random` and `torch` with `info.seed` itself).
static std::string reseedStatement(const Generator& g, size_t index, size_t count, const std::string& numpy) {
  std::string target = g.on_self ? "info.dataset." + g.name : g.name;
  std::string k = std::to_string(index);
  switch (g.creation.kind) {
    case GeneratorKind::NumpyDefaultRng:
      return fmt::format("{} = {}.random.default_rng([info.seed, {}])", target, numpy, k);
    case GeneratorKind::NumpyGenerator:
      return fmt::format("{0} = {1}.random.Generator(type({0}.bit_generator)([info.seed, {2}]))", target, numpy, k);
    case GeneratorKind::NumpyRandomState:
      return fmt::format("{}.seed([info.seed % 2**32, info.seed >> 32, {}])", target, k);
    case GeneratorKind::PythonRandom:
      if (index == 0) return fmt::format("{}.seed(info.seed + 2**64)", target);
      return fmt::format("{}.seed(info.seed + {} * 2**64)", target, index + 1);
    case GeneratorKind::TorchGenerator:
      if (count == 1) return fmt::format("{}.manual_seed(info.seed % 2**63 + 2**63)", target);
      return fmt::format("{}.manual_seed((info.seed * {} + {}) % 2**63 + 2**63)", target, count, k);
  }
  return {};
}

static bool needsNumpy(GeneratorKind kind) {
  return kind == GeneratorKind::NumpyDefaultRng || kind == GeneratorKind::NumpyGenerator;
}

// `Crops` -> "crops", `RandomCropDataset` -> "random_crop_dataset".
static std::string snakeCase(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (i > 0 && (std::islower(static_cast<unsigned char>(name[i - 1])) ||
                    (i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1])) &&
                     std::isupper(static_cast<unsigned char>(name[i - 1])))))
        out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<quickfix::Fix> seedWorkerFix(TSNode call, const DatasetFacts& facts, bool global_numpy,
                                           std::string_view dataset_class, Context& ctx) {
  const auto& model = ctx.model();
  const auto& file = ctx.file();
  std::string_view source = ctx.source();
  const SeedWorkerPlacement& placement = placementFor(model);
  if (!placement.found) return std::nullopt;

  std::vector<std::string> imports;  // standard library first
  bool numpy_needed = global_numpy || std::any_of(facts.generators.begin(), facts.generators.end(),
                                                  [](const Generator& g) { return needsNumpy(g.creation.kind); });
  std::string numpy = numpy_needed ? nameForModule(model, "numpy", {"np", "numpy"}, imports) : std::string("np");
  std::string torch = nameForModule(model, "torch", {"torch"}, imports);
  if (torch.empty() || numpy.empty()) return std::nullopt;
  // Never a module-level import of a package the file imports only in a function or `try`.
  for (const std::string& line : imports) {
    std::string_view package = std::string_view(line).substr(7);  // "import numpy as np"
    if (quickfix::importedOnlyInBlocks(model, package.substr(0, package.find_first_of(". ")))) return std::nullopt;
  }

  std::string body = "    # Each worker reseeds the generators it inherited from the main process.\n";
  std::vector<std::string> globals;
  for (const Generator& g : facts.generators)
    if (!g.on_self && needsNumpy(g.creation.kind)) globals.push_back(g.name);
  if (!globals.empty()) {
    std::string joined;
    for (const auto& name : globals) joined += (joined.empty() ? "" : ", ") + name;
    body += "    global " + joined + "\n";
  }
  body += fmt::format("    info = {}.utils.data.get_worker_info()\n", torch);
  size_t count = facts.generators.size();
  for (size_t i = 0; i < count; ++i) body += "    " + reseedStatement(facts.generators[i], i, count, numpy) + "\n";
  if (global_numpy) body += fmt::format("    {}.random.seed([info.seed % 2**32, info.seed >> 32])\n", numpy);
  // `seed_worker`, or for a second dataset of the file whose generators differ,
  // `seed_<dataset>_worker`: a name that is free, or bound to exactly the definition this fix
  // writes (another DataLoader of the same dataset, fixed earlier) and then reused. Any other
  // definition under that name may reseed something else.
  std::string name, definition;
  bool reuse = false;
  std::vector<std::string> candidates{"seed_worker"};
  if (!dataset_class.empty()) candidates.push_back("seed_" + snakeCase(dataset_class) + "_worker");
  for (const std::string& candidate : candidates) {
    std::string text = "def " + candidate + "(worker_id):\n" + body;
    if (model.resolve(candidate, call) == nullptr && !boundAtModuleLevel(model, candidate)) {
      name = candidate;
      definition = std::move(text);
      break;
    }
    const analysis::Binding* existing = model.resolve(candidate, call);
    const auto* all = model.bindingsOf(model.moduleScope(), candidate);
    if (existing != nullptr && existing->kind == analysis::BindingKind::Function &&
        existing->scope == &model.moduleScope() && all != nullptr && all->size() == 1 &&
        std::string(ctx.text(existing->statement)) + "\n" == text) {
      name = candidate;
      reuse = true;
      break;
    }
  }
  if (name.empty()) return std::nullopt;

  quickfix::Fix fix;
  fix.applicability = quickfix::Applicability::Unsafe;
  fix.message = "Add `worker_init_fn=" + name + "` that reseeds the dataset's generators in each worker";
  if (reuse) {
    fix.edits.push_back(appendArgument(call, "worker_init_fn=" + name, source));
    return fix;
  }
  definition += "\n\n";

  bool top_at_end = false;
  uint32_t top = quickfix::moduleInsertionPoint(file, &top_at_end);
  uint32_t def_at = std::max(definitionInsertionPoint(file, placement.statement), top);
  std::vector<quickfix::Edit> edits;
  if (!imports.empty()) {
    std::string joined;
    for (const auto& line : imports) joined += line + "\n";
    // Below the file's own module-level imports that precede the def, else at the top.
    quickfix::Edit edit{top, top, top_at_end ? "\n" : ""};
    TSNode root = file.root();
    for (uint32_t i = 0, n = ts_node_named_child_count(root); i < n; ++i) {
      TSNode child = ts_node_named_child(root, i);
      if (endOf(child) > def_at) break;
      if (!isKind(child, kind::import_statement) && !isKind(child, kind::import_from_statement)) continue;
      uint32_t row = file.lines().lineOf(endOf(child));
      if (row + 1 < file.lines().lineCount()) edit = {file.lines().lineStart(row + 1), 0, ""};
    }
    edit.end = edit.start;
    edit.content = edit.content.starts_with("\n") ? "\n" + joined : joined;
    edits.push_back(std::move(edit));
  }
  if (!edits.empty() && edits.front().start == def_at) {
    // Same place as the new imports: imports, two blank lines, the def.
    edits.front().content += "\n\n" + definition;
  } else {
    // Two blank lines above the new def, counting those already there.
    uint32_t row = file.lines().lineOf(def_at);
    int blank_above = 0;
    for (uint32_t r = row; r > 0 && blank_above < 2 && isBlankLine(file.lines().lineText(r - 1, source)); --r)
      ++blank_above;
    if (row > 0) definition.insert(0, std::string(2 - blank_above, '\n'));
    edits.push_back({def_at, def_at, definition});
  }
  edits.push_back(appendArgument(call, "worker_init_fn=" + name, source));
  fix.edits = std::move(edits);
  return fix;
}

}  // namespace ptlint::rules::seed_worker
