// Lint a source text with one rule selected, optionally at a torch-version floor: the shape of
// the tests that check what a rule's messages say.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "rules/linter.h"

namespace ptlint::lint_source {

inline std::vector<rules::Diagnostic> lint(const std::string& source, std::string code,
                                           std::string torch_version = "") {
  rules::Settings settings;
  settings.select = {std::move(code)};
  if (!torch_version.empty()) {
    auto version = rules::TorchVersion::parse(torch_version);
    EXPECT_TRUE(version.has_value());
    if (version) settings.torch_version = *version;
  }
  return rules::lintFile(analysis::ParsedFile::parse(source), settings).diagnostics;
}

inline bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

}  // namespace ptlint::lint_source
