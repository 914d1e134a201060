// `ptlint check --watch`: check, then re-check whenever a Python file, a notebook or a
// configuration file under the checked paths changes (inotify; cli/watch_events.h decides what
// each event means and when a re-check is due), until interrupted. Folders left unwatched at the
// watch limit are counted in a warning after every check and polled every 2 s; a queue overflow
// is a warning and a full re-check; a watched root folder that is removed or moved away ends the
// watch (exit 2).
#pragma once

#include <iosfwd>

#include "cli/check.h"

namespace ptlint::cli {

int runWatch(const CheckOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace ptlint::cli
