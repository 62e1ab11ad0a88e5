#include "store/compact_json_label.h"

#include <nlohmann/json.hpp>

namespace etna::store {
namespace {

// A cursor over JSON text that steps over whole values.
class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text) : s_(text) {}

  // Skips whitespace, then takes `c` when it is next.
  bool Take(char c) {
    SkipSpace();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // A string's text between its quotes, escapes as written; nullopt when no string is next.
  std::optional<std::string_view> String() {
    SkipSpace();
    if (i_ >= s_.size() || s_[i_] != '"') return std::nullopt;
    const size_t start = ++i_;
    while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
    if (i_ >= s_.size()) return std::nullopt;
    return s_.substr(start, i_++ - start);
  }
  // Steps over the next value; false when the text ends or is not JSON here.
  bool SkipValue() {
    SkipSpace();
    if (i_ >= s_.size()) return false;
    if (s_[i_] == '"') return String().has_value();
    if (s_[i_] != '{' && s_[i_] != '[') {  // a number or a literal
      const size_t start = i_;
      while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' &&
             !IsSpace(s_[i_])) {
        ++i_;
      }
      return i_ > start;
    }
    int depth = 0;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '"') {
        if (!String()) return false;
        continue;
      }
      ++i_;
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) return true;
    }
    return false;
  }
  // In an object (its '{' taken): steps to the value of member `name`; false when it has none.
  bool FindMember(std::string_view name) {
    if (Take('}')) return false;
    while (true) {
      std::optional<std::string_view> key = String();
      if (!key || !Take(':')) return false;
      if (*key == name) return true;
      if (!SkipValue()) return false;
      if (!Take(',')) return false;  // '}' or not JSON: no such member
    }
  }

 private:
  static bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  void SkipSpace() {
    while (i_ < s_.size() && IsSpace(s_[i_])) ++i_;
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

std::optional<std::string> MetadataLabel(std::string_view json, std::string_view label) {
  JsonCursor c(json);
  if (!c.Take('{') || !c.FindMember("metadata") || !c.Take('{') || !c.FindMember("labels") ||
      !c.Take('{') || !c.FindMember(label)) {
    return std::nullopt;
  }
  std::optional<std::string_view> value = c.String();
  if (!value) return std::nullopt;
  if (value->find('\\') == std::string_view::npos) return std::string(*value);
  // Escaped (not a valid label value, but stored all the same): decoded as JSON does.
  std::string quoted = "\"" + std::string(*value) + "\"";
  auto decoded = nlohmann::json::parse(quoted, nullptr, /*allow_exceptions=*/false);
  if (!decoded.is_string()) return std::nullopt;
  return decoded.get<std::string>();
}

}  // namespace etna::store
