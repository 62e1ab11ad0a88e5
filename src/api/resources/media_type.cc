#include "api/resources/media_type.h"

#include <cctype>

#include "common/strings.h"

namespace etna::api::resources::internal {

namespace {

// Splits on `sep` outside double quotes.
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') quoted = !quoted;
    if (s[i] == sep && !quoted) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

}  // namespace

std::vector<MediaRange> ParseAccept(std::string_view accept) {
  std::vector<MediaRange> ranges;
  for (std::string_view entry : Split(accept, ',')) {
    std::vector<std::string_view> parts = Split(entry, ';');
    std::string_view type = Trim(parts[0]);
    if (type.empty()) continue;
    MediaRange range;
    range.type = Lower(type);
    for (size_t i = 1; i < parts.size(); ++i) {
      std::string_view param = Trim(parts[i]);
      size_t eq = param.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view value = Trim(param.substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      range.params[Lower(Trim(param.substr(0, eq)))] = std::string(value);
    }
    ranges.push_back(std::move(range));
  }
  return ranges;
}

bool AcceptsJson(const MediaRange& range) {
  return range.type == "application/json" || range.type == "application/*" || range.type == "*/*";
}

}  // namespace etna::api::resources::internal
