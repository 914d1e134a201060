// Does a module set an environment variable in code, or only mention it? Read from the tree
// alone (no names resolved), so that a rule can ask before any model is built.
//
// A set: `os.environ["X"] = v`, `env["X"] = v` (a child process's environment), a first argument
// of `setdefault` / `putenv` / `setenv` (`os.environ.setdefault("X", v)`,
// `monkeypatch.setenv("X", v)`), a key of a dict literal (`{"X": v}`, applied with
// `os.environ.update(d)`, `os.environ.setdefault(k, v)` over its items, or given as `env=`),
// a keyword `X=` (`os.environ.update(X=v)`). Not a set: the name in a comment, in a longer
// string (a log line, a docstring), a read (`os.environ.get("X")`, `os.getenv("X")`,
// `os.environ["X"]` loaded, `"X" in os.environ`, a logging call's argument), a deletion.
// Anything else that spells the name exactly (a constant `KEY = "X"`, a list of names) may set
// it through code the tree does not show, and counts as a set: precision first. A read that
// guards code by raising when the variable is missing (`if "X" not in os.environ: raise ...`)
// counts as a set too: what follows it runs with the variable set.
#pragma once

#include <string_view>

#include "analysis/parse.h"

namespace ptlint::analysis {

bool setsEnvironmentVariable(const ParsedFile& file, std::string_view variable);

}  // namespace ptlint::analysis
