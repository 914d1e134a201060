#include "server/fix_all.h"

#include <algorithm>

#include "server/diagnostics.h"
#include "workspace/pipeline.h"
#include "workspace/notebook_edits.h"

namespace ptlint::server {

quickfix::Edit minimalEdit(std::string_view before, std::string_view after) {
  size_t prefix = 0, max_prefix = std::min(before.size(), after.size());
  while (prefix < max_prefix && before[prefix] == after[prefix]) ++prefix;
  auto unsafeCut = [](std::string_view s, size_t at) {
    if (at == 0 || at >= s.size()) return false;
    return (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80 || (s[at - 1] == '\r' && s[at] == '\n');
  };
  while (prefix > 0 && (unsafeCut(before, prefix) || unsafeCut(after, prefix))) --prefix;
  size_t suffix = 0, max_suffix = std::min(before.size(), after.size()) - prefix;
  while (suffix < max_suffix && before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) ++suffix;
  while (suffix > 0 && (unsafeCut(before, before.size() - suffix) || unsafeCut(after, after.size() - suffix)))
    --suffix;
  return {static_cast<uint32_t>(prefix), static_cast<uint32_t>(before.size() - suffix),
          std::string(after.substr(prefix, after.size() - suffix - prefix))};
}

std::optional<TextEdit> FixAll::edit(const AnalysisResult& result, const std::function<bool()>& cancelled) const {
  auto list = edits(result, cancelled, nullptr);
  if (list.empty()) return std::nullopt;
  return list.front();
}

std::vector<TextEdit> FixAll::edits(const AnalysisResult& result, const std::function<bool()>& cancelled,
                                    const workspace::Notebook* notebook) const {
  if (!result.snapshot->in_sync) return {};
  std::string_view before = result.snapshot->text();
  if (notebook && notebook->joined != before) return {};  // cells and analysis disagree: wait
  if (before.size() > workspace::kMaxFileBytes) return {};  // not linted: nothing to fix
  std::optional<workspace::JoinedTracker> tracker;
  if (notebook) tracker.emplace(*notebook);
  // The loop `--fix` runs, under the same selection: safe fixes, and unsafe ones only when
  // `unsafeFixes` enables them (as `check --fix --unsafe-fixes`).
  workspace::LintRequest request{result.settings, result.fixes, true, nullptr, false, [&] {
                                   if (cancelled()) throw LspError(ErrorCode::RequestCancelled, "the request was cancelled");
                                 }};
  auto fixed = workspace::fixText(std::string(before), request, tracker ? &*tracker : nullptr);
  if (fixed.text == before) return {};
  const auto& snap = *result.snapshot;
  std::vector<TextEdit> out;
  auto emit = [&](uint32_t b0, uint32_t b1, uint32_t a0, uint32_t a1) {
    std::string_view b = before.substr(b0, b1 - b0), a = std::string_view(fixed.text).substr(a0, a1 - a0);
    if (a == b) return;
    quickfix::Edit edit = minimalEdit(b, a);
    out.push_back(TextEdit{toRange(before, snap.lines, b0 + edit.start, b0 + edit.end, encoding_), edit.content});
  };
  if (!tracker) {
    emit(0, static_cast<uint32_t>(before.size()), 0, static_cast<uint32_t>(fixed.text.size()));
    return out;
  }
  // Stretches between fixed points (masked lines, cell boundaries), each diffed on its own.
  workspace::JoinedTracker start(*notebook);
  std::vector<std::pair<uint32_t, uint32_t>> anchors_before, anchors_after;  // [begin, end) kept as is
  auto cells_before = start.cellRanges(before.size()), cells_after = tracker->cellRanges(fixed.text.size());
  for (size_t k = 0; k < cells_before.size(); ++k) {
    if (k > 0) {
      anchors_before.emplace_back(cells_before[k - 1].second, cells_before[k].first);
      anchors_after.emplace_back(cells_after[k - 1].second, cells_after[k].first);
    }
    for (size_t m = 0; m < start.masked().size(); ++m)
      if (start.masked()[m].cell == k) {
        const auto& mb = start.masked()[m];
        const auto& ma = tracker->masked()[m];
        anchors_before.emplace_back(mb.offset, mb.offset + static_cast<uint32_t>(mb.masked.size()));
        anchors_after.emplace_back(ma.offset, ma.offset + static_cast<uint32_t>(ma.masked.size()));
      }
  }
  uint32_t b = 0, a = 0;
  for (size_t k = 0; k < anchors_before.size(); ++k) {
    auto [b0, b1] = anchors_before[k];
    auto [a0, a1] = anchors_after[k];
    // A fixed point not where it was followed to: refuse rather than rewrite a magic.
    if (b0 < b || a0 < a || a1 > fixed.text.size() || before.substr(b0, b1 - b0) != std::string_view(fixed.text).substr(a0, a1 - a0))
      return {};
    emit(b, anchors_before[k].first, a, anchors_after[k].first);
    b = anchors_before[k].second;
    a = anchors_after[k].second;
  }
  emit(b, static_cast<uint32_t>(before.size()), a, static_cast<uint32_t>(fixed.text.size()));
  return out;
}

}  // namespace ptlint::server
