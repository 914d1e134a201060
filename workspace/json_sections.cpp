#include "workspace/json_sections.h"

#include <algorithm>

namespace ptlint::workspace {
namespace {

using json = nlohmann::json;

// Levels: 1 is the document's object, 2 a top-level member's value (a section), 3 a section
// member's value; deeper containers are built inside the member.
class SectionSax : public nlohmann::json_sax<json> {
 public:
  explicit SectionSax(const JsonSections& reader) : reader_(reader) {}

  bool null() override { return value(json(nullptr)); }
  bool boolean(bool v) override { return value(json(v)); }
  bool number_integer(number_integer_t v) override { return value(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return value(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return value(json(v)); }
  bool string(string_t& v) override { return value(json(std::move(v))); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return level_ == 0 ? false : open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (level_ == 1) top_key_ = k;
    else if (level_ == 2 && section_) member_name_ = k;
    else if (level_ >= 3 && section_) key_ = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool building() const { return section_ && level_ >= 3; }

  // Adds `v` to the member being built; the slot it went to.
  json* insert(json v) {
    if (++values_ > reader_.max_member_values) return nullptr;
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    json& slot = top[key_];
    slot = std::move(v);
    return &slot;
  }

  bool value(json v) {
    if (building()) return insert(std::move(v)) != nullptr;
    if (level_ == 2 && section_) return !reader_.on_member || reader_.on_member(top_key_, member_name_, std::move(v));
    if (level_ == 1) return !reader_.on_scalar || reader_.on_scalar(top_key_, v);
    return true;  // inside a top-level value no one asked for
  }

  bool open(json container) {
    ++level_;
    if (level_ == 2) {
      section_ = container.is_object() &&
                 std::find(reader_.sections.begin(), reader_.sections.end(), top_key_) != reader_.sections.end();
    } else if (level_ == 3 && section_) {
      member_ = std::move(container);
      values_ = 0;
      stack_.assign(1, &member_);
    } else if (building()) {
      json* slot = insert(std::move(container));
      if (slot == nullptr) return false;
      stack_.push_back(slot);
    }
    return true;
  }

  bool close() {
    bool ok = true;
    if (building()) {
      stack_.pop_back();
      if (stack_.empty() && reader_.on_member) ok = reader_.on_member(top_key_, member_name_, std::move(member_));
    } else if (level_ == 2) {
      section_ = false;
    }
    --level_;
    return ok;
  }

  const JsonSections& reader_;
  size_t level_ = 0;
  bool section_ = false;
  std::string top_key_, member_name_, key_;
  json member_;
  std::vector<json*> stack_;
  size_t values_ = 0;
};

}  // namespace

bool readJsonSections(std::FILE* file, const JsonSections& reader) {
  // Read whole first: nlohmann's FILE adapter takes one locked fgetc per byte, several times
  // slower than parsing from memory. The text costs a byte per byte, the DOM it avoids ~30.
  std::string text;
  try {
    char buffer[1 << 16];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, n);
  } catch (const std::bad_alloc&) {
    return false;
  }
  if (std::ferror(file)) return false;
  return readJsonSections(text, reader);
}

bool readJsonSections(const std::string& text, const JsonSections& reader) {
  SectionSax sax(reader);
  try {
    return json::sax_parse(text, &sax);
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace ptlint::workspace
