// Dynamo's process-wide configuration as a module sets it: does running the module (or some
// function of it) turn on `torch._dynamo.config.capture_scalar_outputs`, under which Dynamo
// captures `.item()` as a symbolic scalar instead of breaking the graph?
//
// A setting: `<torch's dynamo config>.capture_scalar_outputs = v` anywhere in the module (at
// module level, in a function, under a condition), `setattr(config, "capture_scalar_outputs", v)`,
// the key or keyword `capture_scalar_outputs` given to anything but `patch(...)`
// (`config.load_config({...})`), and the environment variable
// `TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS`, which `torch/_dynamo/config.py` reads when it is first
// imported (PyTorch 2.6 and 2.14: `os.environ.get(...) == "1"`), set in code
// (analysis/environment_writes.h). `v` counts unless it is a literal that is false (`False`,
// `None`, `0`): a value the module computes (`args.capture`) may be true, and precision first
// takes it as set. `config.patch(capture_scalar_outputs=True)` as a context manager or decorator
// is scoped to what it wraps, and is not a process-wide setting.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "analysis/semantic_model.h"

namespace ptlint::analysis {

// Before parsing: may the text hold such a setting (spells the option or the variable)?
bool mayHoldCaptureSetting(std::string_view text);

// May `value`, assigned to the option, be true (anything but a literal `False`, `None`, `0`)?
bool mayTurnCaptureOn(TSNode value, std::string_view source);

// The bytes [start, end) of the module's first process-wide setting that may turn the capture
// on, or nullopt. Walks the tree only when the text spells the option or the variable.
std::optional<std::pair<uint32_t, uint32_t>> processWideCaptureSetting(const SemanticModel& model);

}  // namespace ptlint::analysis
