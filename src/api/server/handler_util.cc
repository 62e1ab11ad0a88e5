#include "api/server/handler_util.h"

#include <fmt/format.h>

#include <charconv>

namespace etna::api::server {
namespace {

using nlohmann::json;

ApiError DecodeError(const Status& status) {
  if (status.message().find("bytes") != std::string::npos &&
      status.message().find("limit") != std::string::npos) {
    return ApiError::TooLarge(status.message());
  }
  return ApiError::BadRequest(status.message());
}

}  // namespace

ApiResult<json> DecodeRequestBody(const net::http::Request& request,
                                  const codec::DecodeLimits& limits) {
  if (request.body.empty()) return ApiError::BadRequest("the request body is empty");
  std::string content_type = request.Header("content-type");
  auto decoded = codec::DecodeBody(request.body, content_type, limits);
  if (!decoded.ok()) {
    if (decoded.status().message().find("content type") != std::string::npos) {
      return ApiError::UnsupportedMediaType(decoded.status().message());
    }
    return DecodeError(decoded.status());
  }
  return std::move(decoded).value();
}

ApiResult<json> DecodeWriteBody(const net::http::Request& request,
                                const codec::DecodeLimits& limits, FieldValidation* fields) {
  if (auto bad = ParseFieldValidation(request.Query("fieldValidation"), fields)) return *bad;
  return DecodeRequestBody(request, limits);
}

net::http::Response ObjectReply(int status, const json& object) {
  net::http::Response r;
  r.status = status;
  r.body = object.dump();
  return r;
}

net::http::Response TextReply(int status, std::string body) {
  net::http::Response r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  return r;
}

net::http::Response Reply(const ApiResult<json>& result, int success_status) {
  if (!result.ok()) return result.error().ToResponse();
  return ObjectReply(success_status, result.value());
}

ApiResult<DeleteOptions> DeleteOptionsOf(const net::http::Request& request,
                                         const codec::DecodeLimits& limits) {
  DeleteOptions options;
  if (!request.body.empty()) {
    auto decoded = codec::DecodeJson(request.body, limits);
    if (!decoded.ok()) return DecodeError(decoded.status());
    const json& body = *decoded;
    if (!body.is_object()) return ApiError::BadRequest("DeleteOptions must be a JSON object");
    if (body.contains("gracePeriodSeconds") && !body["gracePeriodSeconds"].is_null()) {
      if (!body["gracePeriodSeconds"].is_number_integer()) {
        return ApiError::BadRequest("gracePeriodSeconds: must be an integer");
      }
      options.grace_period_seconds = body["gracePeriodSeconds"].get<int64_t>();
    }
    if (body.contains("propagationPolicy") && body["propagationPolicy"].is_string()) {
      options.propagation_policy = body["propagationPolicy"].get<std::string>();
    }
    if (body.value("orphanDependents", false)) options.propagation_policy = "Orphan";
    if (body.contains("preconditions") && body["preconditions"].is_object()) {
      options.precondition_uid = body["preconditions"].value("uid", "");
      options.precondition_resource_version = body["preconditions"].value("resourceVersion", "");
    }
  }
  std::string grace = request.Query("gracePeriodSeconds");
  if (!grace.empty()) {
    int64_t value = 0;
    auto [p, ec] = std::from_chars(grace.data(), grace.data() + grace.size(), value);
    if (ec != std::errc() || p != grace.data() + grace.size()) {
      return ApiError::BadRequest(
          fmt::format("gracePeriodSeconds: invalid value \"{}\": must be an integer", grace));
    }
    options.grace_period_seconds = value;
  }
  if (request.HasQuery("propagationPolicy")) {
    options.propagation_policy = request.Query("propagationPolicy");
  }
  return options;
}

}  // namespace etna::api::server
