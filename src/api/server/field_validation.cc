#include "api/server/field_validation.h"

#include <fmt/format.h>

#include "api/resources/schema.h"

namespace etna::api::server {

using nlohmann::json;

std::optional<ApiError> ParseFieldValidation(std::string_view value, FieldValidation* out) {
  if (value.empty()) {
    out->mode = "Warn";
  } else if (value == "Strict" || value == "Warn" || value == "Ignore") {
    out->mode = std::string(value);
  } else {
    return ApiError::BadRequest(fmt::format(
        "fieldValidation: Unsupported value: \"{}\": supported values: \"Ignore\", \"Warn\", "
        "\"Strict\"",
        value));
  }
  return std::nullopt;
}

void RemoveFieldPath(json& object, std::string_view path) {
  json* node = &object;
  size_t pos = 0;
  while (pos < path.size() && node) {
    if (path[pos] == '[') {
      size_t close = path.find(']', pos);
      if (close == std::string_view::npos || !node->is_array()) return;
      size_t index = std::stoul(std::string(path.substr(pos + 1, close - pos - 1)));
      if (index >= node->size()) return;
      node = &(*node)[index];
      pos = close + 1;
      if (pos < path.size() && path[pos] == '.') ++pos;
      continue;
    }
    size_t end = path.find_first_of(".[", pos);
    std::string key(
        path.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    if (!node->is_object()) return;
    if (end == std::string_view::npos) {
      node->erase(key);
      return;
    }
    auto it = node->find(key);
    if (it == node->end()) return;
    node = &*it;
    pos = path[end] == '.' ? end + 1 : end;
  }
}

std::optional<ApiError> CheckFields(const resources::ResourceInfo& info, json& object,
                                    FieldValidation& validation) {
  std::vector<std::string> unknown = resources::UnknownFields(info, object);
  if (unknown.empty()) return std::nullopt;
  if (validation.mode == "Strict") {
    std::string message = "strict decoding error: ";
    for (size_t i = 0; i < unknown.size(); ++i) {
      if (i) message += ", ";
      message += fmt::format("unknown field \"{}\"", unknown[i]);
    }
    return ApiError::BadRequest(message);
  }
  // Deepest first, so removing one path never moves another.
  for (auto it = unknown.rbegin(); it != unknown.rend(); ++it) RemoveFieldPath(object, *it);
  if (validation.mode == "Warn") {
    for (const auto& field : unknown) {
      validation.warnings.push_back(fmt::format("unknown field \"{}\"", field));
    }
  }
  return std::nullopt;
}

}  // namespace etna::api::server
