// Runs the language server in-process (`server::runServer` on a pair of pipes) over a byte
// string of client input, and collects what it wrote, split into frames.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ptlint::fuzz {

struct ServerRun {
  int exit_code = -1;
  std::vector<std::string> bodies;  // every frame the server sent, in order
  std::string framing_error;        // non-empty when the output was not clean frames
};

// Feeds `input` to the server (from a writer thread, so large inputs do not deadlock on the
// pipe) and reads its output until it closes. End of input ends the session.
ServerRun runServerOn(const std::string& input);

// The same, but `tail` (e.g. shutdown + exit) is sent only once `ready(output so far)` holds (or
// after 10 s), so that requests in flight are answered before the session ends.
ServerRun runServerOn(const std::string& input, const std::string& tail,
                      const std::function<bool(const std::string&)>& ready);

// `Content-Length` framing of one message body.
std::string frame(const std::string& body);

}  // namespace ptlint::fuzz
