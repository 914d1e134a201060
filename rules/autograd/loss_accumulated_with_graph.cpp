// PTL708 loss-accumulated-with-graph: `total += loss` across the iterations of a training loop,
// keeping every step's autograd graph reachable from `total`.
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/register.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules {
namespace {

using analysis::fieldOf;
using analysis::isKind;

constexpr RuleMeta kLossAccumulatedWithGraph{
    .code = "PTL708",
    .name = "loss-accumulated-with-graph",
    .summary = "A back-propagated loss summed across iterations without `.detach()` or `.item()`",
    .fix = FixAvailability::Always,
    .fix_applicability = quickfix::Applicability::Unsafe,
    .severity = Severity::Warning,
    .enabled_by_default = true,
    .since_torch = "1.0",
    .docs = R"md(
## What it does
Reports `total += loss`, `total += loss * n` (or `/ n`) and `total = total + loss` inside a
`for` or `while` loop when `loss` is a name the same function back-propagates
(`loss.backward()`, `(loss / k).backward()`, `scaler.scale(loss).backward()`,
`accelerator.backward(loss)`), `total` is not assigned anew inside the loop, and neither side is
detached: not when `loss` was bound to a `.item()`, `.detach()` or `float(...)`, not when
`total` is itself back-propagated (summing losses to call `backward()` once is the point then),
and not under `torch.no_grad()` or `torch.inference_mode()`.

## Why is this bad?
`loss` is the root of the step's autograd graph. `total += loss` makes `total` a tensor that
requires grad, whose `grad_fn` chains every step's addition to that step's graph, so nothing of
any step's graph is ever freed while `total` lives: memory grows with the number of iterations
and the loop ends in an out-of-memory error or slows down. PyTorch's FAQ ("My model reports
'cuda runtime error(2): out of memory'") shows exactly this loop: "`total_loss` is accumulating
history across your training loop, since `loss` is a differentiable variable with autograd
history."

## Example
```python
total_loss = 0
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    total_loss += loss
```

## Use instead
```python
    total_loss += loss.detach()
```

`loss.item()` or `float(loss)` work too, at the cost of a host synchronisation every step.

## Fix safety
The fix writes `loss.detach()`. It is unsafe: the accumulated value no longer requires grad,
which is the point, but code that later calls `backward()` through it would change.

## Releases
`Tensor.backward` / autograd graphs (`torch/_tensor.py`) in 1.13, 2.6 and 2.14: the premise holds
1.13–2.14.

## References
- [PyTorch FAQ: "My model reports cuda runtime error(2): out of memory"](https://docs.pytorch.org/docs/stable/notes/faq.html#my-model-reports-cuda-runtime-error-2-out-of-memory)
)md"};

// Per file: for each function (or the module) holding a backward call, the names its backward
// calls mention (`backpropagates` answered once per file instead of per assignment).
struct BackpropagatedNames {
  std::unordered_map<const void*, std::unordered_set<std::string>> by_scope;
};

const BackpropagatedNames& backpropagatedNames(const analysis::SemanticModel& model) {
  static const char kKey = 0;
  return model.perFileAnalysis<BackpropagatedNames>(&kKey, [&] {
    auto out = std::make_shared<BackpropagatedNames>();
    std::string_view source = model.file().text();
    TSNode root = model.file().root();
    analysis::forEachWholeWord(source, "backward", [&](size_t at) {
      TSNode node = ts_node_descendant_for_byte_range(root, static_cast<uint32_t>(at), static_cast<uint32_t>(at + 8));
      TSNode call = ts_node_parent(node);
      if (isKind(call, kind::attribute)) call = ts_node_parent(call);
      if (!isKind(call, kind::call) || methodName(call, source) != "backward") return false;
      auto& names = out->by_scope[enclosingFunctionOrModule(call).id];
      TSNode object = fieldOf(fieldOf(call, "function"), "object");
      auto args = positionalArguments(call);
      for (TSNode part : {object, args.empty() ? TSNode{} : args[0]}) {
        if (ts_node_is_null(part)) continue;
        analysis::walkTree(
            part,
            [&](TSNode n) {
              if (isKind(n, kind::identifier) || isKind(n, kind::attribute)) names.emplace(analysis::textOf(n, source));
              return true;
            },
            [](TSNode) {});
      }
      return false;
    });
    return out;
  });
}

bool isDetaching(TSNode value, std::string_view source) {
  std::string_view text = analysis::textOf(value, source);
  return text.find(".item()") != std::string_view::npos || text.find(".detach()") != std::string_view::npos ||
         text.find(".tolist()") != std::string_view::npos || text.starts_with("float(") || text.starts_with("int(");
}

// True when `target` is assigned (plainly) inside `loop` anywhere but `except`.
bool reassignedIn(TSNode loop, TSNode except, std::string_view target, std::string_view source) {
  bool found = false;
  analysis::walkTree(
      fieldOf(loop, "body"),
      [&](TSNode n) {
        if (found || isCodeBoundary(n)) return false;
        if (isKind(n, kind::assignment) && !analysis::sameNode(n, except) &&
            analysis::textOf(fieldOf(n, "left"), source) == target)
          found = true;
        return !found;
      },
      [](TSNode) {});
  return found;
}

// True when the name could be what `total += name`, `total += name * k` or
// `total = total + name` adds: some whole-word occurrence follows `+=`, or stands beside a `+` on
// a line `T = ...` whose right side spells `T` again (or a line without its own `=`, a statement
// continued from above). Spaces and parentheses are skipped. Errs towards true.
bool nextToPlus(std::string_view source, std::string_view name) {
  return analysis::forEachWholeWord(source, name, [&](size_t at) {
    size_t before = at;
    while (before > 0 && (source[before - 1] == ' ' || source[before - 1] == '(' || source[before - 1] == '\t')) --before;
    if (before > 1 && source[before - 1] == '=' && source[before - 2] == '+') return true;
    size_t after = at + name.size();
    while (after < source.size() && (source[after] == ' ' || source[after] == ')' || source[after] == '\t')) ++after;
    bool plus = (before > 0 && source[before - 1] == '+') ||
                (after < source.size() && source[after] == '+' && (after + 1 >= source.size() || source[after + 1] != '='));
    if (!plus) return false;
    size_t line = source.rfind('\n', at);
    line = line == std::string_view::npos ? 0 : line + 1;
    size_t line_end = source.find('\n', at);
    if (line_end == std::string_view::npos) line_end = source.size();
    std::string_view text = source.substr(line, line_end - line);
    // The first plain `=` (not `==`, `<=`, `>=`, `!=`, an augmented operator or a keyword's).
    size_t eq = std::string_view::npos;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '=') continue;
      char prev = i > 0 ? text[i - 1] : ' ', next = i + 1 < text.size() ? text[i + 1] : ' ';
      if (next == '=' || prev == '=' || prev == '<' || prev == '>' || prev == '!' || prev == '+' || prev == '-' ||
          prev == '*' || prev == '/' || prev == '%' || prev == '&' || prev == '|' || prev == '^' || prev == ':')
        continue;
      eq = i;
      break;
    }
    if (eq == std::string_view::npos) return true;  // continued from another line
    std::string_view target = text.substr(0, eq);
    while (!target.empty() && (target.front() == ' ' || target.front() == '\t')) target.remove_prefix(1);
    while (!target.empty() && (target.back() == ' ' || target.back() == '\t')) target.remove_suffix(1);
    if (target.empty()) return true;
    return text.substr(eq + 1).find(target) != std::string_view::npos;
  });
}

class LossAccumulatedWithGraph final : public Rule {
 public:
  const RuleMeta& meta() const override { return kLossAccumulatedWithGraph; }
  std::vector<analysis::NodeKind> nodeKinds() const override { return {kind::augmented_assignment, kind::assignment}; }
  // Every finding adds a name (`+`) in a function that calls `backward` (in code, not a docstring).
  // Before parsing, on the code: some identifier of a `backward` call's line (through its
  // closing parenthesis) stands next to a `+` somewhere.
  // Some name back-propagated (`x.backward()`, `backward(x)`) stands next to a `+` somewhere.
  Prefilter prefilter() const override { return {.words = {"backward"}, .whole_words = true}; }
  bool mayReport(const PrefilterInput& input, const Settings&) const override {
    if (input.parsed != nullptr) {
      const analysis::ParsedFile& file = *input.parsed;
      std::string_view source = file.text();
      TSNode root = file.root();
      // One answer per name: the same few names (`loss`, `scaler`) stand in every backward call.
      std::unordered_map<std::string_view, bool> added_by_name;
      auto nameNextToPlus = [&](std::string_view name) {
        auto [it, fresh] = added_by_name.try_emplace(name, false);
        if (fresh) it->second = nextToPlus(source, name);
        return it->second;
      };
      return analysis::forEachWholeWord(source, "backward", [&](size_t at) {
        TSNode node = ts_node_descendant_for_byte_range(root, static_cast<uint32_t>(at), static_cast<uint32_t>(at + 8));
        if (!isKind(node, kind::identifier)) return false;
        TSNode callee = node, call = ts_node_parent(node);
        if (isKind(call, kind::attribute)) {
          callee = call;
          call = ts_node_parent(call);
        }
        if (!isKind(call, kind::call) || !analysis::sameNode(fieldOf(call, "function"), callee)) return false;
        bool added = false;
        analysis::walkTree(
            call,
            [&](TSNode n) {
              if (added) return false;
              if (isKind(n, kind::identifier) && !analysis::sameNode(n, node) &&
                  nameNextToPlus(analysis::textOf(n, source)))
                added = true;
              return !added;
            },
            [](TSNode) {});
        return added;
      });
    }
    const analysis::PrefilterText& source = input.source;
    const std::string* view = source.code();
    if (view == nullptr) return true;
    std::string_view code = *view;
    if (code.find('+') == std::string_view::npos) return false;
    std::unordered_set<std::string_view> not_added;  // names already found beside no `+`
    return analysis::forEachWholeWord(code, "backward", [&](size_t at) {
      // From the line where the receiver starts: `scaler.scale(\n loss\n).backward()`.
      size_t start = at;
      while (start > 0 && (code[start - 1] == '.' || code[start - 1] == ' ' || code[start - 1] == '\n')) --start;
      for (int depth = 0; start > 0;) {
        char c = code[start - 1];
        if (c == ')' || c == ']') ++depth;
        else if (c == '(' || c == '[') --depth;
        else if (c == '\n' && depth <= 0) break;
        --start;
        if (depth < 0) depth = 0;
      }
      std::string_view args = callArgumentsAt(code, at, 8);
      size_t end = args.data() == nullptr ? at + 8 : static_cast<size_t>(args.data() - code.data()) + args.size();
      for (size_t i = start; i < end;) {
        if (!analysis::isIdentifierByte(code[i]) || (i > 0 && analysis::isIdentifierByte(code[i - 1]))) {
          ++i;
          continue;
        }
        size_t j = i;
        while (j < code.size() && analysis::isIdentifierByte(code[j])) ++j;
        std::string_view name = code.substr(i, j - i);
        if (name != "backward" && !(name[0] >= '0' && name[0] <= '9') && !not_added.count(name)) {
          if (nextToPlus(code, name)) return true;
          not_added.insert(name);
        }
        i = j;
      }
      return false;
    });
  }

  void check(TSNode node, Context& ctx) const override {
    std::string_view source = ctx.source();
    TSNode target = fieldOf(node, "left");
    if (!isKind(target, kind::identifier) && !isKind(target, kind::attribute)) return;
    std::string_view total = ctx.text(target);
    TSNode added{};
    if (isKind(node, kind::augmented_assignment)) {
      if (ctx.text(fieldOf(node, "operator")) != "+=") return;
      added = fieldOf(node, "right");
    } else {
      TSNode sum = analysis::unparenthesize(fieldOf(node, "right"));
      if (!isKind(sum, kind::binary_operator) || ctx.text(fieldOf(sum, "operator")) != "+") return;
      if (ctx.text(fieldOf(sum, "left")) == total) added = fieldOf(sum, "right");
      else if (ctx.text(fieldOf(sum, "right")) == total) added = fieldOf(sum, "left");
      else return;
    }
    added = analysis::unparenthesize(added);
    TSNode loss = added;
    if (isKind(added, kind::binary_operator)) {
      std::string_view op = ctx.text(fieldOf(added, "operator"));
      if (op != "*" && op != "/") return;
      loss = analysis::unparenthesize(fieldOf(added, "left"));
    }
    if (!isKind(loss, kind::identifier)) return;
    std::string_view name = ctx.text(loss);
    if (name == total) return;

    TSNode loop{};
    for (TSNode up = ts_node_parent(node); !ts_node_is_null(up) && !isCodeBoundary(up); up = ts_node_parent(up))
      if (isKind(up, kind::for_statement) || isKind(up, kind::while_statement)) {
        loop = up;
        break;
      }
    if (ts_node_is_null(loop)) return;
    TSNode scope = enclosingFunctionOrModule(node);
    const auto& backpropagated = backpropagatedNames(ctx.model()).by_scope;
    auto names = backpropagated.find(scope.id);
    if (names == backpropagated.end() || !names->second.contains(std::string(name)) ||
        names->second.contains(std::string(total)))
      return;
    if (reassignedIn(loop, node, total, source)) return;
    const auto& model = ctx.model();
    const analysis::Binding* binding = model.resolve(name, loss);
    if (binding == nullptr) return;
    if (binding->kind == analysis::BindingKind::Assignment && isDetaching(binding->value, source)) return;
    for (TSNode item : enclosingWithItems(node)) {
      TSNode call = analysis::unparenthesize(item);
      if (!isKind(call, kind::call)) continue;
      auto callee = model.calleeName(call);
      if (callee && (*callee == "torch.no_grad" || *callee == "torch.autograd.grad_mode.no_grad" ||
                     *callee == "torch.inference_mode" || *callee == "torch.autograd.grad_mode.inference_mode"))
        return;
    }

    Diagnostic& d = ctx.report(
        loss, fmt::format("`{}` added to `{}` keeps every step's graph alive; add `{}.detach()` (or `.item()`)",
                          name, total, name));
    d.fix = quickfix::Fix{quickfix::Applicability::Unsafe, fmt::format("Accumulate `{}.detach()`", name),
                          {{analysis::endOf(loss), analysis::endOf(loss), ".detach()"}}};
  }
};

}  // namespace

PTLINT_REGISTER_RULE(PTL708, LossAccumulatedWithGraph)

}  // namespace ptlint::rules
