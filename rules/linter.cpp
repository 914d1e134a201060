#include "rules/linter.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <unordered_map>

#include "analysis/instrumentation.h"
#include "analysis/module_summary.h"
#include "analysis/noqa.h"
#include "analysis/syntax.h"
#include "analysis/text_search.h"
#include "analysis/value_flow.h"
#include "rules/common/blocks.h"
#include "rules/compile/runtime_report.h"
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

// Every rule's declared prefilter (`Rule::prefilter()`), read once.
struct Declared {
  const Rule* rule = nullptr;
  Prefilter pre;
};
const std::vector<Declared>& declarations() {
  static const std::vector<Declared> table = [] {
    std::vector<Declared> out;
    for (const Rule* rule : allRules()) out.push_back({rule, rule->prefilter()});
    return out;
  }();
  return table;
}

std::vector<const Declared*> enabledRules(const Settings& settings) {
  std::vector<const Declared*> rules;
  for (const Declared& d : declarations())
    if (settings.isEnabled(d.rule->meta().code, settings.onByDefault(d.rule->meta().code, d.rule->meta().enabled_by_default)))
      rules.push_back(&d);
  return rules;
}

// The prefilters of a selection of rules: every word they look for on the bytes, in one
// automaton (`analysis::WordSet`), and which of those words each rule needs. Built once per
// distinct selection and word list (settings can add words: PTL501's `compile-decorators`), then
// shared.
struct Plan {
  struct RuleWords {
    const Rule* rule = nullptr;
    const Prefilter* pre = nullptr;  // the rule's declaration (in declarations())
    std::vector<uint32_t> triggers;  // one must occur; none listed: no word test
    std::vector<std::vector<uint32_t>> also;  // each group: one must occur (as a substring)
    std::vector<uint32_t> absent;             // none may occur
    std::vector<std::string_view> words;      // the triggers' words (in `Plan::words`)
  };
  std::vector<RuleWords> rules;
  std::unique_ptr<analysis::WordSet> words;
  // The rules' project words (`Prefilter::project_words`), for asksProject; null when no rule has any.
  std::unique_ptr<analysis::WordSet> project_words;

  const RuleWords* find(const Rule* rule) const {
    for (const auto& r : rules)
      if (r.rule == rule) return &r;
    return nullptr;
  }
};

// The cache key: the selected rules, with the words of those whose words depend on the settings
// (the others' words are fixed; every file asks, so the key stays short).
std::string planKey(const std::vector<const Declared*>& rules, const Settings& settings) {
  std::string key;
  for (const Declared* d : rules) {
    key += d->rule->meta().code;
    key += '\x01';
    if (!d->pre.wordsDependOnSettings()) continue;
    for (std::string_view word : d->pre.wordsFor(settings)) {
      key += word;
      key += '\0';
    }
    key += '\x02';
  }
  return key;
}

std::shared_ptr<const Plan> buildPlan(const std::vector<const Declared*>& rules, const Settings& settings) {
  auto plan = std::make_shared<Plan>();
  std::vector<std::string_view> words;
  auto idOf = [&](std::string_view word) {
    auto it = std::find(words.begin(), words.end(), word);
    if (it != words.end()) return static_cast<uint32_t>(it - words.begin());
    words.push_back(word);
    return static_cast<uint32_t>(words.size() - 1);
  };
  for (const Declared* d : rules) {
    Plan::RuleWords r;
    r.rule = d->rule;
    r.pre = &d->pre;
    for (std::string_view word : d->pre.wordsFor(settings)) r.triggers.push_back(idOf(word));
    for (const auto& group : d->pre.also) {
      r.also.emplace_back();
      for (std::string_view word : group) r.also.back().push_back(idOf(word));
    }
    for (std::string_view word : d->pre.absent) r.absent.push_back(idOf(word));
    plan->rules.push_back(std::move(r));
  }
  plan->words = std::make_unique<analysis::WordSet>(words);  // copies the words
  for (auto& r : plan->rules)
    for (uint32_t id : r.triggers) r.words.push_back(plan->words->word(id));
  std::vector<std::string_view> project_words;
  for (const Declared* d : rules)
    for (std::string_view word : d->pre.project_words) project_words.push_back(word);
  // Value flow follows a call of an imported function into the project's other files
  // (analysis/value_flow.h): any rule asking it about a file that imports needs the project.
  if (!rules.empty()) project_words.push_back("import");
  if (!project_words.empty()) plan->project_words = std::make_unique<analysis::WordSet>(project_words);
  return plan;
}

// The plan for this selection, from a small cache (a check or a server session sees one or a
// few distinct selections).
std::shared_ptr<const Plan> planFor(const Settings& settings) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::shared_ptr<const Plan>> cache;
  std::vector<const Declared*> rules = enabledRules(settings);
  std::string key = planKey(rules, settings);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  auto plan = buildPlan(rules, settings);
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= 64) cache.clear();
  return cache.emplace(std::move(key), std::move(plan)).first->second;
}

// The torch range's conditions (Prefilter::floor_at_least, range_reaches).
bool torchMayMatch(const Prefilter& pre, const Settings& settings) {
  if (!pre.floor_at_least && !pre.range_reaches) return true;
  TorchRange range = settings.torchRange();
  if (pre.floor_at_least && !range.allAtLeast(*pre.floor_at_least)) return false;
  return !pre.range_reaches || range.includesAny(*pre.range_reaches);
}

// False when a word the rule needs is absent from the text, or one it cannot bear present: by
// the contract of `Rule::prefilter()` the rule cannot report there, so it need not run.
bool wordsMayMatch(const Plan::RuleWords& r, const analysis::WordSet::Found& found) {
  for (uint32_t id : r.absent)
    if (found.substring(id)) return false;
  for (const auto& group : r.also)
    if (std::none_of(group.begin(), group.end(), [&](uint32_t id) { return found.substring(id); })) return false;
  if (r.triggers.empty()) return true;
  bool whole = r.pre->whole_words;
  for (uint32_t id : r.triggers)
    if (whole ? found.wholeWord(id) : found.substring(id)) return true;
  return false;
}

// The conditions on the code view, then the rule's own test on the bytes.
bool codeMayMatch(const Plan::RuleWords& r, const analysis::PrefilterText& source, const Settings& settings) {
  const Prefilter& pre = *r.pre;
  if (pre.words_in_code && !source.codeNamesAny(r.words)) return false;
  for (const auto& group : pre.code_names)
    if (!source.codeNamesAny(group)) return false;
  for (const auto& group : pre.code_calls)
    if (std::none_of(group.begin(), group.end(),
                     [&](const CallWord& c) { return codeCalls(source, c.word, c.method, c.no_arguments); }))
      return false;
  return r.rule->mayReport(PrefilterInput{source, nullptr}, settings);
}

// The conditions on the tree, then the rule's own test on it.
bool treeMayMatch(const Plan::RuleWords& r, const analysis::PrefilterText& source, const analysis::ParsedFile& file,
                  const Settings& settings) {
  const Prefilter& pre = *r.pre;
  for (const auto& group : pre.tree_names)
    if (std::none_of(group.begin(), group.end(), [&](std::string_view w) { return namesIdentifier(file, w); }))
      return false;
  for (const auto& group : pre.tree_calls)
    if (std::none_of(group.begin(), group.end(), [&](std::string_view w) { return callsNamed(file, w); })) return false;
  return r.rule->mayReport(PrefilterInput{source, &file}, settings);
}

// rulesThatMayMatch under PTLINT_TIMINGS: what each rule's words and shape test let through,
// the time the shape test takes, and the files that only one rule lets through.
std::vector<const Rule*> rulesThatMayMatchTimed(const Plan& plan, const analysis::WordSet::Found& found,
                                                const analysis::PrefilterText& source, const Settings& settings) {
  std::vector<const Rule*> rules;
  uint64_t bytes = source.text().size();
  for (const auto& r : plan.rules) {
    if (!wordsMayMatch(r, found) || !torchMayMatch(*r.pre, settings)) continue;
    std::string code(r.rule->meta().code);
    analysis::timings::add(code + " 1 words", bytes);
    uint64_t start = analysis::timings::nowNs();
    bool may = codeMayMatch(r, source, settings);
    analysis::timings::add(code + " 2 shape test", may ? bytes : 0, analysis::timings::nowNs() - start);
    if (may) rules.push_back(r.rule);
  }
  if (rules.size() == 1) analysis::timings::add(std::string(rules.front()->meta().code) + " 3 sole", bytes);
  if (!rules.empty()) {
    std::string key = "let through by";
    for (const Rule* rule : rules) key += " " + std::string(rule->meta().code);
    analysis::timings::add(key, bytes);
  }
  return rules;
}

}  // namespace

Prefilter::Words Prefilter::wordsFor(const Settings& settings) const {
  if (!words_in_project.empty() && settings.project != nullptr && !settings.project->empty()) return words_in_project;
  if (words_since && settings.torch_version.atLeast(*words_since)) return words_since_words;
  Words out = words;
  if (plus_compile_decorators)
    for (const std::string& decorator : settings.compile_decorators) {
      std::string_view name = decorator;
      if (size_t dot = name.rfind('.'); dot != std::string_view::npos) name = name.substr(dot + 1);
      if (!name.empty()) out.push_back(name);
    }
  return out;
}

std::vector<const Rule*> rulesThatMayMatch(std::string_view text, const Settings& settings) {
  analysis::PrefilterText source(text);
  return rulesThatMayMatch(source, settings);
}

std::vector<const Rule*> rulesThatMayMatch(const analysis::ParsedFile& file, const Settings& settings) {
  analysis::PrefilterText source(file);
  return rulesThatMayMatch(source, settings);
}

namespace {

// The code tests (codeMayMatch) of the rules the words let through, shared by the threads of a
// concurrent lint: the one that runs rulesThatMayMatch opens them, and the one that built the
// semantic model takes the tests left when it is done. The code view is made before they open
// (the tests only read it then).
class SharedCodeTests {
 public:
  // The first thread's part: opens the tests, takes them in turn, waits for those the other took.
  std::vector<char> run(std::vector<const Plan::RuleWords*> tests, const analysis::PrefilterText& source,
                        const Settings& settings) {
    tests_ = std::move(tests);
    source_ = &source;
    settings_ = &settings;
    passed_.assign(tests_.size(), 0);
    (void)source.code();
    open_.store(true, std::memory_order_release);
    help();
    for (size_t done; (done = finished_.load(std::memory_order_acquire)) < tests_.size();)
      finished_.wait(done, std::memory_order_acquire);
    return std::move(passed_);
  }
  // The other thread's part: the tests nobody has taken yet, if they are open.
  void help() {
    if (!open_.load(std::memory_order_acquire)) return;
    for (size_t i; (i = next_.fetch_add(1)) < tests_.size();) {
      passed_[i] = codeMayMatch(*tests_[i], *source_, *settings_) ? 1 : 0;
      finished_.fetch_add(1, std::memory_order_acq_rel);
      finished_.notify_one();
    }
  }

 private:
  std::vector<const Plan::RuleWords*> tests_;
  const analysis::PrefilterText* source_ = nullptr;
  const Settings* settings_ = nullptr;
  std::vector<char> passed_;
  std::atomic<bool> open_{false};
  std::atomic<size_t> next_{0}, finished_{0};
};

std::vector<const Rule*> rulesThatMayMatch(const analysis::PrefilterText& source, const Settings& settings,
                                           SharedCodeTests* shared) {
  std::shared_ptr<const Plan> plan = planFor(settings);
  std::vector<const Rule*> rules;
  if (analysis::prefiltersDisabled()) {
    for (const auto& r : plan->rules) rules.push_back(r.rule);
    return rules;
  }
  analysis::WordSet::Found found = plan->words->scan(source.text());
  if (analysis::timings::enabled()) return rulesThatMayMatchTimed(*plan, found, source, settings);
  if (shared == nullptr) {
    for (const auto& r : plan->rules)
      if (wordsMayMatch(r, found) && torchMayMatch(*r.pre, settings) && codeMayMatch(r, source, settings))
        rules.push_back(r.rule);
    return rules;
  }
  std::vector<const Plan::RuleWords*> tests;
  for (const auto& r : plan->rules)
    if (wordsMayMatch(r, found) && torchMayMatch(*r.pre, settings)) tests.push_back(&r);
  std::vector<char> passed = shared->run(tests, source, settings);
  for (size_t i = 0; i < tests.size(); ++i)
    if (passed[i]) rules.push_back(tests[i]->rule);
  return rules;
}

}  // namespace

std::vector<const Rule*> rulesThatMayMatch(const analysis::PrefilterText& source, const Settings& settings) {
  return rulesThatMayMatch(source, settings, nullptr);
}

namespace {

// The linter's own codes need no trigger: PTL000 reports any file that does not parse, and
// PTL001 looks at every `noqa: PTL...` comment, findings or not.
bool linterMayReport(std::string_view text, const Settings& settings) {
  if (settings.isEnabled(syntaxErrorMeta().code, syntaxErrorMeta().enabled_by_default)) return true;
  return settings.isEnabled(unusedNoqaMeta().code, unusedNoqaMeta().enabled_by_default) &&
         analysis::findBytes(text, "PTL") != std::string_view::npos;
}

// `work` on a thread of its own; an empty future when no thread can be had (the caller then does
// the work itself: a thread limit slows a lint down, it never fails one).
template <typename Work>
auto onAnotherThread(Work&& work) -> std::future<decltype(work())> {
  try {
    return std::async(std::launch::async, std::forward<Work>(work));
  } catch (const std::system_error&) {
    return {};
  }
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
                     std::vector<std::pair<TSNode, const Rule*>>& wanted, bool concurrent) {
  std::vector<const Rule*> ranged;
  for (const Rule* rule : rules)
    if (rule->checksWithinRanges()) ranged.push_back(rule);
  // Each rule's ranges; concurrently, two threads take the rules in turn (the model and the
  // per-file analyses are thread-safe).
  std::vector<std::optional<RangeSet>> sets(ranged.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < ranged.size();) sets[i].emplace(ranged[i]->checkRanges(model, settings));
  };
  std::future<void> helper;
  if (concurrent && ranged.size() > 1) helper = onAnotherThread(work);
  work();
  if (helper.valid()) helper.get();
  std::vector<std::pair<const Rule*, RangeSet>> per_rule;
  std::vector<std::pair<uint32_t, uint32_t>> all;
  for (size_t i = 0; i < ranged.size(); ++i) {
    all.insert(all.end(), sets[i]->ranges().begin(), sets[i]->ranges().end());
    per_rule.emplace_back(ranged[i], std::move(*sets[i]));
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
  return !linterMayReport(text, settings) && rulesThatMayMatch(text, settings).empty();
}

bool asksProject(std::string_view text, const Settings& settings) {
  // The enabled rules' project words, in the selection's prefilter (one automaton per selection).
  if (analysis::prefiltersDisabled()) return true;
  std::shared_ptr<const Plan> plan = planFor(settings);
  const analysis::WordSet* set = plan->project_words.get();
  if (set == nullptr) return false;
  bool found = false;
  set->forEachMatch(text, [&](size_t id, size_t at) { return found = analysis::isWholeWordAt(text, at, set->word(id).size()); });
  return found;
}

namespace {

// The checks under PTLINT_TIMINGS: the files each rule runs on and the time its checks take.
void checkTimed(const std::vector<std::pair<TSNode, const Rule*>>& wanted, Context& ctx,
                const std::vector<const Rule*>& rules, uint64_t bytes) {
  std::unordered_map<const Rule*, uint64_t> ns;
  for (const auto& [node, rule] : wanted) {
    ctx.setRule(*rule);
    uint64_t start = analysis::timings::nowNs();
    rule->check(node, ctx);
    ns[rule] += analysis::timings::nowNs() - start;
  }
  for (const Rule* rule : rules) analysis::timings::add(std::string(rule->meta().code) + " 4 runs, check", bytes, ns[rule]);
}

// Both lintFile and lintFileConcurrently. `candidates`: rulesThatMayMatch's answer when the
// caller has it. Concurrently, a second thread builds the semantic model (a speculative one: it
// is thrown away when no rule remains or the rules need the visitor's walk) while this one runs
// the byte-level tests, then the noqa index while this one collects and checks.
LintResult lint(const analysis::ParsedFile& file, const Settings& settings,
                std::optional<std::vector<const Rule*>> candidates, bool concurrent) {
  LintResult result;
  result.has_syntax_errors = file.hasSyntaxErrors();
  SharedCodeTests shared;  // outlives the other thread's work (its future joins first)
  std::future<std::unique_ptr<analysis::SemanticModel>> early_model;
  if (concurrent)
    early_model = onAnotherThread([&file, &shared] {
      auto model = std::make_unique<analysis::SemanticModel>(file);
      shared.help();
      return model;
    });
  std::vector<const Rule*> rules;
  if (candidates) {
    rules = std::move(*candidates);
  } else {
    analysis::PrefilterText source(file);
    rules = rulesThatMayMatch(source, settings, early_model.valid() ? &shared : nullptr);
  }
  const bool unfiltered = analysis::prefiltersDisabled();
  if (!unfiltered && !rules.empty()) {
    // The prefilters' conditions on the tree (`Prefilter::tree_names`, ..., `Rule::mayReport`).
    std::shared_ptr<const Plan> plan = planFor(settings);
    analysis::PrefilterText source(file);
    std::erase_if(rules, [&](const Rule* rule) {
      const Plan::RuleWords* r = plan->find(rule);
      return r != nullptr && !treeMayMatch(*r, source, file, settings);
    });
  }
  // With rules left, the noqa index is built meanwhile; without, this thread builds it while the
  // unneeded model finishes (its future joins when this returns).
  std::future<analysis::NoqaIndex> early_noqa;
  if (concurrent && !rules.empty()) early_noqa = onAnotherThread([&file] { return analysis::NoqaIndex::build(file); });

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
      for (analysis::NodeKind kind : rule->nodeKinds()) {
        TSSymbol symbol = ts_language_symbol_for_name(language, kind.name().data(), static_cast<uint32_t>(kind.name().size()), true);
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
    bool ranged = !only_module && !unfiltered && std::all_of(rules.begin(), rules.end(), [&](const Rule* rule) {
      if (rule->checksWithinRanges()) return true;
      auto kinds = rule->nodeKinds();
      return std::all_of(kinds.begin(), kinds.end(), [](analysis::NodeKind kind) { return kind == kind::module; });
    });
    std::vector<std::pair<TSNode, const Rule*>> wanted;  // in tree order
    uint64_t model_start = analysis::timings::enabled() ? analysis::timings::nowNs() : 0;
    std::unique_ptr<analysis::SemanticModel> model;
    if (only_module || ranged) {
      model = early_model.valid() ? early_model.get() : std::make_unique<analysis::SemanticModel>(file);
    } else {  // the speculative model is not waited for (its future joins when this returns)
      model = std::make_unique<analysis::SemanticModel>(file, [&](TSNode node) {
        TSSymbol symbol = ts_node_symbol(node);
        if (symbol < by_symbol.size())
          for (const Rule* rule : by_symbol[symbol]) wanted.emplace_back(node, rule);
      });
    }
    // Value flow follows calls into the project's other files (before any rule asks).
    if (settings.project != nullptr && settings.project->functions != nullptr)
      analysis::useProjectFunctions(*model, settings.project->functions);
    if (only_module) {
      for (const Rule* rule : by_symbol[module_symbol]) wanted.emplace_back(file.root(), rule);
    } else if (ranged) {
      collectInRanges(file, *model, settings, rules, by_symbol, wanted, concurrent);
    }
    if (analysis::timings::enabled())
      analysis::timings::add(ranged ? "model and ranged walk" : "model and walk", file.text().size(),
                             analysis::timings::nowNs() - model_start);
    Context ctx(file, *model, settings, *rules.front(), result.diagnostics);
    // Every rule's checks, in tree order, after the model is complete.
    if (analysis::timings::enabled()) {
      checkTimed(wanted, ctx, rules, file.text().size());
    } else {
      for (const auto& [node, rule] : wanted) {
        ctx.setRule(*rule);
        rule->check(node, ctx);
      }
    }
  }

  // Suppressions, then a stable order.
  analysis::NoqaIndex noqa = early_noqa.valid() ? early_noqa.get() : analysis::NoqaIndex::build(file);
  if (settings.isEnabled(unusedNoqaMeta().code, unusedNoqaMeta().enabled_by_default)) {
    std::vector<Diagnostic> unused;
    reportUnusedNoqa(file, settings, noqa, result.diagnostics, unused);
    for (auto& d : unused) result.diagnostics.push_back(std::move(d));
  }
  std::erase_if(result.diagnostics, [&](const Diagnostic& d) {
    return noqa.suppresses(d.code, file.lines().lineOf(d.start));
  });
  crossReferenceRuntime(result.diagnostics, file, settings);
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

}  // namespace

LintResult lintFile(const analysis::ParsedFile& file, const Settings& settings) {
  return lint(file, settings, std::nullopt, false);
}

LintResult lintFile(const analysis::ParsedFile& file, const Settings& settings, std::vector<const Rule*> candidates) {
  return lint(file, settings, std::move(candidates), false);
}

LintResult lintFileConcurrently(const analysis::ParsedFile& file, const Settings& settings) {
  return lint(file, settings, std::nullopt, true);
}

}  // namespace ptlint::rules
