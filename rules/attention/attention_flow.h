// Intra-function data flow for PTL601: where each local name of one function body is
// (re)defined, in source order, so the matcher can follow `scores = ...; scores = scores / s;
// probs = scores.softmax(-1); out = probs @ v` backwards. Flow-insensitive beyond "the last
// definition before this point"; definitions inside a nested block are marked so that callers
// can refuse to rewrite across branches. Nested functions, classes and lambdas are opaque.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptlint::rules::attention {

struct Definition {
  enum class Kind {
    Assign,     // name = value
    AugAssign,  // name op= value
    InPlace,    // name.method_(...) as a statement (masked_fill_, div_, ...)
    Opaque,     // anything else that rebinds or mutates the name (tuple targets, loops, x[i] = ...)
  };
  Kind kind = Kind::Opaque;
  std::string_view name;
  TSNode statement{};  // the statement holding the definition (expression_statement, for, ...)
  TSNode node{};       // assignment / augmented_assignment / call / target
  TSNode value{};      // Assign, AugAssign: the right-hand side; InPlace: the call
  TSNode block{};      // the nearest enclosing `block` (or the module) of `statement`
};

class FunctionFlow {
 public:
  // `owner` is a function_definition (its body is analysed) or a module.
  FunctionFlow(TSNode owner, std::string_view source);

  // The last definition of `name` that ends at or before byte `at`, or nullptr.
  const Definition* reaching(std::string_view name, uint32_t at) const;
  // The definition before `def` (same name), or nullptr.
  const Definition* previous(const Definition* def) const;
  // Every definition of `name` whose node starts in [from, to).
  bool definedBetween(std::string_view name, uint32_t from, uint32_t to) const;
  // Identifiers read in the body (excluding attribute names, keyword names and assignment
  // targets), in source order.
  const std::vector<TSNode>& uses() const { return uses_; }
  TSNode owner() const { return owner_; }

 private:
  void addTargets(TSNode target, TSNode statement, TSNode block);
  std::string_view text(TSNode node) const;

  TSNode owner_;
  std::string_view source_;
  std::vector<Definition> defs_;  // in source order
  std::vector<TSNode> uses_;
};

// The pre-parse form of the index's candidates, for a file's code with strings and comments
// blanked (analysis::blankStringsAndComments): false only when no AttentionIndex built from the
// file could have one — no identifier spells a softmax, or no byte can start a product (a binary
// `@`, or a call of `matmul`, `bmm` or `einsum`). A `@` counts unless it opens a decorator; a
// product certainly inside a lambda's body never counts (a lambda owns no candidate).
bool codeMayHoldCandidates(std::string_view code);

// One pass over a file for PTL601: which function (or the module) owns each candidate ·V
// product, whether that body mentions a softmax or already calls scaled_dot_product_attention,
// and each body's FunctionFlow, built on first use. Without it every product would rescan its
// whole function, which is quadratic on hostile inputs (10,000 chained `@`).
class AttentionIndex {
 public:
  struct Owner {
    TSNode node{};      // function_definition or module
    bool softmax = false;  // the body (nested defs included) names a softmax
    bool sdpa = false;     // ... or scaled_dot_product_attention
    int parent = -1;
    int cls = -1;          // the class whose method this is (index into the class flags), or -1
  };

  // `code`: the source with its strings and comments blanked (analysis::codeOf), where the words
  // that every recorded fact sits on are looked for; the source itself when there is none.
  AttentionIndex(TSNode root, std::string_view source, std::string_view code);

  // The owner of a product node recorded by the pass; nullptr for products in a class body or
  // a lambda, and for nodes that are no candidate product.
  const Owner* ownerOf(TSNode product) const;
  // Whether some product sits in a body that names a softmax and no scaled_dot_product_attention:
  // without one, PTL601 has nothing to look at in this file.
  bool hasCandidates() const { return has_candidates_; }
  const FunctionFlow& flow(const Owner& owner) const;

 private:
  static uint64_t key(TSNode node) { return (uint64_t{ts_node_start_byte(node)} << 32) | ts_node_end_byte(node); }

  std::string_view source_;
  std::vector<Owner> owners_;
  std::unordered_map<uint64_t, int> product_owner_;
  bool has_candidates_ = false;
  mutable std::mutex mutex_;
  mutable std::unordered_map<const Owner*, std::unique_ptr<FunctionFlow>> flows_;
};

// The statement (child of a block or module) that contains `node`, or a null node.
TSNode enclosingStatement(TSNode node);
// The nearest function_definition around `node`, else the module root.
TSNode enclosingFunctionOrModule(TSNode node);

}  // namespace ptlint::rules::attention
