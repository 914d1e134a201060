// Checks and repairs on a message's JSON text before it is parsed (pure functions, tested
// without a process).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ptlint::server {

// Deepest nesting of arrays and objects in a JSON text (strings skipped). nlohmann::json copies
// values recursively, so a message nested 100,000 deep would overflow the stack: such messages
// are refused before they are parsed. Real LSP messages nest about ten deep.
size_t jsonNestingDepth(std::string_view text);

// Replaces every `\uXXXX` escape of a lone UTF-16 surrogate inside a JSON string (a high
// surrogate not followed by a low one, or a low one alone) with `\ufffd`, as lenient decoders
// (JavaScript's, Python's with errors="replace") read it. Editors send such text when a buffer
// holds half of a surrogate pair; strict parsers reject the whole message. U+FFFD is one UTF-16
// code unit like the surrogate it replaces, so the client's UTF-16 positions stay valid.
// Returns the number of escapes replaced.
size_t replaceLoneSurrogateEscapes(std::string& text);

// The first `"key": "value"` in a text that may not be valid JSON, when the value has no escapes
// (used to find which document a broken didChange was for). nullopt when there is none.
std::optional<std::string> findStringMember(std::string_view text, std::string_view key);

}  // namespace ptlint::server
