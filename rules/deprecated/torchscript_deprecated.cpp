// PTL112 torchscript-deprecated: TorchScript's entry points, which PyTorch deprecates.
#include <array>
#include <cctype>

#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/helpers.h"
#include "rules/version_facts.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kTorchscriptDeprecated{
    .code = "PTL112",
    .name = "torchscript-deprecated",
    .summary = "TorchScript (`torch.jit.script`, `trace`, ...) is deprecated",
    .fix = FixAvailability::None,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .deprecated_tag = true,
    .since_torch = "2.14",
    .docs = R"md(
## What it does
Reports calls and decorators of TorchScript's entry points, through any import or alias, when
the configured `torch-version` range includes a release that deprecates them:
`torch.jit.script`, `torch.jit.trace`, `torch.jit.trace_module`, `torch.jit.script_method`,
`torch.jit.interface`, `torch.jit.freeze`, `torch.jit.fork`, `torch.jit.wait`,
`torch.jit.set_fusion_strategy`, `torch.jit.save` and `torch.jit.load`.

Helpers that only mark code for TorchScript and do nothing without it are not reported:
`torch.jit.ignore`, `torch.jit.unused`, `torch.jit.export`, `torch.jit.is_scripting`,
`torch.jit.is_tracing`, `torch.jit.annotate`, `torch.jit.Final`.

## Why is this bad?
Each of these functions warns "`torch.jit.script` is deprecated. Please switch to
`torch.compile` or `torch.export`." (a `FutureWarning`) in PyTorch 2.14, and TorchScript no
longer receives fixes: code that depends on it will break when it is removed. On Python 3.14
and later the warning says instead that TorchScript "is not supported in Python 3.14+ and may
break".

## Example
```python
scripted = torch.jit.script(model)
torch.jit.save(scripted, "model.pt")
```

## Use instead
```python
compiled = torch.compile(model)                      # for speed
program = torch.export.export(model, (example,))     # for a serialisable graph
torch.export.save(program, "model.pt2")
```

## Fix safety
There is no fix: `torch.compile` and `torch.export` are not drop-in replacements (export needs
example inputs and has its own restrictions on control flow).

## PyTorch versions
The `FutureWarning`s are in PyTorch 2.14's `torch/jit/_script.py`, `_trace.py`,
`_serialization.py`, `_freeze.py`, `_fuser.py` and `_async.py`, and absent from 2.6's. PyTorch
announced the deprecation with its 2.10 release; the first release whose sources hold the
warning was not checked between 2.7 and 2.13, so the rule takes 2.14, the release verified: it
reports when the range includes 2.14 (an open range such as `>=2.1` does) and is silent for a
range that ends before it.

## Releases
`torch/jit/_script.py` and `_trace.py`: 2.14 raises a `FutureWarning` "`torch.jit.script` is
deprecated"; 2.6 does not (the releases between were not read): reported where the range includes
2.14.

## References
- [torch/jit/_script.py](https://github.com/pytorch/pytorch/blob/main/torch/jit/_script.py): `script`, `script_method`, `interface`
- [torch/jit/_trace.py](https://github.com/pytorch/pytorch/blob/main/torch/jit/_trace.py): `trace`, `trace_module`
- [torch/jit/_serialization.py](https://github.com/pytorch/pytorch/blob/main/torch/jit/_serialization.py): `save`, `load`
- [torch.export](https://pytorch.org/docs/stable/export.html), [torch.compile](https://pytorch.org/docs/stable/generated/torch.compile.html)
)md"};

struct Entry {
  std::string_view name;         // qualified
  std::string_view replacement;  // what to use instead
};

constexpr std::array<Entry, 13> kEntries{{
    {"torch.jit.script", "`torch.compile`/`torch.export`"},
    {"torch.jit._script.script", "`torch.compile`/`torch.export`"},
    {"torch.jit.trace", "`torch.compile`/`torch.export`"},
    {"torch.jit._trace.trace", "`torch.compile`/`torch.export`"},
    {"torch.jit.trace_module", "`torch.compile`/`torch.export`"},
    {"torch.jit.script_method", "`torch.compile`/`torch.export`"},
    {"torch.jit.interface", "`torch.compile`"},
    {"torch.jit.freeze", "`torch.compile`"},
    {"torch.jit.fork", "`torch.compile`"},
    {"torch.jit.wait", "`torch.compile`"},
    {"torch.jit.set_fusion_strategy", "`torch.compile`"},
    {"torch.jit.save", "`torch.export.save`"},
    {"torch.jit.load", "`torch.export.load`"},
}};

const Entry* findEntry(std::string_view qualified) {
  for (const Entry& e : kEntries)
    if (e.name == qualified) return &e;
  return nullptr;
}

constexpr std::array<std::string_view, 11> kMembers{"script", "trace",  "trace_module", "script_method",
                                                   "interface", "freeze", "fork", "wait", "set_fusion_strategy",
                                                   "save",   "load"};

std::string_view lastOf(std::string_view qualified) { return qualified.substr(qualified.rfind('.') + 1); }

class TorchscriptDeprecated final : public Rule {
 public:
  const RuleMeta& meta() const override { return kTorchscriptDeprecated; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::call, kind::decorator}; }
  // A use names `jit` (in the chain or the import) and the entry point itself, in code.
  // Finer, as PyTorch's own code names `torch.jit.is_scripting` and the like everywhere: a `jit`
  // that is only ever followed by `.` and a name other than an entry point (or `_script`/`_trace`,
  // whose `script`/`trace` are entries) cannot lead to one; an import of `jit` itself or an alias
  // of it lets the file through, and so does a relative import naming one of them.
  Prefilter prefilter() const override {
    return {.words = {"jit"},
            .whole_words = true,
            .range_reaches = versions::deprecatedIn(versions::kTorchscript),
            .words_in_code = true,
            .code_names = {{kMembers.begin(), kMembers.end()}}};
  }
  bool mayReport(const PrefilterInput& input, const Settings&) const override {
    if (input.parsed != nullptr) return true;
    const analysis::PrefilterText& source = input.source;
    const std::string* code = source.code();
    if (code == nullptr) return true;
    std::string_view text = *code;
    auto skip = [&](size_t i) {
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r' ||
                                 text[i] == '\\' || text[i] == '\f'))
        ++i;
      return i;
    };
    auto identifierChar = [](char c) {
      return c == '_' || std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80;
    };
    if (analysis::forEachWholeWord(text, "jit", [&](size_t at) {
          size_t i = skip(at + 3);
          if (i >= text.size() || text[i] != '.') return true;
          size_t start = skip(i + 1), end = start;
          while (end < text.size() && identifierChar(text[end])) ++end;
          std::string_view name = text.substr(start, end - start);
          return name.empty() || name == "_script" || name == "_trace" || isMember(name);
        }))
      return true;
    // A relative import that names `jit`, `_script`, `_trace` or an entry point (`from ._script
    // import script as s`): the statement runs to a line break outside parentheses.
    return analysis::forEachWholeWord(text, "from", [&](size_t at) {
      size_t i = skip(at + 4);
      if (i >= text.size() || text[i] != '.') return false;
      size_t end = i;
      for (int depth = 0; end < text.size(); ++end) {
        char c = text[end];
        if (c == '(') ++depth;
        else if (c == ')') --depth;
        else if (c == '\\' && end + 1 < text.size()) ++end;
        else if ((c == '\n' || c == ';') && depth <= 0) break;
      }
      std::string_view statement = text.substr(at, end - at);
      auto names = [&](std::string_view word) {
        return analysis::forEachWholeWord(statement, word, [](size_t) { return true; });
      };
      if (names("jit") || names("_script") || names("_trace")) return true;
      for (std::string_view member : kMembers)
        if (names(member)) return true;
      return false;
    });
  }
  bool checksWithinRanges() const override { return true; }
  // Every reported call or decorator spells the entry point's name or the alias bound to it; an
  // alias is a name an import binds, so the ranges take every name imported from `torch.jit`.
  std::vector<std::pair<uint32_t, uint32_t>> checkRanges(const analysis::SemanticModel& model,
                                                         const Settings&) const override {
    std::vector<std::string_view> words(kMembers.begin(), kMembers.end());
    for (const analysis::Binding* b : model.imports())
      if (b->qualified_name.starts_with("torch.jit.")) words.push_back(b->name);
    return wordRangesWithin(analysis::codeOrText(model.file()), words,
                            {{0u, static_cast<uint32_t>(model.file().text().size())}});
  }

  void check(TSNode node, Context& ctx) const override {
    if (!versions::rangeIncludesFrom(ctx.settings(), versions::deprecatedIn(versions::kTorchscript))) return;
    TSNode target{};
    if (isKind(node, kind::decorator)) {
      // `@torch.jit.script` (bare); `@torch.jit.script(...)` is the call, seen as such.
      TSNode expr = ts_node_named_child(node, 0);
      if (ts_node_is_null(expr) || isKind(expr, kind::call)) return;
      target = expr;
    } else {
      target = fieldOf(node, "function");
    }
    if (!isKind(target, kind::attribute) && !isKind(target, kind::identifier)) return;
    // A chain ends in the function's own name; a bare name may be an alias (`trace as jit_trace`).
    if (isKind(target, kind::attribute) && !isMember(ctx.text(fieldOf(target, "attribute")))) return;
    auto q = ctx.model().qualifiedName(target);
    if (!q) return;
    const Entry* e = findEntry(*q);
    if (e == nullptr) return;
    Diagnostic& d = ctx.report(node, "`torch.jit." + std::string(lastOf(e->name)) + "` is deprecated; use " +
                                         std::string(e->replacement) + versions::judgedFor(ctx.settings()));
    d.help = "TorchScript is deprecated: PyTorch " + versions::deprecatedIn(versions::kTorchscript).str() +
             " issues a `FutureWarning`.";
  }

 private:
  static bool isMember(std::string_view last) {
    for (const Entry& e : kEntries)
      if (lastOf(e.name) == last) return true;
    return false;
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL112, TorchscriptDeprecated)

}  // namespace ptlint::rules
