// Server-side field validation (the fieldValidation query parameter kubectl sends):
// Strict rejects an object with fields its kind does not define (400, naming each field);
// Warn (the default) and Ignore drop them, Warn with one warning per field.
// Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resources/registry.h"
#include "api/server/api_error.h"

namespace etna::api::server {

// How unknown fields are treated, and the warnings they produced.
struct FieldValidation {
  std::string mode = "Warn";  // "Strict", "Warn" or "Ignore"
  std::vector<std::string> warnings;
};

// "" → Warn; otherwise the mode if valid, or a BadRequest naming the bad value.
std::optional<ApiError> ParseFieldValidation(std::string_view value, FieldValidation* out);
// Applies `validation` to `object`: nullopt when the object may go on (pruned as needed).
std::optional<ApiError> CheckFields(const resources::ResourceInfo& info, nlohmann::json& object,
                                    FieldValidation& validation);
// Removes the field at a path of UnknownFields' form ("spec.tasks[1].x").
void RemoveFieldPath(nlohmann::json& object, std::string_view path);

}  // namespace etna::api::server
