// A rule's prefilter, declared as data (`Rule::prefilter()`): the words and byte-level conditions
// without which the rule cannot report in a file, evaluated by the linter for every rule at once
// (rules/linter.cpp) so that a file, a rule or a model is skipped where nothing can be found.
// Every condition is exact: it must never hide a finding (the oracle, PTLINT_NO_PREFILTER=1,
// lints with all of them off and must give the same output).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "rules/settings.h"

namespace ptlint::rules {

// A call the code must spell (rules::codeCalls before parsing, rules::callsNamed after).
struct CallWord {
  std::string_view word;
  bool method = false;        // `x.word(`: preceded by `.`
  bool no_arguments = false;  // `word()`
};

struct Prefilter {
  using Words = std::vector<std::string_view>;

  // 1. On the bytes, before parsing (all rules' words in one automaton).
  // One of these must occur; none listed: no word test.
  Words words;
  // The words must occur as whole identifiers (`amp` in `torch.cuda.amp`, not in `example`).
  bool whole_words = false;
  // Each group: one of its strings must occur (a substring), e.g. {{"cudnn"}, {"deterministic"}}.
  std::vector<Words> also;
  // None of these may occur (a substring): PTL406 is answered by a `set_epoch` anywhere.
  Words absent;

  // Settings that change `words` (only these make the words depend on the settings):
  // the configured `compile-decorators` (their last component) are words too;
  bool plus_compile_decorators = false;
  // with a project index that knows compiled functions, these replace the words (what every
  // finding of code compiled from another file spells);
  Words words_in_project;
  // from this torch floor on, these replace the words.
  std::optional<TorchVersion> words_since;
  Words words_since_words;

  // The torch range the rule reports in: its floor at least `floor_at_least`; it includes some
  // release from `range_reaches` on.
  std::optional<TorchVersion> floor_at_least;
  std::optional<TorchVersion> range_reaches;

  // 2. On the code view (comments and string contents blanked, analysis::PrefilterText), still
  // before parsing; with no clear code view a test passes.
  // One of the words (as resolved for the settings) is a whole identifier of the code.
  bool words_in_code = false;
  // Each group: one of its words is a whole identifier of the code.
  std::vector<Words> code_names;
  // Each group: the code calls one of these.
  std::vector<std::vector<CallWord>> code_calls;

  // 3. On the tree, after parsing and before the semantic model is built (when no rule is left,
  // none is built).
  // Each group: one of its words is an identifier of the tree (rules::namesIdentifier).
  std::vector<Words> tree_names;
  // Each group: one of these names what a call calls (rules::callsNamed).
  std::vector<Words> tree_calls;

  // Identifiers one of which a text must spell (as a whole word) for the rule to use what other
  // files of the project say about it (PTL501: `item`, `tolist`, for functions compiled from
  // elsewhere); only then is the project index consulted (rules::asksProject).
  Words project_words;

  // True when the words depend on the settings (the linter then keys its automaton by them).
  bool wordsDependOnSettings() const {
    return plus_compile_decorators || !words_in_project.empty() || words_since.has_value();
  }
  // The words under these settings. The strings may point into `settings`.
  Words wordsFor(const Settings& settings) const;
};

}  // namespace ptlint::rules
