// Reads the caches' JSON (`{"build": ..., "entries": {"<path>": {...}, ...}}`) member by member
// with nlohmann's SAX interface: each member of the named top-level objects is built alone,
// handed over and dropped, so memory follows what the caller keeps, never a DOM of the whole
// file (about 30 bytes per byte of JSON). A document of another shape, invalid JSON, or a member
// past `max_member_values` values stops the read (false).
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptlint::workspace {

struct JsonSections {
  std::vector<std::string> sections;  // top-level keys whose members are handed over one by one
  // A top-level scalar (`"build": "..."`); false stops the read (a foreign build).
  std::function<bool(const std::string& key, const nlohmann::json& value)> on_scalar;
  // One member of a section; false stops the read.
  std::function<bool(const std::string& section, const std::string& name, nlohmann::json value)> on_member;
  size_t max_member_values = 1u << 23;
};

// Reads from `file` (not closed; read whole into memory first). True when the whole document was read.
bool readJsonSections(std::FILE* file, const JsonSections& reader);
bool readJsonSections(const std::string& text, const JsonSections& reader);

}  // namespace ptlint::workspace
