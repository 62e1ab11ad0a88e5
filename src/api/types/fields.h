// The one family of lenient readers of API objects' JSON fields, under the typed views (pod.h,
// node.h, job.h, ...) and the converters that walk nested specs: a missing, null or mistyped
// field reads as empty (or `fallback`), since the API server validated what it stored and a
// reader must never throw. A path is a list of member names: {"spec", "nodeName"}.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace etna::api::types {

using Json = nlohmann::json;
using Path = std::initializer_list<std::string_view>;

// The value at `path` under `object`, or nullptr when a step is missing, not an object, or the
// value is null.
const Json* Find(const Json& object, Path path);
// The string at `path`, or `fallback` when missing or not a string.
std::string String(const Json& object, Path path, std::string_view fallback = {});
// The number at `path` (a float truncated), or `fallback` when missing or not a number.
int64_t Integer(const Json& object, Path path, int64_t fallback = 0);
// The integer at `path`; nullopt when missing or not an integer (a float included), for fields
// whose absence means something (spec.priority).
std::optional<int64_t> IntegerIfSet(const Json& object, Path path);
// The boolean at `path`, or `fallback` when missing or not a boolean.
bool Bool(const Json& object, Path path, bool fallback = false);
// The array (object) at `path`, or an empty one when missing or of another type.
const Json& Array(const Json& object, Path path);
const Json& Object(const Json& object, Path path);
// The string members of the object at `path` (labels, selectors); other members are skipped.
std::map<std::string, std::string> StringMap(const Json& object, Path path);

// The last condition of `type` in the array at `path` (status.conditions), or nullptr.
const Json* FindCondition(const Json& object, Path path, std::string_view type);
// Whether a condition of `type` at `path` has status "True".
bool ConditionTrue(const Json& object, Path path, std::string_view type);

}  // namespace etna::api::types
