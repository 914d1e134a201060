#include "server/log.h"

#include <unistd.h>

#include <cerrno>
#include <string>

namespace ptlint::server {

void logToStderr(std::string_view message) {
  std::string line = "ptlint-lsp: ";
  line.append(message);
  line += '\n';
  for (size_t done = 0; done < line.size();) {
    ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace ptlint::server
