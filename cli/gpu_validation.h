// `ptlint check --gpu-check`: every PTL601 finding whose fix is offered is handed to
// `ptlint-gpu` (gpu_check/client.h), which runs the recognised pattern and its
// scaled_dot_product_attention rewrite on random inputs. The result becomes the finding's
// "validation" object (docs/gpu_check.md); a rewrite found not equivalent loses its fix and says why.
#pragma once

#include <ostream>
#include <vector>

#include "cli/report.h"

namespace ptlint::cli {

// One `ptlint-gpu` process for all files. Without it, a warning on `err` says why and the
// findings are reported unvalidated.
void validateAttentionFixes(std::vector<FileReport>& reports, std::ostream& err);

}  // namespace ptlint::cli
