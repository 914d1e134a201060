// Code actions for a range of an analysed document: per diagnostic, a `quickfix` for its fix
// (safe ones preferred; unsafe ones titled "(unsafe)" and never preferred) and
// `CODE: Disable for this line` (a `# noqa:` comment). Fix-all is fix_all.h.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/noqa.h"
#include "quickfix/edit_guard.h"
#include "server/document_analysis.h"
#include "server/protocol.h"
#include "workspace/notebook_edits.h"

namespace ptlint::server {

inline constexpr std::string_view kFixAllKind = "source.fixAll.ptlint";
// Fix-all for a whole notebook, asked for by a notebook's on-save actions (as Ruff's server).
inline constexpr std::string_view kNotebookFixAllKind = "notebook.source.fixAll.ptlint";

// Is `kind` among the kinds the client asked for (`context.only`; all when absent)?
bool kindRequested(const std::optional<std::vector<std::string>>& only, std::string_view kind);

// `# noqa: CODE` on the diagnostic's first line, appended to an existing `# noqa:` list, placed
// as `--add-noqa` places it (quickfix::noqaInsertion); nullopt when a bare `# noqa` already
// covers it or the line cannot take a comment (it ends inside a string or continues with `\`).
std::optional<quickfix::Edit> noqaEdit(const analysis::ParsedFile& file, const analysis::NoqaIndex& noqa,
                                      const quickfix::LexicalMap& lexical, const rules::Diagnostic& d);

class CodeActionProvider {
 public:
  struct Options {
    PositionEncoding encoding = PositionEncoding::Utf16;
    bool document_changes = false;  // the client takes versioned documentChanges
  };
  // A verdict on a fix's rewrite (gpuCheck): appends a note to the title; false withdraws it.
  using Verdict = std::function<bool(const rules::Diagnostic& d, std::string& note)>;

  explicit CodeActionProvider(Options options) : options_(options) {}

  struct Quickfixes {
    std::vector<CodeAction> actions;
    bool any_safe_fix = false;  // anywhere in the document (fix-all would do something)
  };
  // The quickfixes of the diagnostics touching [from, to] (bytes). `verdict` may be empty.
  // Every edit offered passes the lexical guard and, in a notebook's joined text, `notebook`
  // (kept in one cell, off masked IPython lines).
  Quickfixes quickfixes(const AnalysisResult& result, uint32_t from, uint32_t to, const Verdict& verdict,
                        const workspace::JoinedTracker* notebook = nullptr) const;

  WorkspaceEdit workspaceEdit(const DocumentSnapshot& snap, std::vector<TextEdit> edits) const;

 private:
  Options options_;
};

}  // namespace ptlint::server
