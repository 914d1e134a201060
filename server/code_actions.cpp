#include "server/code_actions.h"

#include "server/diagnostics.h"

namespace ptlint::server {

bool kindRequested(const std::optional<std::vector<std::string>>& only, std::string_view kind) {
  if (!only) return true;
  for (const auto& k : *only)
    if (kind == k || (kind.size() > k.size() && kind.starts_with(k) && kind[k.size()] == '.')) return true;
  return false;
}

std::optional<quickfix::Edit> noqaEdit(const analysis::ParsedFile& file, const analysis::NoqaIndex& noqa,
                                      const quickfix::LexicalMap& lexical, const rules::Diagnostic& d) {
  uint32_t row = file.lines().lineOf(d.start);
  std::optional<uint32_t> codes_end;
  if (const analysis::NoqaDirective* directive = noqa.directiveOnRow(row)) {
    if (directive->all) return std::nullopt;
    if (!directive->codes.empty()) codes_end = directive->codes_end;
  }
  auto edit = quickfix::noqaInsertion(file.text(), lexical, file.lines().lineStart(row), d.code, codes_end);
  if (edit && !lexical.allows(*edit)) return std::nullopt;
  return edit;
}

WorkspaceEdit CodeActionProvider::workspaceEdit(const DocumentSnapshot& snap, std::vector<TextEdit> edits) const {
  WorkspaceEdit edit;
  if (options_.document_changes)
    edit.documentChanges = std::vector<TextDocumentEdit>{{{snap.uri, snap.version}, std::move(edits)}};
  else
    edit.changes[snap.uri] = std::move(edits);
  return edit;
}

CodeActionProvider::Quickfixes CodeActionProvider::quickfixes(const AnalysisResult& result, uint32_t from,
                                                              uint32_t to, const Verdict& verdict,
                                                              const workspace::JoinedTracker* notebook) const {
  Quickfixes out;
  const DocumentSnapshot& snap = *result.snapshot;
  std::string_view text = snap.text();
  std::optional<analysis::NoqaIndex> noqa;
  std::optional<quickfix::LexicalMap> lexical;  // once per request, when needed
  auto guarded = [&](const quickfix::Fix& fix) {
    if (!lexical) lexical.emplace(text);
    return lexical->allows(fix) && (!notebook || notebook->allows(fix));
  };
  for (size_t i = 0; i < result.lint.diagnostics.size(); ++i) {
    const rules::Diagnostic& d = result.lint.diagnostics[i];
    if (d.fix && (d.fix->applicability == quickfix::Applicability::Safe ||
                  (d.fix->applicability == quickfix::Applicability::Unsafe && result.settings.unsafe_fixes)))
      out.any_safe_fix = true;
    if (d.start > to || d.end < from) continue;
    const Diagnostic& lsp = result.diagnostics[i];
    if (d.fix && !d.fix->edits.empty()) {
      auto applicability = d.fix->applicability;
      // Unsafe fixes are offered too (labelled, never preferred): a quick fix is applied only when
      // the user picks it. `unsafeFixes` governs fix-all, as in Ruff's server.
      bool offered = applicability == quickfix::Applicability::Safe ||
                     applicability == quickfix::Applicability::Unsafe;
      std::string note;
      if (offered) offered = guarded(*d.fix);
      if (offered && verdict) offered = verdict(d, note);  // a rewrite found not equivalent is withdrawn
      if (offered) {
        CodeAction action;
        bool safe = applicability == quickfix::Applicability::Safe;
        std::string message = d.fix->message.empty() ? "Fix " + std::string(d.code) : d.fix->message;
        action.title = std::string(d.code) + ": " + message + (safe ? "" : " (unsafe)") + note;
        action.kind = "quickfix";
        action.diagnostics = {lsp};
        action.isPreferred = safe;  // never an unsafe one: editors apply preferred fixes unasked
        action.edit = workspaceEdit(snap, toTextEdits(text, snap.lines, d.fix->edits, options_.encoding));
        out.actions.push_back(std::move(action));
      }
    }
    if (!noqa) noqa = analysis::NoqaIndex::build(*snap.file);  // once per request, when needed
    if (!lexical) lexical.emplace(text);
    auto edit = noqaEdit(*snap.file, *noqa, *lexical, d);
    if (edit && notebook && !notebook->allows(*edit)) edit.reset();
    if (edit) {
      CodeAction action;
      action.title = std::string(d.code) + ": Disable for this line";
      action.kind = "quickfix";
      action.diagnostics = {lsp};
      action.edit = workspaceEdit(snap, toTextEdits(text, snap.lines, {*edit}, options_.encoding));
      out.actions.push_back(std::move(action));
    }
  }
  return out;
}

}  // namespace ptlint::server
