#include "rules/data/dataloader_args.h"

#include <array>

#include "analysis/syntax.h"
#include "analysis/value_flow.h"
#include "analysis/value_resolution.h"
#include "rules/common/blocks.h"
#include "rules/helpers.h"

namespace ptlint::rules::data {

using analysis::isKind;

namespace {

// DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, collate_fn,
//            pin_memory, drop_last, timeout, worker_init_fn, multiprocessing_context,
//            generator, *, prefetch_factor, persistent_workers, pin_memory_device, in_order)
constexpr std::array<std::string_view, 13> kPositional{
    "dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn",
    "pin_memory", "drop_last", "timeout", "worker_init_fn", "multiprocessing_context", "generator"};

}  // namespace

bool isDataLoaderCall(const analysis::SemanticModel& model, TSNode call) {
  auto callee = model.calleeName(call);
  return callee && *callee == "torch.utils.data.DataLoader";
}

TSNode dataLoaderArgument(TSNode call, std::string_view name, std::string_view source) {
  TSNode keyword = keywordArgument(call, name, source);
  if (!ts_node_is_null(keyword)) return keyword;
  for (size_t slot = 0; slot < kPositional.size(); ++slot) {
    if (kPositional[slot] != name) continue;
    auto positional = positionalArguments(call);
    if (positional.size() > slot) return positional[slot];
  }
  return {};
}

std::optional<long long> numWorkers(const analysis::SemanticModel& model, TSNode call) {
  std::string_view source = model.file().text();
  TSNode value = dataLoaderArgument(call, "num_workers", source);
  if (ts_node_is_null(value)) {
    if (hasStarArguments(call) || hasDoubleStarArguments(call)) return std::nullopt;
    return 0;
  }
  return integerLiteral(analysis::resolveValue(model, value), source);
}

namespace {

TSNode dataLoaderOfIterableAt(const analysis::SemanticModel& model, TSNode iterable, int depth) {
  TSNode expr = analysis::resolveValue(model, iterable);
  for (; depth < 4 && isKind(expr, kind::call); ++depth) {
    if (isDataLoaderCall(model, expr)) return expr;
    auto callee = model.calleeName(expr);
    bool wrapper = isBuiltinCall(model, expr, "enumerate") || isBuiltinCall(model, expr, "zip") ||
                   (callee && (*callee == "tqdm.tqdm" || *callee == "tqdm.auto.tqdm" || *callee == "tqdm.notebook.tqdm" ||
                               *callee == "tqdm.rich.tqdm" || *callee == "tqdm.std.tqdm"));
    if (!wrapper) return {};
    auto positional = positionalArguments(expr);
    if (positional.empty()) return {};
    if (isBuiltinCall(model, expr, "zip")) {
      for (TSNode arg : positional) {
        TSNode inner = dataLoaderOfIterableAt(model, arg, depth + 1);
        if (!ts_node_is_null(inner)) return inner;
      }
      return {};
    }
    expr = analysis::resolveValue(model, positional[0]);
  }
  return {};
}

bool isIterableWrapper(const analysis::SemanticModel& model, TSNode call) {
  auto callee = model.calleeName(call);
  return isBuiltinCall(model, call, "enumerate") || isBuiltinCall(model, call, "zip") ||
         (callee && (*callee == "tqdm.tqdm" || *callee == "tqdm.auto.tqdm" || *callee == "tqdm.notebook.tqdm" ||
                     *callee == "tqdm.rich.tqdm" || *callee == "tqdm.std.tqdm"));
}

void collectDataLoaders(const analysis::SemanticModel& model, TSNode iterable, int depth, std::vector<TSNode>& out) {
  if (depth > 4 || out.size() >= 16) return;
  for (const auto& value : analysis::valuesOf(model, iterable).values) {
    if (value.kind != analysis::FlowValue::Kind::Expression || value.model != nullptr || !isKind(value.node, kind::call))
      continue;
    if (isDataLoaderCall(model, value.node)) {
      bool seen = false;
      for (TSNode have : out) seen = seen || analysis::sameNode(have, value.node);
      if (!seen) out.push_back(value.node);
      continue;
    }
    if (!isIterableWrapper(model, value.node)) continue;
    auto positional = positionalArguments(value.node);
    if (isBuiltinCall(model, value.node, "zip")) {
      for (TSNode arg : positional) collectDataLoaders(model, arg, depth + 1, out);
    } else if (!positional.empty()) {
      collectDataLoaders(model, positional[0], depth + 1, out);
    }
  }
}

}  // namespace

std::vector<TSNode> dataLoadersOfIterable(const analysis::SemanticModel& model, TSNode iterable) {
  std::vector<TSNode> out;
  collectDataLoaders(model, iterable, 0, out);
  return out;
}

TSNode dataLoaderOfIterable(const analysis::SemanticModel& model, TSNode iterable) {
  return dataLoaderOfIterableAt(model, iterable, 0);
}

}  // namespace ptlint::rules::data
