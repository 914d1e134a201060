// Raw byte tests the project index makes on every project file for the training-loop rules'
// cross-file facts (PTL406, PTL707): cheap, before any parse, and erring towards "may".
#pragma once

#include <cstdint>
#include <string_view>

namespace ptlint::workspace {

enum TrainingWords : uint8_t {
  kSpellsSetEpoch = 1,    // `set_epoch` anywhere
  kImportsTrainer = 2,    // `import lightning`, `from accelerate import ...`, ... at a line's start
  kLoopsOverEpochs = 4,   // a line `for ... epoch ...:` (any case)
  kSetsEvalMode = 8,      // `R.eval()`, then `R(` further on
};

// The TrainingWords bits of `text`.
uint8_t trainingWordsOf(std::string_view text);

// May `text` set the environment variable `variable` as environment_writes.h tells it (false
// when every mention of it is plain text of a comment or docstring)? `code_view` false: a
// notebook's JSON, where every mention is inside a string, so any mention may set it.
bool mayWriteVariable(std::string_view text, std::string_view variable, bool code_view = true);

}  // namespace ptlint::workspace
