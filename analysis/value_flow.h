// Value flow: the values an expression may hold where it stands. Rules ask "may this be bf16?",
// "is this a CUDA device?", "is this an autocast?" of every value instead of resolving a name
// bound once on their own.
//
// A name's values are those of the bindings that reach its use: through `if` / `elif` / `else`,
// `try` / `except`, `with` bodies and loops (a later binding in the same loop reaches an earlier
// use), with a binding that dominates the use hiding those before it. Beyond names: conditional
// expressions and `or` / `and` (both operands), the returns of a function of the same file
// (`device = infer_device()`), `self.<attr>` assigned in any method of the class (a dominating
// assignment earlier in the same method wins), and literal configuration: a dict literal
// indexed by a fixed key (`cfg["dtype"]`), the fields of a dataclass of the file (the
// constructor's argument, else the field's default) and argparse options read as `args.<dest>`
// (the `default=` and `choices=`; without `choices` the command line may give anything else, so
// the set is also unknown). Anything else is a leaf: the expression itself (a call, a literal,
// an attribute, a name of an import, def, class or builtin).
//
// Across files: a call of a function another file of the project defines (`from utils import
// get_device`, `utils.get_device()`, a relative import), once the linter hands the model the
// project's functions (`useProjectFunctions`): its returns, as nodes of that file (`FlowValue::model`).
//
// Demand-driven: nothing is computed until a rule asks, and answers are kept per file with the
// semantic model. A parameter, an augmented assignment, a value the layer cannot follow is
// `unknown`: rules never report on unknown alone.
#pragma once

#include <tree_sitter/api.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/semantic_model.h"

namespace ptlint::analysis {

struct FlowValue {
  enum class Kind : uint8_t {
    Expression,  // `node` evaluates to the value
    LoopTarget,  // a name bound by the `for` (statement or comprehension clause) `node`
    Part,        // an element unpacked from the value of `node` (`a, b = node`)
    Entered,     // `with node as name`: what `node.__enter__()` returned
  };
  Kind kind = Kind::Expression;
  TSNode node{};
  // The model of the file `node` is in when it is another file of the project (what a helper
  // defined there returns); null for the file asked about.
  const SemanticModel* model = nullptr;
  const SemanticModel& in(const SemanticModel& asking) const { return model != nullptr ? *model : asking; }
};

struct ValueSet {
  std::vector<FlowValue> values;  // in the order found, without repeats
  bool unknown = false;           // some path gives a value the layer cannot name

  // True when the values are all known and each satisfies `pred` (false for an empty set).
  template <typename Pred>
  bool all(Pred&& pred) const {
    if (unknown || values.empty()) return false;
    for (const FlowValue& v : values)
      if (!pred(v)) return false;
    return true;
  }
  // True when some known value satisfies `pred`.
  template <typename Pred>
  bool any(Pred&& pred) const {
    for (const FlowValue& v : values)
      if (pred(v)) return true;
    return false;
  }
};

// The definitions the other files of a project hold, as one file imports them (the project
// index answers in workspace/).
class ProjectFunctions {
 public:
  virtual ~ProjectFunctions() = default;
  struct Definition {
    const SemanticModel* model = nullptr;  // the defining file, alive as long as this object
    TSNode node{};                         // a top-level `function_definition` or `class_definition` there
    std::string path;                      // that file (absolute)
  };
  // The top-level def or class `qualified` names (as the asking file's imports spell it:
  // `utils.get_device`, `.utils.get_device`), bound once in a file of the project; nullopt when none.
  virtual std::optional<Definition> definition(std::string_view qualified) const = 0;
  // The files the answers so far came from (a result that used them depends on them), each
  // with the XXH3 hash of the text that was read.
  struct FileRead {
    std::string path;
    uint64_t content_hash = 0;
    bool operator==(const FileRead&) const = default;
  };
  virtual std::vector<FileRead> filesRead() const = 0;
};

// What an import-bound name or an attribute of one refers to, as the file's imports spell it
// (`get_device` from `from .utils import get_device`: `.utils.get_device`); nullopt for anything
// else, or a name bound more than once.
std::optional<std::string> importedName(const SemanticModel& model, TSNode expr);

// Lets `valuesOf` on `model` follow calls into the project's other files. Call before the first
// question on `model`; without it calls of imported functions stay leaves.
void useProjectFunctions(const SemanticModel& model, std::shared_ptr<const ProjectFunctions> functions);

// The values `expr` may hold where it stands. Never throws; bounded in depth.
ValueSet valuesOf(const SemanticModel& model, TSNode expr);

// The expressions a function of the file returns (`return x` followed to x's values); unknown
// when it may end without a `return`, returns nothing, yields, or is decorated (the decorator may
// replace it), except by decorators that pass its arguments and result through: `functools.cache`
// / `lru_cache`, `staticmethod`, `classmethod`, `torch.no_grad()`, `torch.inference_mode()`,
// `torch.compile`, an autocast.
ValueSet returnValues(const SemanticModel& model, TSNode function_definition);

}  // namespace ptlint::analysis
