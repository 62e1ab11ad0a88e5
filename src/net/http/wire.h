// Helpers shared by the HTTP server and client: target decoding, the listen address, and the
// Kubernetes Status bodies the transport writes for its own errors (413, 431, 500, ...).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/status.h"
#include "net/http/message.h"

namespace etna::net::http::internal {

// Decodes %XX escapes; a malformed escape and '+' are kept literally.
std::string PercentDecode(std::string_view s);

// Splits a request target into its decoded path and query (a repeated key keeps the last value).
void ParseTarget(std::string_view target, std::string* path,
                 std::map<std::string, std::string>* query);

// A Kubernetes v1 Status JSON document ("kind":"Status", "status":"Failure").
std::string StatusJson(int code, std::string_view reason, std::string_view message);
// A Response carrying StatusJson.
Response StatusResponse(int code, std::string_view reason, std::string_view message);

struct HostPort {
  std::string host;  // without brackets; "" for all addresses
  uint16_t port = 0;
};
// Parses "HOST:PORT", "[V6]:PORT"; InvalidArgument naming `field` when malformed.
Result<HostPort> ParseHostPort(std::string_view s, std::string_view field);

}  // namespace etna::net::http::internal
