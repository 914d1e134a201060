#include "gpu_check/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

extern char** environ;

namespace ptlint::gpu_check {
namespace {

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

bool makePipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  read_end.fd = fds[0];
  write_end.fd = fds[1];
  return true;
}

// Writing to a child that already exited raises SIGPIPE, which would kill `ptlint`. Block it on
// this thread for the exchange and drop any that became pending (EPIPE is handled instead).
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~SigpipeBlock() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    timespec zero{0, 0};
    while (sigtimedwait(&set, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t old_;
};

}  // namespace

ChildResult runChild(const std::vector<std::string>& argv, const std::string& input,
                     std::chrono::milliseconds timeout) {
  ChildResult result;
  if (argv.empty()) {
    result.error = "no program given";
    return result;
  }
  Fd in_read, in_write, out_read, out_write, err_read, err_write;
  if (!makePipe(in_read, in_write) || !makePipe(out_read, out_write) || !makePipe(err_read, err_write)) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.fd, 2);
  // The child gets default SIGPIPE handling and an empty signal mask whatever ours are.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  SigpipeBlock block_sigpipe;
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0].c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    result.error = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return result;
  }
  result.started = true;
  in_read.reset();
  out_write.reset();
  err_write.reset();
  for (Fd* fd : {&in_write, &out_read, &err_read}) ::fcntl(fd->fd, F_SETFL, ::fcntl(fd->fd, F_GETFL) | O_NONBLOCK);

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  size_t written = 0;
  if (input.empty()) in_write.reset();
  char buffer[65536];
  while (out_read.fd >= 0 || err_read.fd >= 0) {
    pollfd fds[3];
    int n = 0;
    int in_slot = -1, out_slot = -1, err_slot = -1;
    if (in_write.fd >= 0) fds[in_slot = n++] = {in_write.fd, POLLOUT, 0};
    if (out_read.fd >= 0) fds[out_slot = n++] = {out_read.fd, POLLIN, 0};
    if (err_read.fd >= 0) fds[err_slot = n++] = {err_read.fd, POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      break;
    }
    int ready = ::poll(fds, n, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      result.error = std::string("poll: ") + std::strerror(errno);
      break;
    }
    if (in_slot >= 0 && fds[in_slot].revents) {
      ssize_t w = ::write(in_write.fd, input.data() + written, input.size() - written);
      if (w > 0) written += static_cast<size_t>(w);
      if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) in_write.reset();
    }
    auto drain = [&](int slot, Fd& fd, std::string& sink) {
      if (slot < 0 || !fds[slot].revents) return;
      ssize_t r = ::read(fd.fd, buffer, sizeof buffer);
      if (r > 0) {
        if (sink.size() < kMaxCapture) sink.append(buffer, std::min(static_cast<size_t>(r), kMaxCapture - sink.size()));
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        fd.reset();
      }
    };
    drain(out_slot, out_read, result.out);
    drain(err_slot, err_read, result.err);
  }
  in_write.reset();

  if (result.timed_out || !result.error.empty()) ::kill(pid, SIGKILL);
  // Both outputs closed does not mean the child is gone: wait for it up to the deadline too.
  int status = 0;
  for (;;) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (done == 0 && std::chrono::steady_clock::now() >= deadline && !result.timed_out) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
    }
    if (done == 0) ::usleep(2000);
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  return result;
}

}  // namespace ptlint::gpu_check
