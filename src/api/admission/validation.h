// Building blocks of admission: a collector of Kubernetes-style field errors, typed readers of
// JSON fields that report wrong types by path, name validators (DNS-1123 labels and subdomains,
// qualified names, label values) and object-metadata validation.
// Internal to admission/. Stateless functions; an Errors is used by one thread.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/admission/admission.h"
#include "api/types/label_selector.h"

namespace etna::api::admission::internal {

using Json = nlohmann::json;

// Collects FieldErrors with the messages Kubernetes' field.Error bodies have.
class Errors {
 public:
  // "Invalid value: <value>: <detail>"; strings are quoted, numbers printed plain.
  void Invalid(const std::string& field, const Json& value, std::string_view detail);
  // "Required value" or "Required value: <detail>".
  void Required(const std::string& field, std::string_view detail = {});
  // "Unsupported value: \"x\": supported values: \"a\", \"b\"".
  void NotSupported(const std::string& field, const Json& value,
                    const std::vector<std::string>& supported);
  void Duplicate(const std::string& field, const Json& value);
  void Forbidden(const std::string& field, std::string_view detail);
  // Refuses the whole request (kRequestForbidden): 403 with `message`.
  void ForbiddenRequest(std::string_view message);
  void TooLong(const std::string& field, size_t max_bytes);
  void NotFound(const std::string& field, const Json& value);

  bool empty() const { return list_.empty(); }
  size_t size() const { return list_.size(); }
  std::vector<FieldError>& list() { return list_; }

 private:
  std::vector<FieldError> list_;
};

// How a value is printed in an error body: "\"x\"" for strings, 5 for numbers.
std::string FormatValue(const Json& value);
std::string Quote(std::string_view s);
// `"a", "b"` for NotSupported and similar lists.
std::string QuoteList(const std::vector<std::string>& values);

inline std::string Child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
inline std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}
inline std::string Key(const std::string& path, std::string_view key) {
  return path + "[" + std::string(key) + "]";
}

// The member `key` of `obj`, or nullptr when `obj` is not an object or the member is absent or
// null.
const Json* Field(const Json& obj, std::string_view key);
Json* MutableField(Json& obj, std::string_view key);
// The object's `spec`, made an empty object when absent; nullptr (with an Invalid error) when it
// is not an object.
Json* SpecOf(Json& object, Errors& errs);

// Typed readers: nullopt when absent (or null); a present value of the wrong type adds an
// Invalid error at `path` and also returns nullopt.
std::optional<int64_t> GetInt(const Json& obj, std::string_view key, const std::string& path,
                              Errors& errs);
std::optional<std::string> GetString(const Json& obj, std::string_view key, const std::string& path,
                                     Errors& errs);
std::optional<bool> GetBool(const Json& obj, std::string_view key, const std::string& path,
                            Errors& errs);
// An object member; a non-object adds "must be an object".
const Json* GetObject(const Json& obj, std::string_view key, const std::string& path, Errors& errs);
// An array member; a non-array adds "must be a list".
const Json* GetArray(const Json& obj, std::string_view key, const std::string& path, Errors& errs);

// Non-negative (>= 0) and positive (>= 1) integer checks with Kubernetes' messages.
void CheckNonNegative(int64_t v, const std::string& path, Errors& errs);
void CheckInt32(int64_t v, const std::string& path, Errors& errs);

// Kubernetes' name validators; each returns the problem ("" when valid).
std::string DNS1123LabelError(std::string_view s);
std::string DNS1123SubdomainError(std::string_view s);
std::string PathSegmentNameError(std::string_view s);  // RBAC kinds' names
std::string QualifiedNameError(std::string_view s);    // label/annotation keys
std::string LabelValueError(std::string_view s);

// How a kind's names are checked: a DNS subdomain (most kinds), a DNS label (Namespace), or a
// path segment (RBAC kinds: "system:aggregate-to-edit"; not "." or "..", no "/" or "%").
enum class NameRule { kSubdomain, kLabel, kPathSegment };
// Validates metadata: name (by `rule`), namespace when `namespaced`, labels, annotations
// (total 256 KiB). Adds errors to `errs`.
void ValidateMetadata(const Json& object, bool namespaced, NameRule rule, Errors& errs);

// Validates a label selector (matchLabels, matchExpressions) at `path`.
void ValidateLabelSelector(const Json& selector, const std::string& path, Errors& errs);
using api::types::SelectorMatches;  // api/types/label_selector.h

// A Go duration (common/time.h's grammar: "500us", "30s", "1m30s") that is not negative.
bool IsNonNegativeDuration(std::string_view s);
// The annotation `key` of `object`, when set, is such a duration (an error names it).
void CheckDurationAnnotation(const Json& object, std::string_view key, Errors& errs);

// Sets `obj[key] = value` when the member is absent or null.
void SetDefault(Json& obj, std::string_view key, Json value);

}  // namespace etna::api::admission::internal
