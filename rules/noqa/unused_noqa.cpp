#include "rules/noqa/unused_noqa.h"

#include <fmt/format.h>

#include <algorithm>

#include "rules/registry.h"

namespace ptlint::rules {
namespace {

constexpr RuleMeta kUnusedNoqa{
    .code = "PTL001",
    .name = "unused-noqa",
    .summary = "A `# noqa` code that suppresses nothing, or names no rule",
    .fix = FixAvailability::Always,
    .fix_applicability = quickfix::Applicability::Safe,
    .severity = Severity::Warning,
    .enabled_by_default = false,
    .since_torch = "",
    .docs = R"md(
## What it does
Checks `# noqa: PTL...` comments for codes that do not suppress anything on their line:
- *unused*: the rule is enabled but reports nothing on that line (the code was fixed, or moved);
- *non-enabled*: no enabled rule has that code, so the comment has no effect;
- *unknown*: no ptlint rule has that code or prefix (a typo such as `PTL10l`).

Only codes that start with `PTL` are checked: codes of other tools (`# noqa: F401`, `E501`) and a
bare `# noqa` are left alone, since they may serve another linter. File-level
`# ptlint: noqa` comments are not checked.

This rule is off by default (as Ruff's `RUF100`); enable it with `--extend-select PTL001` or
`extend-select = ["PTL001"]`.

## Why is this bad?
A suppression that suppresses nothing hides the next real finding on that line, and a mistyped
code silently suppresses nothing at all while looking as if it did.

## Example
```python
scaler = torch.amp.GradScaler("cuda")  # noqa: PTL101
```

## Use instead
```python
scaler = torch.amp.GradScaler("cuda")
```

## Fix safety
The fix removes the codes that have no effect, or the whole `# noqa` section when none is left;
it never changes code, so it is safe.

## Releases
No PyTorch premise: suppression comments are ptlint's own, at every release.

## References
- [Ruff: unused-noqa (RUF100)](https://docs.astral.sh/ruff/rules/unused-noqa/)
)md"};

bool isBlank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t'; });
}

std::string joinCodes(const std::vector<std::string>& codes) {
  std::string out;
  for (const auto& c : codes) out += (out.empty() ? "`" : ", `") + c + "`";
  return out;
}

}  // namespace

const RuleMeta& unusedNoqaMeta() { return kUnusedNoqa; }

void reportUnusedNoqa(const analysis::ParsedFile& file, const Settings& settings, const analysis::NoqaIndex& noqa,
                      const std::vector<Diagnostic>& findings, std::vector<Diagnostic>& out) {
  std::string_view source = file.text();
  const auto metas = allMetas();
  // Rows in ascending order: stable output.
  std::vector<uint32_t> rows;
  for (const auto& [row, directive] : noqa.directives())
    if (!directive.all) rows.push_back(row);
  std::sort(rows.begin(), rows.end());
  for (uint32_t row : rows) {
    const analysis::NoqaDirective& directive = noqa.directives().at(row);
    if (directive.code_ranges.size() != directive.codes.size()) continue;
    std::vector<std::string> unused, disabled, unknown, kept;
    for (const std::string& code : directive.codes) {
      if (!code.starts_with("PTL") || code == kUnusedNoqa.code) {
        kept.push_back(code);
        continue;
      }
      bool known = false, enabled = false;
      for (const RuleMeta* meta : metas) {
        if (!analysis::codeMatches(code, meta->code)) continue;
        known = true;
        if (meta->code != kUnusedNoqa.code && settings.isEnabled(meta->code, meta->enabled_by_default)) enabled = true;
      }
      bool used = std::any_of(findings.begin(), findings.end(), [&](const Diagnostic& d) {
        return d.code != kUnusedNoqa.code && file.lines().lineOf(d.start) == row && analysis::codeMatches(code, d.code);
      });
      if (!known) unknown.push_back(code);
      else if (used) kept.push_back(code);
      else if (!enabled) disabled.push_back(code);
      else unused.push_back(code);
    }
    if (unused.empty() && disabled.empty() && unknown.empty()) continue;

    std::vector<std::string> parts;
    if (!unused.empty()) parts.push_back("unused: " + joinCodes(unused));
    if (!disabled.empty()) parts.push_back("non-enabled: " + joinCodes(disabled));
    if (!unknown.empty()) parts.push_back("unknown: " + joinCodes(unknown));
    std::string detail;
    for (const auto& p : parts) detail += (detail.empty() ? "" : "; ") + p;

    Diagnostic d;
    d.code = kUnusedNoqa.code;
    d.severity = kUnusedNoqa.severity;
    d.message = fmt::format("Unused `noqa` directive ({})", detail);
    d.start = directive.section_start;
    d.end = directive.section_end;
    quickfix::Fix fix;
    fix.applicability = quickfix::Applicability::Safe;
    if (!kept.empty()) {
      // Keep the codes that still do something, in their order.
      std::string content;
      for (const auto& c : kept) content += (content.empty() ? "" : ", ") + c;
      fix.message = "Remove unused `noqa` codes";
      fix.edits.push_back({directive.code_ranges.front().first, directive.code_ranges.back().second, content});
    } else {
      fix.message = "Remove unused `noqa` directive";
      std::string_view rest = source.substr(directive.section_end, directive.comment_end - directive.section_end);
      uint32_t start = directive.section_start;
      if (directive.section_start == directive.comment_start && !isBlank(rest)) {
        // `# noqa: PTL101 because ...`: keep the explanation as a plain comment.
        fix.edits.push_back({directive.section_start, directive.section_end, "#"});
      } else {
        while (start > 0 && (source[start - 1] == ' ' || source[start - 1] == '\t')) --start;
        // Removing a whole comment that sits alone on its line leaves its indentation: keep it.
        uint32_t line_start = file.lines().lineStart(row);
        if (start == line_start) start = directive.section_start;
        uint32_t end = isBlank(rest) ? directive.comment_end : directive.section_end;
        fix.edits.push_back({start, end, ""});
      }
    }
    d.fix = std::move(fix);
    out.push_back(std::move(d));
  }
}

}  // namespace ptlint::rules
