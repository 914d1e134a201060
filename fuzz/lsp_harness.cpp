#include "fuzz/lsp_harness.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <mutex>
#include <csignal>
#include <thread>

#include "server/lsp_server.h"
#include "server/transport.h"

namespace ptlint::fuzz {

std::string frame(const std::string& body) { return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body; }

ServerRun runServerOn(const std::string& input) { return runServerOn(input, "", {}); }

ServerRun runServerOn(const std::string& input, const std::string& tail,
                      const std::function<bool(const std::string&)>& ready) {
  std::signal(SIGPIPE, SIG_IGN);
  int to_server[2], from_server[2];
  if (::pipe2(to_server, O_CLOEXEC) != 0 || ::pipe2(from_server, O_CLOEXEC) != 0) std::abort();

  std::mutex output_mutex;
  std::string output;
  std::thread writer([&] {
    auto writeAll = [&](const std::string& bytes) {
      size_t done = 0;
      while (done < bytes.size()) {
        ssize_t n = ::write(to_server[1], bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // the server stopped reading (exit)
        done += static_cast<size_t>(n);
      }
    };
    writeAll(input);
    if (ready) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (std::chrono::steady_clock::now() < deadline) {
        {
          std::lock_guard lock(output_mutex);
          if (ready(output)) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
    writeAll(tail);
    ::close(to_server[1]);
  });
  std::thread reader([&] {
    char buffer[65536];
    for (;;) {
      ssize_t n = ::read(from_server[0], buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard lock(output_mutex);
      output.append(buffer, static_cast<size_t>(n));
    }
    ::close(from_server[0]);
  });

  ServerRun run;
  run.exit_code = server::runServer(to_server[0], from_server[1]);
  ::close(to_server[0]);  // a writer still blocked on a full pipe now gets EPIPE
  ::close(from_server[1]);
  writer.join();
  reader.join();

  // The server's output must be nothing but well-formed frames.
  server::FrameParser parser(size_t(1) << 30);
  parser.feed(output);
  size_t framed = 0;
  while (auto event = parser.next()) {
    if (!event->ok) {
      run.framing_error = event->error;
      break;
    }
    framed += frame(event->body).size();
    run.bodies.push_back(std::move(event->body));
  }
  if (run.framing_error.empty() && framed != output.size()) run.framing_error = "bytes outside frames";
  return run;
}

}  // namespace ptlint::fuzz
