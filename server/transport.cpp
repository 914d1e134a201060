#include "server/transport.h"

#include <asio.hpp>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <csignal>

namespace ptlint::server {
namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

size_t findIgnoreCase(std::string_view haystack, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i)
    if (equalsIgnoreCase(haystack.substr(i, needle.size()), needle)) return i;
  return std::string_view::npos;
}

}  // namespace

void FrameParser::feed(std::string_view bytes) {
  // Compact lazily: only when the consumed prefix dominates, so big frames are not re-copied.
  if (consumed_ > 0 && consumed_ >= buffer_.size() / 2) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  buffer_.append(bytes);
}

void FrameParser::consume(size_t n) { consumed_ += n; }

std::optional<FrameParser::Event> FrameParser::next() {
  for (;;) {
    std::string_view data = pending();
    switch (state_) {
      case State::Resync: {
        size_t at = findIgnoreCase(data, "Content-Length");
        if (at == std::string_view::npos) {
          // Keep a tail that could be the start of the header.
          if (data.size() > 16) consume(data.size() - 16);
          return std::nullopt;
        }
        consume(at);
        state_ = State::Header;
        continue;
      }
      case State::Skip: {
        size_t n = std::min(body_length_, data.size());
        consume(n);
        body_length_ -= n;
        if (body_length_ > 0) return std::nullopt;
        state_ = State::Header;
        continue;
      }
      case State::Body: {
        if (data.size() < body_length_) return std::nullopt;
        Event event{true, std::string(data.substr(0, body_length_)), {}};
        consume(body_length_);
        state_ = State::Header;
        return event;
      }
      case State::Header: {
        // Stray line breaks between frames are tolerated (some clients send them).
        while (!data.empty() && (data.front() == '\r' || data.front() == '\n')) {
          consume(1);
          data.remove_prefix(1);
        }
        size_t end = data.find("\r\n\r\n");
        if (end == std::string_view::npos) {
          if (data.size() > kMaxHeaderBytes) {
            consume(data.size());
            state_ = State::Resync;
            return Event{false, {}, "header too long"};
          }
          return std::nullopt;
        }
        std::string_view header = data.substr(0, end);
        consume(end + 4);
        std::optional<size_t> length;
        std::string error;
        for (size_t pos = 0; pos <= header.size();) {
          size_t eol = header.find("\r\n", pos);
          if (eol == std::string_view::npos) eol = header.size();
          std::string_view line = header.substr(pos, eol - pos);
          pos = eol + 2;
          size_t colon = line.find(':');
          if (colon == std::string_view::npos) {
            error = "malformed header line";
            break;
          }
          if (equalsIgnoreCase(trim(line.substr(0, colon)), "Content-Length")) {
            std::string_view value = trim(line.substr(colon + 1));
            size_t n = 0;
            auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
            if (ec != std::errc() || ptr != value.data() + value.size() || value.empty()) {
              error = "bad Content-Length";
              break;
            }
            length = n;
          }
        }
        if (error.empty() && !length) error = "missing Content-Length";
        if (!error.empty()) {
          state_ = State::Resync;
          return Event{false, {}, error};
        }
        body_length_ = *length;
        if (body_length_ > max_message_bytes_) {
          state_ = State::Skip;  // read past the body so that the next frame is served
          return Event{false, {}, "message of " + std::to_string(body_length_) + " bytes exceeds the limit of " +
                                      std::to_string(max_message_bytes_)};
        }
        state_ = State::Body;
        continue;
      }
    }
  }
}

Transport::Transport(int in_fd, int out_fd, size_t max_message_bytes)
    : in_fd_(in_fd), out_fd_(out_fd), parser_(max_message_bytes) {
  // A client that goes away must not kill the server with SIGPIPE: writes just fail.
  std::signal(SIGPIPE, SIG_IGN);
}

void Transport::run(const std::function<void(FrameParser::Event)>& on_frame) {
  asio::io_context io;
  asio::posix::stream_descriptor input(io);
  asio::error_code ec;
  input.assign(::dup(in_fd_), ec);
  std::array<char, 64 * 1024> chunk;

  std::function<void()> read_more = [&] {
    input.async_read_some(asio::buffer(chunk), [&](const asio::error_code& error, size_t n) {
      if (n > 0) {
        parser_.feed(std::string_view(chunk.data(), n));
        while (!stopped_) {
          auto event = parser_.next();
          if (!event) break;
          on_frame(std::move(*event));
        }
      }
      if (error || stopped_) return;  // end of input, or exit: run() returns
      read_more();
    });
  };
  if (!ec) {
    read_more();
    io.run();
    return;
  }
  // Not a descriptor Asio can wait on: plain blocking reads do the same job.
  while (!stopped_) {
    ssize_t n = ::read(in_fd_, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    parser_.feed(std::string_view(chunk.data(), static_cast<size_t>(n)));
    while (!stopped_) {
      auto event = parser_.next();
      if (!event) break;
      on_frame(std::move(*event));
    }
  }
}

bool Transport::send(std::string_view body) {
  std::string frame = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  frame.append(body);
  std::lock_guard lock(out_mutex_);
  if (out_broken_) return false;
  size_t written = 0;
  while (written < frame.size()) {
    ssize_t n = ::write(out_fd_, frame.data() + written, frame.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      out_broken_ = true;
      return false;
    }
    written += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace ptlint::server
