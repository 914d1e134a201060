// Target: JSON-RPC framing and dispatch.
//  1. Arbitrary bytes into `FrameParser`, fed in uneven chunks: no crash, no body over the
//     limit, and the parser keeps going after every error.
//  2. The input cut into bodies, each framed correctly and fed in uneven chunks: exactly those
//     bodies come out, in order, whatever the chunking.
//  3. Those bodies sent to the whole server in-process: its output is only well-formed frames of
//     valid UTF-8 JSON, and every request (unique id) gets exactly one response, unless `exit`
//     ended the session first. `workspace/diagnostic` is not sent: it walks the disk.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/line_index.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/lsp_harness.h"
#include "server/transport.h"

using namespace ptlint;
using json = nlohmann::json;

namespace {

constexpr size_t kSmallLimit = 4096;

// Deterministic uneven chunk sizes (1..97 bytes) derived from the input.
std::vector<std::string_view> chunks(std::string_view bytes, uint32_t seed) {
  std::vector<std::string_view> out;
  uint32_t state = seed * 2654435761u + 1;
  while (!bytes.empty()) {
    state = state * 1664525u + 1013904223u;
    size_t n = std::min<size_t>(bytes.size(), 1 + (state >> 16) % 97);
    out.push_back(bytes.substr(0, n));
    bytes.remove_prefix(n);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);

  // 1. Raw bytes.
  {
    server::FrameParser parser(kSmallLimit);
    size_t events = 0;
    for (auto piece : chunks(input, static_cast<uint32_t>(size))) {
      parser.feed(piece);
      while (auto event = parser.next()) {
        if (event->ok) fuzz::require(event->body.size() <= kSmallLimit, "body over the limit");
        else fuzz::require(!event->error.empty(), "an error says why");
        fuzz::require(++events <= size + 1, "more events than input bytes");
      }
    }
  }

  // 2. Correct framing of arbitrary bodies survives any chunking.
  std::vector<std::string> bodies;
  for (size_t start = 0; start <= input.size();) {
    size_t cut = input.find('\xff', start);
    if (cut == std::string_view::npos) cut = input.size();
    bodies.emplace_back(input.substr(start, cut - start));
    start = cut + 1;
  }
  {
    std::string stream;
    for (const auto& body : bodies) stream += fuzz::frame(body);
    server::FrameParser parser(kSmallLimit);
    std::vector<std::string> got;
    for (auto piece : chunks(stream, static_cast<uint32_t>(bodies.size()))) {
      parser.feed(piece);
      while (auto event = parser.next()) {
        if (event->ok) got.push_back(event->body);
      }
    }
    size_t expected = 0;
    for (const auto& body : bodies) {
      if (body.size() > kSmallLimit) continue;
      fuzz::require(expected < got.size(), "a well-framed body was lost", static_cast<long>(expected));
      fuzz::require(got[expected] == body, "a well-framed body changed", static_cast<long>(expected));
      ++expected;
    }
    fuzz::require(expected == got.size(), "bodies from nowhere", static_cast<long>(got.size()));
  }

  // 3. Dispatch through the whole server.
  std::string stream;
  std::map<std::string, int> requests;  // id.dump() -> how often the input uses it
  bool exits = false;
  for (const auto& body : bodies) {
    json message = json::parse(body, nullptr, false);
    if (message.is_object()) {
      auto method = message.find("method");
      bool named = method != message.end() && method->is_string();
      if (named && *method == "workspace/diagnostic") continue;
      if (named && *method == "exit") exits = true;
      // Every message with an id that is not a response gets one answer: a request, or an
      // invalid one (`{"id": 1}` has no method and no result: it is answered too).
      bool response = method == message.end() && (message.contains("result") || message.contains("error"));
      auto id = message.find("id");
      if (!response && id != message.end() && (id->is_string() || id->is_number_integer())) ++requests[id->dump()];
    }
    stream += fuzz::frame(body);
  }
  fuzz::ServerRun run = fuzz::runServerOn(stream);
  fuzz::require(run.framing_error.empty(), "the server wrote something that is not a frame");
  std::map<std::string, int> responses;
  for (const auto& body : run.bodies) {
    fuzz::require(analysis::isValidUtf8(body), "server output is UTF-8");
    json message = json::parse(body, nullptr, false);
    fuzz::require(message.is_object(), "server output is a JSON object");
    fuzz::require(message.value("jsonrpc", "") == "2.0", "server output says jsonrpc 2.0");
    if (!message.contains("method") && message.contains("id") && !message["id"].is_null())
      ++responses[message["id"].dump()];
  }
  for (const auto& [id, n] : requests) {
    if (n != 1) continue;  // a repeated id may be answered once per use
    int got = responses.count(id) ? responses[id] : 0;
    fuzz::require(got <= 1, "a request was answered twice", got);
    if (!exits) fuzz::require(got == 1, "a request was never answered", got);
  }
  return 0;
}
