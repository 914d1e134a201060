// Diagnostics conversion: the engine's byte-offset findings and edits as LSP objects (ranges in
// the negotiated encoding, the Deprecated tag from the rule's metadata, related information in
// this file or another one, the fix as `data`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "quickfix/fix.h"
#include "rules/rule.h"
#include "server/document_store.h"
#include "server/protocol.h"

namespace ptlint::server {

// Byte range -> LSP range in one document.
Range toRange(std::string_view text, const LineTable& lines, uint32_t start, uint32_t end, PositionEncoding encoding);

// Byte edits -> LSP text edits; inserted `\n` becomes the text's own line ending.
std::vector<TextEdit> toTextEdits(std::string_view text, const LineTable& lines,
                                  const std::vector<quickfix::Edit>& edits, PositionEncoding encoding);

// One finding of the document `uri` whose text is `text`. `related`: the client reads
// relatedInformation.
Diagnostic toLspDiagnostic(const rules::Diagnostic& d, const std::string& uri, std::string_view text,
                           const LineTable& lines, PositionEncoding encoding, bool related);
inline Diagnostic toLspDiagnostic(const rules::Diagnostic& d, const DocumentSnapshot& snap, PositionEncoding encoding,
                                  bool related) {
  return toLspDiagnostic(d, snap.uri, snap.text(), snap.lines, encoding, related);
}

// A note about the whole file that is no finding (it was not linted: too large), at its start,
// without a code.
Diagnostic fileNotice(const std::string& message);

}  // namespace ptlint::server
