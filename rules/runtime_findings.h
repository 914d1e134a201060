// What a real run of torch.compile said about one file (its graph breaks and recompiles, read
// from the run's logs by workspace/compile_log.h and mapped to this file): plain data the
// runtime rules (PTL901, PTL902) turn into diagnostics. Lines are 1-based, as the logs give them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ptlint::rules {

struct RuntimeFinding {
  enum class Kind { GraphBreak, Recompile };
  Kind kind = Kind::GraphBreak;
  uint32_t line = 0;         // 1-based line the finding is reported on
  // PTL902 without a guard location: `line` is the function's first line (`co_firstlineno`: its
  // first decorator or its `def`), and the finding goes on the `def`'s name.
  bool at_def = false;
  std::string message;       // the whole message, provenance included
  // Lines of this file the finding also concerns (a graph break's callers), with a note each.
  std::vector<std::pair<uint32_t, std::string>> related;
};

struct RuntimeFindings {
  std::vector<RuntimeFinding> findings;
  std::string digest;  // changes whenever the findings do (the results cache's key)
};

}  // namespace ptlint::rules
