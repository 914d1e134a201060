// Target: the fix loop. On any UTF-8 input, `fixToFixpoint` with every rule and unsafe fixes
// never adds a parse error (a file that starts broken is left alone), converges within the
// pass cap, and a second run changes nothing. Line endings of the input are kept.
#include <cstdint>
#include <string>

#include "analysis/line_index.h"
#include "analysis/parse.h"
#include "fuzz/fuzz_check.h"
#include "quickfix/fix_loop.h"
#include "rules/linter.h"

using namespace ptlint;

namespace {

quickfix::FixLoopResult runFixes(const std::string& text) {
  rules::Settings settings;
  settings.select = {"ALL"};
  settings.unsafe_fixes = true;
  auto provider = [&](const analysis::ParsedFile& file) {
    std::vector<quickfix::Fix> fixes;
    for (auto& d : rules::lintFile(file, settings).diagnostics)
      if (d.fix) fixes.push_back(std::move(*d.fix));
    return fixes;
  };
  return quickfix::fixToFixpoint(text, quickfix::Applicability::Unsafe, provider);
}

size_t count(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (!analysis::isValidUtf8(text)) return -1;  // the CLI and LSP never hand the engine such text
  const bool broken_before = analysis::ParsedFile::parse(text).hasSyntaxErrors();

  quickfix::FixLoopResult first = runFixes(text);
  if (broken_before) {
    fuzz::require(first.text == text, "a file with syntax errors is never fixed");
    return 0;
  }
  fuzz::require(!analysis::ParsedFile::parse(first.text).hasSyntaxErrors(), "a fix added a syntax error");
  fuzz::require(!first.hit_pass_cap, "the fix loop did not converge", first.passes);
  fuzz::require(analysis::isValidUtf8(first.text), "fixed text is UTF-8");
  if (first.text != text && count(text, "\r\n") > 0 && count(text, "\n") == count(text, "\r\n"))
    fuzz::require(count(first.text, "\n") == count(first.text, "\r\n"), "CRLF file keeps CRLF line endings");

  quickfix::FixLoopResult second = runFixes(first.text);
  fuzz::require(second.text == first.text, "a second fix run changed the text", second.fixes_applied);
  return 0;
}
