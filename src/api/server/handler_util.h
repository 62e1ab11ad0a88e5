// Small helpers shared by the REST handlers: decoding bodies, replying with objects and
// errors, and the DeleteOptions of a request. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "api/codec/decode.h"
#include "api/server/api_error.h"
#include "api/server/field_validation.h"
#include "api/server/object_service.h"
#include "net/http/message.h"

namespace etna::api::server {

// The request body as JSON (by Content-Type), or a 400/413 naming what is wrong.
ApiResult<nlohmann::json> DecodeRequestBody(const net::http::Request& request,
                                            const codec::DecodeLimits& limits);
// The body of a write (create, update, patch) and its fieldValidation mode, read into `fields`.
ApiResult<nlohmann::json> DecodeWriteBody(const net::http::Request& request,
                                          const codec::DecodeLimits& limits,
                                          FieldValidation* fields);
net::http::Response ObjectReply(int status, const nlohmann::json& object);
// A text/plain reply (health checks, the dashboard's files and explanations).
net::http::Response TextReply(int status, std::string body);
net::http::Response Reply(const ApiResult<nlohmann::json>& result, int success_status);
// DeleteOptions from the body (kind DeleteOptions, may be empty) and the query.
ApiResult<DeleteOptions> DeleteOptionsOf(const net::http::Request& request,
                                         const codec::DecodeLimits& limits);

}  // namespace etna::api::server
