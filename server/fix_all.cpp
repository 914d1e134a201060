#include "server/fix_all.h"

#include <algorithm>

#include "quickfix/fix_loop.h"
#include "server/diagnostics.h"

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
  const rules::Settings& settings = result.settings;
  if (!result.snapshot->in_sync) return std::nullopt;
  quickfix::FixProvider provider = [&settings, &cancelled](const analysis::ParsedFile& file) {
    if (cancelled()) throw LspError(ErrorCode::RequestCancelled, "the request was cancelled");
    std::vector<quickfix::Fix> fixes;
    for (auto& d : rules::lintFile(file, settings).diagnostics)
      if (d.fix) fixes.push_back(std::move(*d.fix));
    return fixes;
  };
  std::string_view before = result.snapshot->text();
  auto fixed = quickfix::fixToFixpoint(std::string(before), quickfix::Applicability::Safe, provider);
  if (fixed.text == before) return std::nullopt;
  quickfix::Edit edit = minimalEdit(before, fixed.text);
  const auto& snap = *result.snapshot;
  return TextEdit{toRange(before, snap.lines, edit.start, edit.end, encoding_), edit.content};
}

}  // namespace ptlint::server
