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
// Demand-driven: nothing is computed until a rule asks, and answers are kept per file with the
// semantic model. A parameter, an augmented assignment, a value the layer cannot follow is
// `unknown`: rules never report on unknown alone.
#pragma once

#include <tree_sitter/api.h>

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

// The values `expr` may hold where it stands. Never throws; bounded in depth.
ValueSet valuesOf(const SemanticModel& model, TSNode expr);

// The expressions a function of the file returns (`return x` followed to x's values); unknown
// when it may end without a `return`, returns nothing, yields, or is decorated (the decorator may
// replace it), except by decorators that pass its arguments and result through: `functools.cache`
// / `lru_cache`, `staticmethod`, `classmethod`, `torch.no_grad()`, `torch.inference_mode()`,
// `torch.compile`, an autocast.
ValueSet returnValues(const SemanticModel& model, TSNode function_definition);

}  // namespace ptlint::analysis
