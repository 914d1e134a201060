// The value-flow layer's insides, shared by value_flow.cpp (names, calls, returns) and
// value_flow_config.cpp (attributes, subscripts, literal configuration). Not for rules: they ask
// analysis/value_flow.h.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/semantic_model.h"
#include "analysis/syntax.h"
#include "analysis/value_flow.h"

namespace ptlint::analysis::flow_detail {

constexpr int kMaxDepth = 16;
// More binding sites than this for one name, attribute or key: not followed (the values would
// not fit a set anyway), so that a generated file with thousands of rebindings stays linear.
constexpr size_t kMaxSites = 64;

struct NodeKey {
  uint32_t start, end;
  TSSymbol symbol;
  bool operator==(const NodeKey&) const = default;
};
struct NodeKeyHash {
  size_t operator()(const NodeKey& k) const {
    return std::hash<uint64_t>()((uint64_t(k.start) << 32) ^ uint64_t(k.end) ^ (uint64_t(k.symbol) << 20));
  }
};
inline NodeKey keyOf(TSNode node) { return {startOf(node), endOf(node), ts_node_symbol(node)}; }

// Where a name, a `self.<attr>` or a subscript is bound: the target node and the statement.
struct Site {
  TSNode target;
  TSNode statement;
};

// Per-file indexes built on first use: assignments to `<x>.<attr>` and `<x>[...]` by the name
// of the attribute / of `x`, and argparse options by destination.
struct FileIndex {
  std::unordered_map<std::string, std::vector<Site>> attribute_sites;  // by attribute name
  std::unordered_map<std::string, std::vector<Site>> subscript_sites;  // by the subscripted name
  std::unordered_map<std::string, int> mutating_calls;                 // `name.update(...)` and the like
  std::unordered_map<std::string, std::vector<TSNode>> options;        // `add_argument` / `set_defaults` by dest
  std::unordered_map<std::string, std::vector<TSNode>> calls;          // `f(...)` by the name `f`
  bool has_setattr = false;
};

// Kept with the model (perFileAnalysis hands it out const): what it memoises is mutable.
struct FlowCache {
  mutable std::mutex mutex;
  mutable std::unordered_map<NodeKey, ValueSet, NodeKeyHash> values;
  mutable std::unordered_map<NodeKey, ValueSet, NodeKeyHash> returns;
  mutable std::unique_ptr<FileIndex> index;
  std::shared_ptr<const ProjectFunctions> project;  // set before the first question, or null
};

bool isStatementContainer(TSNode node);

bool containsPos(TSNode node, uint32_t pos);

bool isLoop(TSNode node);

bool isScopeBoundary(TSNode node);

// The statement of a block (or module) that holds `node`.
TSNode anchorOf(TSNode node);

std::optional<std::string> literalString(TSNode node, std::string_view source);

TSNode keyword(TSNode call, std::string_view name, std::string_view source);

bool hasSplat(TSNode call);

std::vector<TSNode> positional(TSNode call);

// True when every path through `block` ends in `return` or `raise`.
bool alwaysExits(TSNode block, int depth = 0);

// The class a method is defined in (directly), or null.
TSNode classOfMethod(TSNode function);

TSNode firstParameterNode(TSNode function);

// One question's walk over the values (a fresh one per valuesOf call; the answers it completes
// go to the file's FlowCache).
class Flow {
 public:
  Flow(const SemanticModel& model, const FlowCache& cache) : model_(model), source_(model.file().text()), cache_(cache) {}

  ValueSet values(TSNode expr, int depth);
  ValueSet returns(TSNode function, int depth);

 private:
  static void add(ValueSet& out, const ValueSet& in);
  static void addValue(ValueSet& out, FlowValue v);
  static ValueSet leaf(TSNode node, FlowValue::Kind kind = FlowValue::Kind::Expression);
  static ValueSet unknown();
  ValueSet compute(TSNode expr, int depth);
  ValueSet nameValues(TSNode name, int depth);
  // True when `use` runs in `scope` itself (or in a comprehension inside it), so the order of
  // statements decides; a nested def or lambda may run after any binding.
  bool flowsInScope(TSNode use, const Scope& scope);
  static std::vector<size_t> allSites(const std::vector<Site>& sites);
  // A site inside a def or lambda nested in `owner` (a `global` / `nonlocal` rebinding): it may run
  // at any time.
  static bool foreign(const Site& site, TSNode owner);
  // The comprehension a `for ... in` clause belongs to.
  static bool inComprehensionOf(const Site& site, uint32_t pos);
  // Is the binding made before the point `pos` is reached (not in the right side being evaluated
  // there)?
  static bool precedes(const Site& site, uint32_t pos);
  // Does the binding run on every path to `pos`?
  static bool dominates(const Site& site, uint32_t pos);
  // The sites of `sites` that reach `use` within the scope owned by `owner`.
  std::vector<size_t> reachingSites(const std::vector<Site>& sites, TSNode use, TSNode owner);
  // A parameter of a function of the file: the arguments its calls in the file pass (or its
  // default where a call passes none), and always unknown besides (callers elsewhere, other
  // values). Methods, lambdas and functions a decorator may call otherwise are not followed.
  ValueSet parameterValues(const Binding& b, int depth);
  ValueSet bindingValues(const Binding& b, int depth);
  // The value a target receives at a binding site that is not a plain `name = value`.
  ValueSet siteValues(const Site& site, int depth);
  bool sourcesUnknown(TSNode right, int depth) { return values(right, depth + 1).unknown; }
  static TSNode elementFor(TSNode left, TSNode right, TSNode target);
  const FileIndex& index();
  std::unique_ptr<FileIndex> buildIndex();
  // `parser.add_argument("--lr-scale", ...)` stores into `lr_scale`; `dest=` wins.
  std::optional<std::string> optionDestination(TSNode call);
  // The method `node` is in, when its first parameter is `self` of a class (not a staticmethod).
  TSNode enclosingMethod(TSNode node);
  ValueSet attributeValues(TSNode attr, int depth);
  static bool isOptionsName(std::string_view name);
  // The class of the file a call constructs, or null.
  TSNode classOfCall(TSNode call);
  std::optional<ValueSet> optionValues(std::string_view dest, int depth);
  static bool isDataclass(const SemanticModel& model, TSNode cls);
  // `Config(...).name`: the constructor's argument for a dataclass field, else its default; for
  // another class of the file, what its methods assign to `self.name`.
  ValueSet instanceAttributeValues(TSNode cls, TSNode call, std::string_view name, int depth);
  bool hasAttributeSites(std::string_view name);
  // What the methods of `cls` assign to `self.<name>` (and a class-level `name = ...`): when the
  // use's own method assigns it on every path before the use, those assignments alone.
  ValueSet selfAttributeValues(TSNode cls, std::string_view name, TSNode use, TSNode use_method, int depth);
  ValueSet subscriptValues(TSNode subscript, int depth);
  ValueSet callValues(TSNode call, int depth);
  // A call of a function another file of the project defines: its returns there.
  std::optional<ValueSet> projectCallValues(TSNode function);
  bool harmlessDecorators(TSNode def);
  ValueSet computeReturns(TSNode def, int depth);

  const SemanticModel& model_;
  std::string_view source_;
  const FlowCache& cache_;
  std::vector<NodeKey> active_;
  bool cycle_ = false;
};

}  // namespace ptlint::analysis::flow_detail
