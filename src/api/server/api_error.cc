#include "api/server/api_error.h"

#include <fmt/format.h>

namespace etna::api::server {
namespace {

using nlohmann::json;

ApiError Make(int code, std::string reason, std::string message, json details = json::object()) {
  return ApiError{code, std::move(reason), std::move(message), std::move(details)};
}

json Details(const resources::ResourceInfo& info, std::string_view name) {
  json d = {{"name", std::string(name)}, {"kind", info.plural}};
  if (!info.group.empty()) d["group"] = info.group;
  return d;
}

}  // namespace

ApiError ApiError::NotFound(const resources::ResourceInfo& info, std::string_view name) {
  return Make(404, "NotFound", fmt::format("{} \"{}\" not found", info.QualifiedPlural(), name),
              Details(info, name));
}

ApiError ApiError::AlreadyExists(const resources::ResourceInfo& info, std::string_view name) {
  return Make(409, "AlreadyExists",
              fmt::format("{} \"{}\" already exists", info.QualifiedPlural(), name),
              Details(info, name));
}

ApiError ApiError::Conflict(const resources::ResourceInfo& info, std::string_view name,
                            std::string_view why) {
  return Make(409, "Conflict",
              fmt::format("Operation cannot be fulfilled on {} \"{}\": {}", info.QualifiedPlural(),
                          name, why),
              Details(info, name));
}

ApiError ApiError::Invalid(const resources::ResourceInfo& info, std::string_view name,
                           const std::vector<admission::FieldError>& causes) {
  json details = Details(info, name);
  details["causes"] = json::array();
  std::string list;
  for (const auto& c : causes) {
    details["causes"].push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
    if (!list.empty()) list += ", ";
    list += c.field.empty() ? c.message : fmt::format("{}: {}", c.field, c.message);
  }
  if (causes.size() > 1) list = "[" + list + "]";
  return Make(422, "Invalid",
              fmt::format("{} \"{}\" is invalid: {}", info.QualifiedPlural(), name, list),
              std::move(details));
}

ApiError ApiError::Refused(const resources::ResourceInfo& info, std::string_view name,
                           const std::vector<admission::FieldError>& causes) {
  for (const auto& c : causes) {
    if (c.reason == admission::kRequestForbidden) {
      return Make(
          403, "Forbidden",
          fmt::format("{} \"{}\" is forbidden: {}", info.QualifiedPlural(), name, c.message),
          Details(info, name));
    }
  }
  return Invalid(info, name, causes);
}

ApiError ApiError::BadRequest(std::string message) {
  return Make(400, "BadRequest", std::move(message));
}
ApiError ApiError::Unauthorized(std::string message) {
  return Make(401, "Unauthorized", std::move(message));
}
ApiError ApiError::Forbidden(std::string message) {
  return Make(403, "Forbidden", std::move(message));
}
ApiError ApiError::NotFoundPath() {
  return Make(404, "NotFound", "the server could not find the requested resource");
}
ApiError ApiError::MethodNotAllowed(std::string message) {
  return Make(405, "MethodNotAllowed", std::move(message));
}
ApiError ApiError::UnsupportedMediaType(std::string message) {
  return Make(415, "UnsupportedMediaType", std::move(message));
}
ApiError ApiError::Expired(std::string message) { return Make(410, "Expired", std::move(message)); }
ApiError ApiError::Internal(std::string message) {
  return Make(500, "InternalError", std::move(message));
}
ApiError ApiError::Unavailable(std::string message) {
  return Make(503, "ServiceUnavailable", std::move(message));
}
ApiError ApiError::TooLarge(std::string message) {
  return Make(413, "RequestEntityTooLarge", std::move(message));
}

ApiError ApiError::FromStatus(const Status& status, const resources::ResourceInfo* info,
                              std::string_view name) {
  switch (status.code()) {
    case StatusCode::kNotFound:
      return info ? NotFound(*info, name) : Make(404, "NotFound", status.message());
    case StatusCode::kAlreadyExists:
      return info ? AlreadyExists(*info, name) : Make(409, "AlreadyExists", status.message());
    case StatusCode::kConflict:
      return info ? Conflict(*info, name,
                             "the object has been modified; please apply your changes to the "
                             "latest version and try again")
                  : Make(409, "Conflict", status.message());
    case StatusCode::kInvalidArgument:
      return BadRequest(status.message());
    case StatusCode::kGone:
      return Expired(status.message());
    case StatusCode::kResourceExhausted:
      return Make(507, "InsufficientStorage", status.message());
    case StatusCode::kUnavailable:
      return Unavailable(status.message());
    case StatusCode::kFailedPrecondition:
      return Make(409, "Conflict", status.message());
    default:
      return Internal(status.message());
  }
}

json ApiError::ToStatusJson() const {
  json s = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
            {"status", "Failure"}, {"message", message}, {"reason", reason},
            {"code", code}};
  if (!details.empty()) s["details"] = details;
  return s;
}

net::http::Response ApiError::ToResponse() const {
  net::http::Response r;
  r.status = code;
  // Messages may quote request bytes (a name from the URL): never let bad UTF-8 throw here.
  r.body = ToStatusJson().dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

json SuccessStatus(int code, const json& details) {
  json s = {{"kind", "Status"},
            {"apiVersion", "v1"},
            {"metadata", json::object()},
            {"status", "Success"},
            {"code", code}};
  if (!details.empty()) s["details"] = details;
  return s;
}

}  // namespace etna::api::server
