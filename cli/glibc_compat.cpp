// Keeps the self-contained `ptlint` within glibc 2.35 (Ubuntu 22.04). glibc 2.36 added
// arc4random, and a libstdc++ built against it calls it from std::random_device (random.o, which
// <random>'s explicit instantiations pull in); linked statically, that one reference would make
// the executable need glibc 2.36. This definition, in the executable itself, satisfies it with
// getrandom(2) (glibc 2.25) instead. Linked only with PTLINT_STATIC_RUNTIME.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>

extern "C" uint32_t arc4random(void) noexcept {
  uint32_t value = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  size_t got = 0;
  while (got < sizeof value) {
    ssize_t n = getrandom(bytes + got, sizeof value - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      __builtin_trap();  // arc4random cannot fail; neither may this
    }
    got += static_cast<size_t>(n);
  }
  return value;
}
