// Where a fix puts what it adds at module level: imports, and statements that must run before
// any other code of the module. Every fix that adds an import goes through here, so that an
// import lands with the file's own imports (never above a licence header, a shebang, an encoding
// line, the docstring or `from __future__` imports), joins an existing `from x import ...`, and
// is never hoisted to module level when the file imports that package only where it may be
// missing (inside a function, a `try`, an `if TYPE_CHECKING:`).
#pragma once

#include <optional>
#include <string_view>

#include "analysis/semantic_model.h"
#include "quickfix/fix.h"

namespace ptlint::quickfix {

// The byte where a new top-level statement goes: the start of the line after the file's leading
// imports (the unconditional `import` / `from ... import` statements that follow the docstring,
// the leading comment block and `from __future__` imports), else after those, else at the first
// statement. `at_end` is set when that is the end of a file without a final line break.
uint32_t moduleInsertionPoint(const analysis::ParsedFile& file, bool* at_end = nullptr);

// The edit that adds `statement` ("import os", "import torch.func", "from torchvision.models
// import VGG16_Weights") to the file's imports: a name joins an existing unconditional
// top-level `from <module> import ...` of the leading imports; otherwise a line of its own after
// the last leading import. nullopt when the file imports that package only inside a function,
// a `try`, or an `if` block: it may be optional there, and a module-level import would make
// importing the file fail without it.
std::optional<Edit> addImport(const analysis::SemanticModel& model, std::string_view statement);

// The edit that puts `statement` (one line, no line break) at module level right after the
// leading imports, where it runs before any other code of the module.
Edit addModuleStatement(const analysis::ParsedFile& file, std::string_view statement);

// How the code at `at` can already name `qualified` without a new import: a name bound to it
// (`VGG16_Weights`), or to a module above it followed by the rest (`models.VGG16_Weights` after
// `from torchvision import models` in the same function). Imports bound after `at` at module
// level do not count. Callers reuse this before adding an import.
std::optional<std::string> visibleSpelling(const analysis::SemanticModel& model, std::string_view qualified, TSNode at);

// True when the file binds some import of `package` (its first dotted component) but none at
// module level outside any block: the package is imported lazily or conditionally.
bool importedOnlyInBlocks(const analysis::SemanticModel& model, std::string_view package);

}  // namespace ptlint::quickfix
