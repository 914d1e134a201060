// The server's own log: one line on stderr per message (stdout carries only LSP frames).
#pragma once

#include <string_view>

namespace ptlint::server {

// One write(2) per line: safe from any thread (std::cerr is not, once unsynchronised from stdio).
void logToStderr(std::string_view message);

}  // namespace ptlint::server
