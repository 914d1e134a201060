// `ptlint check --watch`: check, then re-check whenever a Python file or a configuration file
// under the checked paths changes (inotify), until interrupted.
#pragma once

#include <iosfwd>

#include "cli/check.h"

namespace ptlint::cli {

int runWatch(const CheckOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace ptlint::cli
