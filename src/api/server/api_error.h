// Kubernetes API errors: a code, a reason and a message, rendered as a `Status` body.
//
// Every non-2xx reply of the API is built here so the reasons and messages are the ones
// kubectl and the Python client print and react to (kubectl-protocol.md §10).
// Value types; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "api/admission/admission.h"
#include "api/resources/registry.h"
#include "common/status.h"
#include "net/http/message.h"

namespace etna::api::server {

struct ApiError {
  int code = 500;
  std::string reason;   // "NotFound", "AlreadyExists", "Conflict", "Invalid", ...
  std::string message;  // printed verbatim by kubectl
  nlohmann::json details = nlohmann::json::object();

  static ApiError NotFound(const resources::ResourceInfo& info, std::string_view name);
  static ApiError AlreadyExists(const resources::ResourceInfo& info, std::string_view name);
  static ApiError Conflict(const resources::ResourceInfo& info, std::string_view name,
                           std::string_view why);
  static ApiError Invalid(const resources::ResourceInfo& info, std::string_view name,
                          const std::vector<admission::FieldError>& causes);
  // What admission refused: 403 Forbidden when a cause refuses the whole request
  // (admission::kRequestForbidden), else 422 Invalid.
  static ApiError Refused(const resources::ResourceInfo& info, std::string_view name,
                          const std::vector<admission::FieldError>& causes);
  static ApiError BadRequest(std::string message);
  static ApiError Unauthorized(std::string message = "Unauthorized");
  static ApiError Forbidden(std::string message);
  static ApiError NotFoundPath();  // "the server could not find the requested resource"
  static ApiError MethodNotAllowed(std::string message);
  static ApiError UnsupportedMediaType(std::string message);
  static ApiError Expired(std::string message);  // 410
  static ApiError Internal(std::string message);
  static ApiError Unavailable(std::string message);
  static ApiError TooLarge(std::string message);
  // A store or codec Status mapped onto the API (NotFound → 404, Gone → 410, ...).
  static ApiError FromStatus(const Status& status, const resources::ResourceInfo* info = nullptr,
                             std::string_view name = {});

  nlohmann::json ToStatusJson() const;
  net::http::Response ToResponse() const;
};

// A value or an ApiError.
template <typename T>
class ApiResult {
 public:
  ApiResult(T value) : data_(std::move(value)) {}         // NOLINT: implicit by design
  ApiResult(ApiError error) : data_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const { return std::holds_alternative<T>(data_); }
  const ApiError& error() const { return std::get<ApiError>(data_); }
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T* operator->() { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, ApiError> data_;
};

// A successful `Status` body (kind Status, status Success), for deletes and subresource posts.
nlohmann::json SuccessStatus(int code, const nlohmann::json& details = nlohmann::json::object());

}  // namespace etna::api::server
