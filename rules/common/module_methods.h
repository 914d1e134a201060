// Questions about the methods of `nn.Module` subclasses that the train/eval rules share: is this
// call in a method of a module, does the method (or its class) decide by `self.training`, what
// does a `self.<attr>` read hold. Syntactic plus the semantic model's names; per file.
#pragma once

#include <tree_sitter/api.h>

#include <string>

#include "analysis/semantic_model.h"

namespace ptlint::rules {

// The method (a def directly in a class body) whose body holds `node`, through nested defs and
// lambdas inside it; null when `node` is not inside a method.
TSNode enclosingMethod(TSNode node);

// The class a method is defined in (under its decorators), or null.
TSNode classOfMethod(TSNode method);

// True when the class derives from `torch.nn.Module` as far as this file shows: a base that
// resolves to `torch.nn.*` (`nn.Module`, `nn.Sequential`, ...), to Lightning's module, or to a
// class of this file that does so itself. A base the file cannot resolve is not assumed.
bool isTorchModuleClass(const analysis::SemanticModel& model, TSNode cls);

// True when the subtree spells the identifier `training` (`self.training`, a `training`
// parameter, `module.training`): the code chooses by train/eval mode there.
bool mentionsTraining(TSNode node, std::string_view source);

// True when the class defines a method named `name` (`train`, `eval`: it may switch its own
// attributes with the mode).
bool classDefinesMethod(TSNode cls, std::string_view name, std::string_view source);

// The method of a module class that holds `call` and decides nothing by `training`, with the
// class, when a train/eval rule may report there: in a method of an `nn.Module` subclass whose
// body never spells `training` and whose class does not override `train` or `eval`.
struct ModeBlindMethod {
  TSNode method{};
  TSNode cls{};
  std::string self;  // the method's first parameter
};
bool modeBlindModuleMethod(const analysis::SemanticModel& model, TSNode call, ModeBlindMethod& out);

}  // namespace ptlint::rules
