// Lenient readers of API objects' fields for the converters (convert_*.cc): a missing or
// mistyped field reads as empty (or `fallback`), since the API server already validated what it
// stored and a converter must never throw.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "sched/model/labels.h"

namespace etna::scheduler::fields {

using nlohmann::json;

inline const json& Obj(const json& j, const char* key) {
  static const json kEmpty = json::object();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

inline const json* Arr(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? &*it : nullptr;
}

inline std::string Str(const json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline int64_t Int(const json& j, const char* key, int64_t fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

inline sched::Labels LabelsOf(const json& map) {
  sched::Labels out;
  for (const auto& [k, v] : map.items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

}  // namespace etna::scheduler::fields
