#include "api/types/fields.h"

namespace etna::api::types {

const Json* Find(const Json& object, Path path) {
  const Json* cur = &object;
  for (std::string_view key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur->is_null() ? nullptr : cur;
}

std::string String(const Json& object, Path path, std::string_view fallback) {
  const Json* v = Find(object, path);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string(fallback);
}

int64_t Integer(const Json& object, Path path, int64_t fallback) {
  const Json* v = Find(object, path);
  if (v == nullptr || !v->is_number()) return fallback;
  if (v->is_number_float()) return static_cast<int64_t>(v->get<double>());
  return v->get<int64_t>();
}

std::optional<int64_t> IntegerIfSet(const Json& object, Path path) {
  const Json* v = Find(object, path);
  if (v == nullptr || !v->is_number_integer()) return std::nullopt;
  return v->get<int64_t>();
}

bool Bool(const Json& object, Path path, bool fallback) {
  const Json* v = Find(object, path);
  return v != nullptr && v->is_boolean() ? v->get<bool>() : fallback;
}

const Json& Array(const Json& object, Path path) {
  static const Json kEmpty = Json::array();
  const Json* v = Find(object, path);
  return v != nullptr && v->is_array() ? *v : kEmpty;
}

const Json& Object(const Json& object, Path path) {
  static const Json kEmpty = Json::object();
  const Json* v = Find(object, path);
  return v != nullptr && v->is_object() ? *v : kEmpty;
}

std::map<std::string, std::string> StringMap(const Json& object, Path path) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : Object(object, path).items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

const Json* FindCondition(const Json& object, Path path, std::string_view type) {
  const Json* found = nullptr;
  for (const Json& c : Array(object, path)) {
    if (String(c, {"type"}) == type) found = &c;  // the last one, as kubectl reads them
  }
  return found;
}

bool ConditionTrue(const Json& object, Path path, std::string_view type) {
  for (const Json& c : Array(object, path)) {
    if (String(c, {"type"}) == type && String(c, {"status"}) == "True") return true;
  }
  return false;
}

}  // namespace etna::api::types
