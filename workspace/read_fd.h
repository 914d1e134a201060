// One read loop for the files the workspace reads through a descriptor (sources, configuration,
// caches): reads until `buffer` is full or the file ends, retrying interrupted reads.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <string>

namespace ptlint::workspace {

// Fills `buffer` (sized by the caller, usually from fstat) and shrinks it to what was read, so a
// file that shrank meanwhile gives its shorter content. False on a read error, with errno set.
inline bool readToFill(int fd, std::string& buffer) {
  size_t done = 0;
  while (done < buffer.size()) {
    ssize_t n = ::read(fd, buffer.data() + done, buffer.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      buffer.resize(done);
      return false;
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  buffer.resize(done);
  return true;
}

}  // namespace ptlint::workspace
