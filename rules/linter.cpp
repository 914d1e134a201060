#include "rules/linter.h"

#include <algorithm>
#include <memory>

#include "analysis/noqa.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "rules/noqa/unused_noqa.h"
#include "rules/registry.h"

namespace ptlint::rules {

std::string_view severityName(Severity severity) {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Information: return "info";
    case Severity::Hint: return "hint";
  }
  return "warning";
}

Diagnostic& Context::report(uint32_t start, uint32_t end, std::string message) {
  Diagnostic d;
  d.code = rule_->meta().code;
  d.severity = rule_->meta().severity;
  d.message = std::move(message);
  d.start = start;
  d.end = std::max(start, end);
  out_.push_back(std::move(d));
  return out_.back();
}

namespace {

std::vector<const Rule*> enabledRules(const Settings& settings) {
  std::vector<const Rule*> rules;
  for (const Rule* rule : allRules())
    if (settings.isEnabled(rule->meta().code, rule->meta().enabled_by_default)) rules.push_back(rule);
  return rules;
}

// Does `word` occur in `text` (as a whole identifier when `whole_word`)?
bool containsTrigger(std::string_view text, std::string_view word, bool whole_word) {
  if (!whole_word) return analysis::findBytes(text, word) != std::string_view::npos;
  return analysis::forEachWholeWord(text, word, [](size_t) { return true; });
}

// Trigger words already looked up in one text: several rules share words (`DataLoader`,
// `compile`), and each is searched for once.
class TriggerMemo {
 public:
  explicit TriggerMemo(std::string_view text) : text_(text) {}
  std::string_view text() const { return text_; }
  bool contains(std::string_view word, bool whole_word) {
    for (const auto& seen : seen_)
      if (seen.word == word && seen.whole_word == whole_word) return seen.found;
    bool found = containsTrigger(text_, word, whole_word);
    seen_.push_back({word, whole_word, found});
    return found;
  }

 private:
  struct Seen {
    std::string_view word;
    bool whole_word;
    bool found;
  };
  std::string_view text_;
  std::vector<Seen> seen_;
};

// False when none of the rule's trigger words occurs in the text: by the contract of
// `Rule::triggers()` it cannot report there, so it need not run (nor walk the tree).
bool mayMatch(const Rule& rule, TriggerMemo& memo, const Settings& settings) {
  for (std::string_view word : rule.requiredWords())
    if (!memo.contains(word, false)) return false;
  auto triggers = rule.triggersFor(settings);
  if (triggers.empty()) return rule.mayMatchText(memo.text(), settings);
  for (std::string_view word : triggers)
    if (memo.contains(word, rule.triggersAreWholeWords())) return rule.mayMatchText(memo.text(), settings);
  return false;
}

}  // namespace

std::vector<const Rule*> rulesThatMayMatch(std::string_view text, const Settings& settings) {
  std::vector<const Rule*> rules = enabledRules(settings);
  TriggerMemo memo(text);
  std::erase_if(rules, [&](const Rule* rule) { return !mayMatch(*rule, memo, settings); });
  return rules;
}

namespace {

// The linter's own codes need no trigger: PTL000 reports any file that does not parse, and
// PTL001 looks at every `noqa: PTL...` comment, findings or not.
bool linterMayReport(std::string_view text, const Settings& settings) {
  if (settings.isEnabled(syntaxErrorMeta().code, syntaxErrorMeta().enabled_by_default)) return true;
  return settings.isEnabled(unusedNoqaMeta().code, unusedNoqaMeta().enabled_by_default) &&
         analysis::findBytes(text, "PTL") != std::string_view::npos;
}

// Byte ranges sorted by start, with the running maximum of their ends: does any overlap a node?
class RangeSet {
 public:
  explicit RangeSet(std::vector<std::pair<uint32_t, uint32_t>> ranges) : ranges_(std::move(ranges)) {
    std::sort(ranges_.begin(), ranges_.end());
    uint32_t max_end = 0;
    for (const auto& range : ranges_) max_end_.push_back(max_end = std::max(max_end, range.second));
  }
  bool overlaps(uint32_t start, uint32_t end) const {
    // The ranges that start before `end`; one of them overlaps when the furthest end passes `start`.
    auto before = std::lower_bound(ranges_.begin(), ranges_.end(), end,
                                   [](const auto& range, uint32_t at) { return range.first < at; });
    size_t count = static_cast<size_t>(before - ranges_.begin());
    return count > 0 && max_end_[count - 1] > start;
  }
  const std::vector<std::pair<uint32_t, uint32_t>>& ranges() const { return ranges_; }

 private:
  std::vector<std::pair<uint32_t, uint32_t>> ranges_;
  std::vector<uint32_t> max_end_;
};

// The nodes to check when every rule says where it looks: the module for the rules that asked
// for it, then, in tree order, each node of a wanted kind that overlaps the ranges of a rule that
// asked for its kind. Only the subtrees overlapping some rule's ranges are entered.
void collectInRanges(const analysis::ParsedFile& file, const analysis::SemanticModel& model, const Settings& settings,
                     const std::vector<const Rule*>& rules, const std::vector<std::vector<const Rule*>>& by_symbol,
                     std::vector<std::pair<TSNode, const Rule*>>& wanted) {
  std::vector<std::pair<const Rule*, RangeSet>> per_rule;
  std::vector<std::pair<uint32_t, uint32_t>> all;
  for (const Rule* rule : rules) {
    if (!rule->checksWithinRanges()) continue;
    RangeSet set(rule->checkRanges(model, settings));
    all.insert(all.end(), set.ranges().begin(), set.ranges().end());
    per_rule.emplace_back(rule, std::move(set));
  }
  RangeSet any(std::move(all));
  auto rangesOf = [&](const Rule* rule) -> const RangeSet* {
    for (const auto& [r, set] : per_rule)
      if (r == rule) return &set;
    return nullptr;
  };
  TSNode root = file.root();
  TSSymbol module_symbol = ts_node_symbol(root);
  analysis::walkTree(
      root,
      [&](TSNode node) {
        uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
        bool is_root = analysis::sameNode(node, root);
        if (!is_root && !any.overlaps(start, end)) return false;
        TSSymbol symbol = ts_node_symbol(node);
        if (symbol >= by_symbol.size()) return true;
        for (const Rule* rule : by_symbol[symbol]) {
          if (is_root && symbol == module_symbol) {
            wanted.emplace_back(node, rule);
            continue;
          }
          const RangeSet* set = rangesOf(rule);
          if (set == nullptr || set->overlaps(start, end)) wanted.emplace_back(node, rule);
        }
        return true;
      },
      [](TSNode) {});
}

}  // namespace

bool cannotMatch(std::string_view text, const Settings& settings, const std::vector<const Rule*>& candidates) {
  return !linterMayReport(text, settings) && candidates.empty();
}

bool cannotMatch(std::string_view text, const Settings& settings) {
  if (linterMayReport(text, settings)) return false;
  TriggerMemo memo(text);
  for (const Rule* rule : enabledRules(settings))
    if (mayMatch(*rule, memo, settings)) return false;
  return true;
}

bool asksProject(std::string_view text, const Settings& settings) {
  for (const Rule* rule : enabledRules(settings))
    if (rule->asksProject(text, settings)) return true;
  return false;
}

LintResult lintFile(const analysis::ParsedFile& file, const Settings& settings) {
  return lintFile(file, settings, rulesThatMayMatch(file.text(), settings));
}

LintResult lintFile(const analysis::ParsedFile& file, const Settings& settings, std::vector<const Rule*> candidates) {
  LintResult result;
  result.has_syntax_errors = file.hasSyntaxErrors();
  std::vector<const Rule*> rules = std::move(candidates);
  std::erase_if(rules, [&](const Rule* rule) { return !rule->mayReportIn(file, settings); });

  if (result.has_syntax_errors && settings.isEnabled(syntaxErrorMeta().code, syntaxErrorMeta().enabled_by_default)) {
    const auto& error = file.syntaxErrors().front();
    Diagnostic d;
    d.code = syntaxErrorMeta().code;
    d.severity = syntaxErrorMeta().severity;
    d.message = "SyntaxError: " + error.message;
    d.start = error.start;
    d.end = error.end;
    result.diagnostics.push_back(std::move(d));
  }

  if (!rules.empty()) {
    // Dispatch table: node symbol -> rules that asked for that kind (a flat table: the walk
    // looks up every node).
    const TSLanguage* language = analysis::pythonLanguage();
    std::vector<std::vector<const Rule*>> by_symbol(ts_language_symbol_count(language));
    for (const Rule* rule : rules) {
      for (std::string_view kind : rule->nodeKinds()) {
        TSSymbol symbol = ts_language_symbol_for_name(language, kind.data(), static_cast<uint32_t>(kind.size()), true);
        if (symbol != 0 && symbol < by_symbol.size()) by_symbol[symbol].push_back(rule);
      }
    }
    // Rules that asked only for the module node (they walk in their own way) need no walk here;
    // otherwise the nodes they asked for are collected during the semantic model's walk.
    TSSymbol module_symbol = ts_node_symbol(file.root());
    bool only_module = std::all_of(by_symbol.begin(), by_symbol.end(), [&](const auto& list) {
      return list.empty() || (&list - by_symbol.data()) == module_symbol;
    });
    // Rules that say where they look (`Rule::checkRanges`) let the walk skip the rest of the tree;
    // otherwise the nodes they asked for are collected during the semantic model's walk.
    bool ranged = !only_module && std::all_of(rules.begin(), rules.end(), [&](const Rule* rule) {
      if (rule->checksWithinRanges()) return true;
      auto kinds = rule->nodeKinds();
      return std::all_of(kinds.begin(), kinds.end(), [](std::string_view kind) { return kind == "module"; });
    });
    std::vector<std::pair<TSNode, const Rule*>> wanted;  // in tree order
    std::unique_ptr<analysis::SemanticModel> model;
    if (only_module || ranged) {
      model = std::make_unique<analysis::SemanticModel>(file);
    } else {
      model = std::make_unique<analysis::SemanticModel>(file, [&](TSNode node) {
        TSSymbol symbol = ts_node_symbol(node);
        if (symbol < by_symbol.size())
          for (const Rule* rule : by_symbol[symbol]) wanted.emplace_back(node, rule);
      });
    }
    if (only_module) {
      for (const Rule* rule : by_symbol[module_symbol]) wanted.emplace_back(file.root(), rule);
    } else if (ranged) {
      collectInRanges(file, *model, settings, rules, by_symbol, wanted);
    }
    Context ctx(file, *model, settings, *rules.front(), result.diagnostics);
    // Every rule's checks, in tree order, after the model is complete.
    for (const auto& [node, rule] : wanted) {
      ctx.setRule(*rule);
      rule->check(node, ctx);
    }
  }

  // Suppressions, then a stable order.
  analysis::NoqaIndex noqa = analysis::NoqaIndex::build(file);
  if (settings.isEnabled(unusedNoqaMeta().code, unusedNoqaMeta().enabled_by_default)) {
    std::vector<Diagnostic> unused;
    reportUnusedNoqa(file, settings, noqa, result.diagnostics, unused);
    for (auto& d : unused) result.diagnostics.push_back(std::move(d));
  }
  std::erase_if(result.diagnostics, [&](const Diagnostic& d) {
    return noqa.suppresses(d.code, file.lines().lineOf(d.start));
  });
  // Fixes are never offered on a file with syntax errors.
  if (result.has_syntax_errors)
    for (auto& d : result.diagnostics) d.fix.reset();
  for (auto& d : result.diagnostics)
    if (d.fix) d.fix->sortEdits();
  std::stable_sort(result.diagnostics.begin(), result.diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.start != b.start) return a.start < b.start;
    return a.code < b.code;
  });
  return result;
}

}  // namespace ptlint::rules
