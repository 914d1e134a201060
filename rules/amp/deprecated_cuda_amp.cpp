// PTL101 deprecated-cuda-amp: uses of the `torch.cuda.amp` / `torch.cpu.amp` aliases that
// PyTorch 2.4 deprecated in favour of the device-generic `torch.amp`, with a safe fix that passes
// the device explicitly.
#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/syntax_helpers.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/amp/cuda_amp_shims.h"
#include "rules/amp/cuda_amp_targets.h"
#include "rules/deprecated/call_rewrite.h"
#include "quickfix/imports.h"
#include "rules/helpers.h"
#include "rules/torch_releases.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::Binding;
using analysis::BindingKind;
using analysis::SemanticModel;
using analysis::endOf;
using analysis::fieldOf;
using analysis::isKind;
using analysis::kindOf;
using analysis::sameNode;
using analysis::startOf;
using quickfix::Edit;
using quickfix::Fix;
using namespace cuda_amp;  // the rule is written in the terms of its targets and sites
using rewrite::baseOf;
using rewrite::torchPrefix;

constexpr RuleMeta kDeprecatedCudaAmp{
    .code = "PTL101",
    .name = "deprecated-cuda-amp",
    .summary = "Deprecated `torch.cuda.amp` / `torch.cpu.amp` alias; use `torch.amp` with an explicit device",
    .fix = FixAvailability::Sometimes,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .deprecated_tag = true,
    .since_torch = "2.4",
    .docs = R"md(
## What it does
Reports every use of the deprecated automatic-mixed-precision aliases
`torch.cuda.amp.autocast`, `torch.cuda.amp.GradScaler`, `torch.cuda.amp.custom_fwd`,
`torch.cuda.amp.custom_bwd` and `torch.cpu.amp.autocast`: calls, `with` blocks, decorators (bare
and called), imports (`import torch.cuda.amp`, `from torch.cuda import amp`,
`from torch.cuda.amp import autocast as ac`), names imported from those modules, module aliases
(`import torch as T; T.cuda.amp.autocast()`) and the function object stored in a variable
(`ac = torch.cuda.amp.autocast`). Names are resolved through the file's imports, so strings,
comments, a local variable or parameter named `amp`, and apex's `amp` never match.

A bare `import torch.cuda.amp` (it binds `torch`) in a file that uses nothing of the old API
gets a lighter message: importing the module does not warn, only the old constructors and
functions do.

A fallback for old PyTorch releases is left alone: an import or use in the `except` handler of a
`try` that already uses `torch.amp`, or in the other branch of an `if` (or conditional
expression) that uses `torch.amp` and whose condition tests a feature or version
(`hasattr(torch.amp, "custom_fwd")`, `torch.__version__ >= ...`). A device test such as
`if torch.cuda.is_available():` is not a fallback: both branches are reported as usual.

## Why is this bad?
Since PyTorch 2.4 the device-specific spellings are deprecated aliases of the device-generic
`torch.amp` API and emit a `FutureWarning` when used — when an `autocast` or `GradScaler` is
constructed or `custom_fwd` / `custom_bwd` is applied (their `__init__` and functions carry
`@deprecated(..., category=FutureWarning)` in `torch/cuda/amp/autocast_mode.py` and
`torch/cuda/amp/grad_scaler.py`; the import itself is silent):

> `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.

The replacements are `torch.amp.autocast("cuda", ...)`, `torch.amp.GradScaler("cuda", ...)` and
`torch.amp.custom_fwd(device_type="cuda", ...)`. Code written against the aliases keeps working
for now, but floods logs with warnings and will break when the aliases are
removed; the `torch.amp` spelling also works unchanged for other devices (`"cpu"`, `"xpu"`, `"mps"`).

## Example
```python
import torch

scaler = torch.cuda.amp.GradScaler(2.0**14)
with torch.cuda.amp.autocast(True, torch.bfloat16):
    loss = model(x)

class MyFn(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x): ...
```

## Use instead
```python
import torch

scaler = torch.amp.GradScaler("cuda", init_scale=2.0**14)
with torch.amp.autocast("cuda", enabled=True, dtype=torch.bfloat16):
    loss = model(x)

class MyFn(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
    def forward(ctx, x): ...
```

## Fix safety
The fix is safe: the old aliases are thin subclasses/wrappers of the `torch.amp` objects with the
device fixed, so the rewrite calls the same code.

- Old positional arguments become keywords, because the new signatures start with the device:
  `autocast(enabled, dtype, cache_enabled)` and
  `GradScaler(init_scale, growth_factor, backoff_factor, growth_interval, enabled)`.
  A call with `*args` (whose positions cannot be known) gets no fix. Nor does
  `torch.cuda.amp.autocast(torch.bfloat16)` (a dtype, or a string, as the first positional
  argument): that argument is `enabled`, so the region already runs in float16, and
  `enabled=torch.bfloat16` would keep the bug under a new name; the finding says so.
- `@custom_fwd` / `@custom_bwd` become `@torch.amp.custom_fwd(device_type="cuda")`, keeping
  `cast_inputs=`.
- The file's own spelling of `torch` is kept (`T.amp.autocast`); where no name for `torch` is
  visible, `import torch` is added, so no name is ever left undefined.
- `from torch.cuda.amp import X`, `from torch.cuda import amp` and `import torch.cuda.amp as A`
  are rewritten together with every use of the imported names in the file, as one fix. If one use
  cannot be rewritten (the name passed as a value, subclassed, rebound, or never used in the file,
  which may mean it is re-exported), that import and its uses get no fix; nor does an import
  used more than 256 times (each finding carries the whole fix).
- A reference that is not a call, decorator or annotation (e.g. `ac = torch.cuda.amp.autocast`)
  gets no fix: its callers would need the device too.

## PyTorch releases
Judged at the oldest release of `torch-version`: a use is reported, and fixed, only when that
release has its replacement — `torch.amp.autocast` (1.13's `torch/amp/autocast_mode.py`, the
oldest release read), `torch.amp.GradScaler` and its re-export `torch.GradScaler` 2.3
(`torch/amp/grad_scaler.py`, absent from 1.13), `torch.amp.custom_fwd` / `custom_bwd` 2.4. Below
those the old spelling is the only one and nothing is reported. The deprecation warnings
themselves are 2.4's (`torch/cuda/amp/*.py` of 2.6 and 2.14).

## Releases
The premise is 2.4's: `torch/cuda/amp/autocast_mode.py` and `grad_scaler.py` warn "is deprecated"
in 2.6 and 2.14, not in 1.13. The replacements are `torch.amp.autocast` (1.13's
`torch/amp/autocast_mode.py`), `torch.amp.GradScaler` (2.3; absent from 1.13's `torch/amp/`) and
`torch.amp.custom_fwd`/`custom_bwd` (2.4): a use is reported, and a fix written, only where the
range's oldest release has the replacement.

## References
- [`torch/cuda/amp/autocast_mode.py`](https://github.com/pytorch/pytorch/blob/main/torch/cuda/amp/autocast_mode.py):
  the `@deprecated(..., category=FutureWarning)` on `autocast.__init__`, `custom_fwd`, `custom_bwd`.
- [PyTorch docs: Automatic Mixed Precision package - torch.amp](https://pytorch.org/docs/stable/amp.html)
  (`torch.cuda.amp.autocast(args...)` is equivalent to `torch.autocast("cuda", args...)`;
  `torch.amp.GradScaler` since 2.3; `torch.amp.custom_fwd` / `custom_bwd` since 2.4).
)md"};

// --- The check ----------------------------------------------------------------------------

// A name bound by a deprecated import: a member (`from torch.cuda.amp import autocast as ac`)
// or the namespace itself (`from torch.cuda import amp`, `import torch.cuda.amp as A`).
struct ImportedName {
  const Binding* binding = nullptr;
  const Target* target = nullptr;  // a member
  std::string_view device;         // the namespace: "cuda" or "cpu"
};

struct Use {
  Site site;
  const Target* target = nullptr;
  const Binding* binding = nullptr;  // for a use of an imported name: that name
  bool shim = false;                 // in a compatibility fallback: not reported
};

// One deprecated import statement with every use of the names it binds: they are fixed together.
constexpr size_t kMaxGroupUses = 256;

struct ImportGroup {
  TSNode statement{};
  std::vector<ImportedName> names;
  std::vector<Use> uses;     // the names, and namespace members (`amp.autocast`)
  bool rewritable = true;    // false once some use of a name cannot be rewritten
  bool shim = false;         // the import is a compatibility fallback: not reported, not fixed
  std::optional<Fix> fix;
};

// A name bound more than once in its scope may mean either binding at a use. `except
// ImportError` fallbacks do not count: name resolution prefers the `try` side, as Python does
// whenever the import succeeds.
bool isAmbiguous(const Binding& binding, const SemanticModel& model) {
  const auto* all = model.bindingsOf(*binding.scope, binding.name);
  if (all == nullptr) return true;
  return std::count_if(all->begin(), all->end(), [&](const Binding* b) { return !b->is_fallback || b == &binding; }) != 1;
}

// Identifiers that read a name (not an attribute's member name, a keyword argument's name, or a
// `global` declaration). Names being bound resolve to their own binding, so they need no test.
bool isReference(Path path) {
  TSNode identifier = path.back();
  TSNode parent = ancestor(path, 1);
  analysis::NodeKind kind = kindOf(parent);
  if (kind == kind::attribute) return !sameNode(fieldOf(parent, "attribute"), identifier);
  if (kind == kind::keyword_argument) return !sameNode(fieldOf(parent, "name"), identifier);
  return kind != kind::global_statement && kind != kind::nonlocal_statement;
}

// The replacement as a short message names it: the device, without the `...` of the other
// arguments (the fix title spells the full call).
std::string shortReplacement(const Target& t) {
  auto quoted = [](std::string_view device) { return "\"" + std::string(device) + "\""; };
  switch (t.api) {
    case Api::Autocast: return "torch.amp.autocast(" + quoted(t.device) + ")";
    case Api::GradScaler: return "torch.amp.GradScaler(" + quoted(t.device) + ")";
    case Api::CustomFwd: return "torch.amp.custom_fwd(device_type=" + quoted(t.device) + ")";
    case Api::CustomBwd: return "torch.amp.custom_bwd(device_type=" + quoted(t.device) + ")";
  }
  return {};
}

// The qualified name, not the file's spelling of it: the underline shows that.
void describe(Diagnostic& d, const Target& t, const Site& site, const SemanticModel& model, const std::string& judged) {
  std::string use = shortReplacement(t);
  if (site.form == Form::Decorator) use = "@" + use;
  d.message = "Deprecated `" + std::string(t.qualified) + "`; use `" + use + "`";
  if (misplacedAutocastArgument(site, t, model)) {
    d.message += " with `dtype=` by keyword";
    d.help = "The first positional parameter of `" + std::string(t.qualified) + "` is `enabled`, not the dtype.";
  }
  d.message += judged;
}

// Where the walk below must look: every occurrence of `amp` and of each name that can stand for
// the old API without spelling it — a name imported from it (`import torch.cuda.amp as A`) and
// an alias assigned from such a name (`B = A`, followed as far as qualifiedName follows). A
// reference to the old API, and a deprecated import, always contains one of these words.
// Occurrences are substrings, so the list errs towards walking more.
analysis::WordPositions wordPositions(const SemanticModel& model, std::string_view source) {
  auto has_amp = [](std::string_view text) { return text.find("amp") != std::string_view::npos; };
  std::unordered_set<std::string_view> names;
  std::vector<const Binding*> aliases;  // assignments qualifiedName may follow: `B = A.x`
  for (const auto& binding : model.bindings()) {
    if (binding->kind == BindingKind::Import) {
      if (has_amp(binding->qualified_name) || has_amp(analysis::canonicalQualifiedName(binding->qualified_name)))
        names.insert(binding->name);
    } else if (binding->kind == BindingKind::Assignment && !ts_node_is_null(binding->value)) {
      TSNode value = analysis::unparenthesize(binding->value);
      if (isKind(value, kind::identifier) || isKind(value, kind::attribute)) aliases.push_back(binding.get());
    }
  }
  // As deep as qualifiedName follows alias chains.
  for (int round = 0; round <= 8 && !aliases.empty(); ++round) {
    size_t before = names.size();
    std::erase_if(aliases, [&](const Binding* b) {
      TSNode value = analysis::unparenthesize(b->value);
      if (!has_amp(model.text(value)) && !names.contains(model.text(baseOf(value)))) return false;
      names.insert(b->name);
      return true;
    });
    if (names.size() == before) break;
  }
  analysis::WordPositions positions;
  names.insert("amp");
  for (std::string_view word : names)
    if (!word.empty()) positions.add(source, word);
  return positions;
}

class DeprecatedCudaAmp final : public Rule {
 public:
  const RuleMeta& meta() const override { return kDeprecatedCudaAmp; }
  // An import's fix must see every use of the names it binds, so the rule looks at the whole
  // file at once, from the module node, in one walk of its own.
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::module}; }
  // Every deprecated use names the identifier `amp` (`torch.cuda.amp`, `from torch.cuda import amp`).
  Prefilter prefilter() const override { return {.words = {"amp"}, .whole_words = true}; }

  void check(TSNode root, Context& ctx) const override {
    const SemanticModel& model = ctx.model();
    ShimDetector shims(model);

    // 1. Names bound by deprecated imports, grouped by statement.
    std::unordered_map<const void*, ImportGroup> groups;
    std::unordered_map<const Binding*, std::pair<ImportGroup*, const ImportedName*>> group_of;
    std::unordered_set<std::string_view> group_names;
    for (const auto& binding : model.bindings()) {
      if (binding->kind != BindingKind::Import) continue;
      std::string q = analysis::canonicalQualifiedName(binding->qualified_name);
      ImportedName name{binding.get(), findTarget(q), {}};
      if (auto device = deprecatedModuleDevice(q)) name.device = *device;
      if (name.target == nullptr && name.device.empty()) continue;
      ImportGroup& group = groups[binding->statement.id];
      group.statement = binding->statement;
      group.names.push_back(name);
    }
    for (auto& [id, group] : groups) {
      for (const ImportedName& name : group.names) {
        group_of[name.binding] = {&group, &name};
        group_names.insert(name.binding->name);
      }
    }

    // 2. One walk: import statements, references to the old API, uses of the imported names.
    // Only subtrees that hold one of `words` can hold any of those: the rest is not entered.
    analysis::WordPositions words = wordPositions(model, ctx.source());
    std::vector<std::pair<TSNode, bool>> imports;  // with: is it a compatibility shim
    std::vector<Use> direct;
    std::vector<TSNode> path;
    analysis::walkTree(
        root,
        [&](TSNode node) {
          path.push_back(node);  // popped by leave(), which runs for skipped nodes too
          if (!words.anyWithin(startOf(node), endOf(node))) return false;
          analysis::NodeKind kind = kindOf(node);
          if (kind == kind::import_statement || kind == kind::import_from_statement) {
            bool shim = shims.isShim(path);
            imports.emplace_back(node, shim);
            if (auto it = groups.find(node.id); it != groups.end()) it->second.shim = shim;
            return false;
          }
          if (kind == kind::attribute) {
            if (!isMemberName(model.text(fieldOf(node, "attribute")))) return true;
            auto q = model.qualifiedName(node);
            const Target* target = q ? findTarget(*q) : nullptr;
            if (target == nullptr) return true;
            TSNode base = baseOf(node);
            const Binding* binding = isKind(base, kind::identifier) ? model.resolve(model.text(base), base) : nullptr;
            auto it = binding != nullptr ? group_of.find(binding) : group_of.end();
            if (it != group_of.end() && sameNode(analysis::unparenthesize(fieldOf(node, "object")), base)) {
              // `amp.autocast` through an imported namespace: part of that import's group.
              it->second.first->uses.push_back({classify(path), target, binding, shims.isShim(path)});
            } else {
              if (it != group_of.end()) it->second.first->rewritable = false;  // `A.autocast_mode.autocast`
              // Calls through a variable bound to the old API (`ac = torch.cuda.amp.autocast`) are
              // reported at that assignment, not at each call.
              direct.push_back({classify(path), target, nullptr, shims.isShim(path)});
            }
            return false;
          }
          if (kind == kind::identifier) {
            std::string_view text = model.text(node);
            if (!group_names.contains(text) || !isReference(path)) return true;
            const Binding* binding = model.resolve(text, node);
            auto it = binding != nullptr ? group_of.find(binding) : group_of.end();
            if (it == group_of.end()) return true;
            const auto& [group, name] = it->second;
            if (name->target != nullptr)
              group->uses.push_back({classify(path), name->target, binding, shims.isShim(path)});
            else group->rewritable = false;  // the namespace used other than as `amp.<member>`
          }
          return true;
        },
        [&](TSNode) { path.pop_back(); });

    // 3. One fix per import group, shared by the import and every use.
    for (auto& [id, group] : groups) group.fix = groupFix(group, ctx);

    // 4. Reports.
    // Is the old API used anywhere in the file (not only imported)?
    bool api_used = !direct.empty() ||
                    std::any_of(groups.begin(), groups.end(), [](const auto& g) { return !g.second.uses.empty(); });
    for (auto [statement, shim] : imports)
      if (!shim) reportImport(statement, groups, api_used, ctx);
    for (auto& [id, group] : groups) {
      if (group.shim) continue;
      for (const Use& use : group.uses) {
        // A name also bound elsewhere in its scope (`if ...: from torch.amp import autocast
        // else: from torch.cuda.amp import autocast`) may mean either: only the import reports.
        if (isAmbiguous(*use.binding, model) || use.shim || !replacementAvailable(*use.target, ctx)) continue;
        Diagnostic& d = ctx.report(use.site.range, "");
        describe(d, *use.target, use.site, model, versions::judgedFor(ctx.settings()));
        d.fix = group.fix;
      }
    }
    for (const Use& use : direct) {
      if (use.shim || !replacementAvailable(*use.target, ctx)) continue;
      Diagnostic& d = ctx.report(use.site.range, "");
      describe(d, *use.target, use.site, model, versions::judgedFor(ctx.settings()));
      d.fix = directFix(use, ctx);
    }
  }

 private:
  // `torch.cuda.amp.autocast(...)` -> `torch.amp.autocast("cuda", ...)`, keeping the file's
  // spelling of torch and adding `import torch` when none is visible.
  static std::optional<Fix> directFix(const Use& use, const Context& ctx) {
    const Target& t = *use.target;
    if (!replacementAvailable(t, ctx) || use.site.form == Form::Value) return std::nullopt;
    if (misplacedAutocastArgument(use.site, t, ctx.model())) return std::nullopt;
    bool needs_import = false;
    std::string prefix = torchPrefix(use.site.ref, ctx.model(), needs_import);
    if (prefix.empty()) return std::nullopt;
    auto edits = siteEdits(use.site, t, prefix + ".amp." + std::string(t.member), ctx.source());
    if (!edits) return std::nullopt;
    if (needs_import) {
      auto edit = quickfix::addImport(ctx.model(), "import torch");
      if (!edit) return std::nullopt;
      edits->push_back(std::move(*edit));
    }
    if (!quickfix::normalizeEdits(*edits)) return std::nullopt;
    std::string spelling = use.site.form == Form::Annotation ? "torch.amp." + std::string(t.member) : replacementSpelling(t);
    return Fix{quickfix::Applicability::Safe, "Use `" + spelling + "` instead of `" + std::string(t.qualified) + "`",
               std::move(*edits)};
  }

  // The import rewritten to `torch.amp` and every use given its device: all or nothing.
  static std::optional<Fix> groupFix(const ImportGroup& group, const Context& ctx) {
    const SemanticModel& model = ctx.model();
    std::string_view source = ctx.source();
    // Very many uses: every diagnostic carries a copy of the one fix, so the size is bounded.
    if (!group.rewritable || group.shim || group.uses.size() > kMaxGroupUses) return std::nullopt;
    std::vector<Edit> edits;
    if (isKind(group.statement, kind::import_from_statement)) {
      TSNode module_node = fieldOf(group.statement, "module_name");
      if (!isKind(module_node, kind::dotted_name)) return std::nullopt;
      std::string module = analysis::canonicalQualifiedName(analysis::dottedNameText(module_node, source));
      size_t count = 0;
      analysis::forEachFieldChild(group.statement, "name", [&](TSNode) { ++count; });
      if (count != group.names.size()) return std::nullopt;  // also imports something else
      bool members = std::all_of(group.names.begin(), group.names.end(), [](auto& n) { return n.target != nullptr; });
      bool namespaces = std::all_of(group.names.begin(), group.names.end(), [](auto& n) { return n.target == nullptr; });
      if (deprecatedModuleDevice(module) && members) {
        edits.push_back({startOf(module_node), endOf(module_node), "torch.amp"});  // from torch.amp import autocast
      } else if ((module == "torch.cuda" || module == "torch.cpu") && namespaces) {
        edits.push_back({startOf(module_node), endOf(module_node), "torch"});  // from torch import amp
      } else {
        return std::nullopt;
      }
    } else {
      for (const ImportedName& name : group.names) {
        TSNode aliased = ts_node_parent(name.binding->name_node);
        if (name.target != nullptr || !isKind(aliased, kind::aliased_import)) return std::nullopt;
        TSNode dotted = fieldOf(aliased, "name");
        edits.push_back({startOf(dotted), endOf(dotted), "torch.amp"});  // import torch.amp as A
      }
    }
    for (const ImportedName& name : group.names) {
      if (name.binding->is_fallback || isAmbiguous(*name.binding, model)) return std::nullopt;
      if (name.target != nullptr && !replacementAvailable(*name.target, ctx)) return std::nullopt;
      // An unused name may be re-exported: importers would get the new API without the device.
      bool used = std::any_of(group.uses.begin(), group.uses.end(), [&](const Use& u) { return u.binding == name.binding; });
      if (!used) return std::nullopt;
    }
    for (const Use& use : group.uses) {
      if (!replacementAvailable(*use.target, ctx)) return std::nullopt;
      if (misplacedAutocastArgument(use.site, *use.target, model)) return std::nullopt;
      auto use_edits = siteEdits(use.site, *use.target, "", source);
      if (!use_edits) return std::nullopt;
      edits.insert(edits.end(), use_edits->begin(), use_edits->end());
    }
    if (!quickfix::normalizeEdits(edits)) return std::nullopt;
    return Fix{quickfix::Applicability::Safe, "Import from `torch.amp`, passing the device at each use",
               std::move(edits)};
  }

  static void reportImport(TSNode statement, const std::unordered_map<const void*, ImportGroup>& groups,
                           bool api_used, Context& ctx) {
    std::string_view source = ctx.source();
    std::vector<std::string> names;  // what the statement imports from the old API
    std::vector<Edit> plain;         // `import torch.cuda.amp` -> `import torch.amp`
    bool plain_fixable = true;
    std::string module;
    if (isKind(statement, kind::import_from_statement)) {
      TSNode module_node = fieldOf(statement, "module_name");
      if (!isKind(module_node, kind::dotted_name)) return;  // relative: torch's own sources
      module = analysis::dottedNameText(module_node, source);
      bool wildcard = false;
      analysis::forEachNamedChild(statement, [&](TSNode child) { wildcard = wildcard || isKind(child, kind::wildcard_import); });
      std::string canonical = analysis::canonicalQualifiedName(module);
      if (wildcard && deprecatedModuleDevice(canonical)) names.push_back(canonical + ".*");
      module += ".";
    }
    analysis::forEachFieldChild(statement, "name", [&](TSNode name) {
      bool aliased = isKind(name, kind::aliased_import);
      TSNode dotted = aliased ? fieldOf(name, "name") : name;
      std::string q = analysis::canonicalQualifiedName(module + analysis::dottedNameText(dotted, source));
      bool is_module = deprecatedModuleDevice(q).has_value();
      const Target* target = findTarget(q);
      if (!is_module && target == nullptr) return;
      // A name whose replacement the range's oldest release lacks is not a finding there.
      if (target != nullptr && !replacementAvailable(*target, ctx)) {
        plain_fixable = false;
        return;
      }
      names.push_back(q);
      if (module.empty() && !aliased) {
        // `import torch.cuda.amp` binds `torch`: its uses are reported one by one.
        if (is_module) plain.push_back({startOf(dotted), endOf(dotted), "torch.amp"});
        else plain_fixable = false;
      }
    });
    if (names.empty()) return;

    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "`" : ", `") + n + "`";
    // `import torch.cuda.amp` alone: the import does not warn (the old constructors and
    // functions do), and nothing in the file calls them.
    bool bare_module_only = !plain.empty() && plain_fixable && plain.size() == names.size() && !api_used;
    Diagnostic& d = ctx.report(statement, bare_module_only ? "Deprecated " + list + " imported but unused; import `torch.amp`"
                                                           : "Import of deprecated " + list + "; use `torch.amp`" +
                                                                 versions::judgedFor(ctx.settings()));
    d.help = bare_module_only ? "Importing the module does not warn; its old constructors and functions do."
                              : "`torch.amp` takes the device (`\"cuda\"`, `\"cpu\"`) explicitly.";
    auto group = groups.find(statement.id);
    std::optional<Fix> fix;
    if (group != groups.end()) {
      fix = group->second.fix;
      if (!fix) return;
    }
    if (!plain.empty()) {
      if (!plain_fixable || !ctx.torchAtLeast(1, 13)) return;
      if (!fix) fix = Fix{quickfix::Applicability::Safe, "Import `torch.amp`", {}};
      fix->edits.insert(fix->edits.end(), plain.begin(), plain.end());
      if (!quickfix::normalizeEdits(fix->edits)) return;
    }
    d.fix = std::move(fix);
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL101, DeprecatedCudaAmp)

}  // namespace ptlint::rules
