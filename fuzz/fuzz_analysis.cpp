// Target: analysis of arbitrary bytes. `ParsedFile::parse` + `rules::lintFile` with every rule
// selected must not crash, and every range it hands out (diagnostics, fix edits, related
// information, syntax errors) must lie inside the buffer; on valid UTF-8 also on code point
// boundaries, since the CLI and the LSP server convert them to columns. The bytes also go through
// the allocator-configuration parsers PTL705 models (every release's), which must not crash.
#include <cstdint>
#include <string>

#include "analysis/alloc_conf.h"
#include "analysis/line_index.h"
#include "analysis/parse.h"
#include "fuzz/fuzz_check.h"
#include "rules/linter.h"

using namespace ptlint;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  const bool utf8 = analysis::isValidUtf8(text);
  auto file = analysis::ParsedFile::parse(text);
  fuzz::require(file.text() == text, "parse keeps the text");
  for (auto parser : {alloc_conf::Parser::Torch1_13, alloc_conf::Parser::Torch2_6, alloc_conf::Parser::Torch2_14})
    (void)alloc_conf::check(text, parser);

  rules::Settings settings;
  settings.select = {"ALL"};
  settings.unsafe_fixes = true;
  rules::LintResult result = rules::lintFile(file, settings);
  fuzz::require(result.has_syntax_errors == file.hasSyntaxErrors(), "syntax error flag");

  uint32_t previous_start = 0;
  for (const auto& d : result.diagnostics) {
    fuzz::requireRange(text, d.start, d.end, utf8, "diagnostic range");
    fuzz::require(d.start >= previous_start, "diagnostics sorted by start", d.start, previous_start);
    previous_start = d.start;
    fuzz::require(!d.code.empty() && !d.message.empty(), "diagnostic has a code and a message");
    for (const auto& r : d.related) fuzz::requireRange(text, r.start, r.end, utf8, "related range");
    if (!d.fix) continue;
    fuzz::require(!d.fix->edits.empty(), "a fix has edits");
    uint32_t last_end = 0;
    for (const auto& e : d.fix->edits) {
      fuzz::requireRange(text, e.start, e.end, utf8, "edit range");
      fuzz::require(e.start >= last_end, "edits sorted and disjoint", e.start, last_end);
      last_end = e.end;
      if (utf8) fuzz::require(analysis::isValidUtf8(e.content), "edit content is UTF-8");
    }
    // Applying the edits must be possible and keep the text valid UTF-8.
    std::string fixed = quickfix::applyEdits(text, d.fix->edits, quickfix::detectLineEnding(text));
    if (utf8) fuzz::require(analysis::isValidUtf8(fixed), "fixed text is UTF-8");
  }
  for (const auto& e : file.syntaxErrors()) fuzz::requireRange(text, e.start, e.end, false, "syntax error range");

  // Position conversion at the edges must accept every offset the engine produced.
  const auto& lines = file.lines();
  for (const auto& d : result.diagnostics) {
    auto rc = lines.codePointRowColumn(d.end, text);
    fuzz::require(rc.row < lines.lineCount(), "row inside the file", rc.row, lines.lineCount());
  }
  return 0;
}
