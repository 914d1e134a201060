// Compiled by misspelt_kind.cmake once per case: CONTROL must compile, every other case must not
// (a kind the grammar lacks, a kind spelt as a string, a kind made outside the generated header).
// typed_node_kinds.py: leave this file (its string kinds are the point).
#include "analysis/syntax.h"

namespace ptlint::analysis {

bool probe(TSNode node) {
#if defined(CONTROL)
  return isKind(node, kind::call) && kindOf(node) != kind::attribute;
#elif defined(MISSPELT_CONSTANT)
  return isKind(node, kind::cal);
#elif defined(STRING_KIND)
  return isKind(node, "call");
#elif defined(STRING_COMPARISON)
  return kindOf(node) == "call";
#elif defined(CONSTRUCTED_KIND)
  return isKind(node, NodeKind("call", 4, 1));
#elif defined(BRACED_STRING)
  return isKind(node, {"call", 4});
#else
#error "no case"
#endif
}

}  // namespace ptlint::analysis
