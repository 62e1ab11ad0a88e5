#include "api/admission/validation.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>

#include "common/time.h"

namespace etna::api::admission::internal {

namespace {

void Add(std::vector<FieldError>& list, const std::string& field, const char* reason,
         std::string message) {
  list.push_back(FieldError{field, reason, std::move(message)});
}

}  // namespace

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
  return out;
}

std::string FormatValue(const Json& value) {
  if (value.is_string()) return Quote(value.get_ref<const std::string&>());
  if (value.is_null()) return "null";
  std::string s = value.dump();
  if (s.size() > 200) s = s.substr(0, 200) + "...";
  return s;
}

std::string QuoteList(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) {
    if (!out.empty()) out += ", ";
    out += Quote(v);
  }
  return out;
}

void Errors::Invalid(const std::string& field, const Json& value, std::string_view detail) {
  Add(list_, field, "FieldValueInvalid",
      fmt::format("Invalid value: {}: {}", FormatValue(value), detail));
}

void Errors::Required(const std::string& field, std::string_view detail) {
  Add(list_, field, "FieldValueRequired",
      detail.empty() ? std::string("Required value") : fmt::format("Required value: {}", detail));
}

void Errors::NotSupported(const std::string& field, const Json& value,
                          const std::vector<std::string>& supported) {
  Add(list_, field, "FieldValueNotSupported",
      fmt::format("Unsupported value: {}: supported values: {}", FormatValue(value),
                  QuoteList(supported)));
}

void Errors::Duplicate(const std::string& field, const Json& value) {
  Add(list_, field, "FieldValueDuplicate", fmt::format("Duplicate value: {}", FormatValue(value)));
}

void Errors::Forbidden(const std::string& field, std::string_view detail) {
  Add(list_, field, "FieldValueForbidden", fmt::format("Forbidden: {}", detail));
}

void Errors::ForbiddenRequest(std::string_view message) {
  list_.push_back({"", kRequestForbidden, std::string(message)});
}

void Errors::TooLong(const std::string& field, size_t max_bytes) {
  Add(list_, field, "FieldValueTooLong",
      fmt::format("Too long: must have at most {} bytes", max_bytes));
}

void Errors::NotFound(const std::string& field, const Json& value) {
  Add(list_, field, "FieldValueNotFound", fmt::format("Not found: {}", FormatValue(value)));
}

const Json* Field(const Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

Json* MutableField(Json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

Json* SpecOf(Json& object, Errors& errs) {
  Json* spec = MutableField(object, "spec");
  if (!spec) {
    object["spec"] = Json::object();
    spec = &object["spec"];
  }
  if (!spec->is_object()) {
    errs.Invalid("spec", *spec, "must be an object");
    return nullptr;
  }
  return spec;
}

std::optional<int64_t> GetInt(const Json& obj, std::string_view key, const std::string& path,
                              Errors& errs) {
  const Json* v = Field(obj, key);
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_float()) {
    double d = v->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) {
      return static_cast<int64_t>(d);
    }
  }
  errs.Invalid(Child(path, key), *v, "must be an integer");
  return std::nullopt;
}

std::optional<std::string> GetString(const Json& obj, std::string_view key, const std::string& path,
                                     Errors& errs) {
  const Json* v = Field(obj, key);
  if (!v) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  errs.Invalid(Child(path, key), *v, "must be a string");
  return std::nullopt;
}

std::optional<bool> GetBool(const Json& obj, std::string_view key, const std::string& path,
                            Errors& errs) {
  const Json* v = Field(obj, key);
  if (!v) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>();
  errs.Invalid(Child(path, key), *v, "must be a boolean");
  return std::nullopt;
}

const Json* GetObject(const Json& obj, std::string_view key, const std::string& path,
                      Errors& errs) {
  const Json* v = Field(obj, key);
  if (!v) return nullptr;
  if (v->is_object()) return v;
  errs.Invalid(Child(path, key), *v, "must be an object");
  return nullptr;
}

const Json* GetArray(const Json& obj, std::string_view key, const std::string& path, Errors& errs) {
  const Json* v = Field(obj, key);
  if (!v) return nullptr;
  if (v->is_array()) return v;
  errs.Invalid(Child(path, key), *v, "must be a list");
  return nullptr;
}

void CheckNonNegative(int64_t v, const std::string& path, Errors& errs) {
  if (v < 0) errs.Invalid(path, v, "must be greater than or equal to 0");
}

void CheckInt32(int64_t v, const std::string& path, Errors& errs) {
  if (v > std::numeric_limits<int32_t>::max() || v < std::numeric_limits<int32_t>::min()) {
    errs.Invalid(path, v, "must fit in a 32-bit integer");
  }
}

bool IsNonNegativeDuration(std::string_view s) {
  auto d = ParseGoDuration(s);
  return d.ok() && d->count() >= 0;
}

void CheckDurationAnnotation(const Json& object, std::string_view key, Errors& errs) {
  const Json* meta = Field(object, "metadata");
  const Json* annotations = meta ? Field(*meta, "annotations") : nullptr;
  const Json* value = annotations ? Field(*annotations, key) : nullptr;
  if (value && (!value->is_string() || !IsNonNegativeDuration(value->get<std::string>()))) {
    errs.Invalid(Key("metadata.annotations", key), *value, "must be a duration such as \"30m\"");
  }
}

void SetDefault(Json& obj, std::string_view key, Json value) {
  if (!obj.is_object()) return;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) obj[std::string(key)] = std::move(value);
}

}  // namespace etna::api::admission::internal
