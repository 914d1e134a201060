// JSON-RPC framing over a pair of file descriptors (stdio): `Content-Length` headers, bodies
// of at most a fixed size. Knows bytes and frames, nothing of JSON or LSP.
//
// Input is read on the calling thread with standalone Asio; every complete frame is handed to
// a callback on that thread. Output may be sent from any thread: each frame is written whole
// under a lock, so frames never interleave. Nothing but frames is ever written to `out_fd`.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace ptlint::server {

inline constexpr size_t kMaxMessageBytes = 64u << 20;  // 64 MiB: ~40x the largest real file
inline constexpr size_t kMaxHeaderBytes = 8u << 10;

// Splits a byte stream into frames. Pure, so it is tested without pipes. After a bad frame it
// resynchronises on the next `Content-Length` header, so one garbled message costs one error.
class FrameParser {
 public:
  struct Event {
    bool ok = true;
    std::string body;   // ok: the message body
    std::string error;  // !ok: why the frame was rejected
  };

  explicit FrameParser(size_t max_message_bytes = kMaxMessageBytes) : max_message_bytes_(max_message_bytes) {}

  void feed(std::string_view bytes);
  // The next complete frame or error, if any.
  std::optional<Event> next();

 private:
  enum class State { Header, Body, Skip, Resync };
  std::string_view pending() const { return std::string_view(buffer_).substr(consumed_); }
  void consume(size_t n);

  size_t max_message_bytes_;
  std::string buffer_;
  size_t consumed_ = 0;
  State state_ = State::Header;
  size_t body_length_ = 0;
};

class Transport {
 public:
  Transport(int in_fd, int out_fd, size_t max_message_bytes = kMaxMessageBytes);

  // Reads until end of input or stop(); returns then. `on_frame(event)` runs on this thread.
  void run(const std::function<void(FrameParser::Event)>& on_frame);
  // Makes run() return after the current frame (called from a frame callback).
  void stop() { stopped_ = true; }

  // Frames and writes one message. Thread-safe; returns false once output is broken.
  bool send(std::string_view body);

 private:
  int in_fd_, out_fd_;
  FrameParser parser_;
  bool stopped_ = false;
  std::mutex out_mutex_;
  bool out_broken_ = false;
};

}  // namespace ptlint::server
