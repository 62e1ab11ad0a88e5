// Decoding request bodies and manifests into JSON, within limits.
//
// Every decoder refuses input over `max_bytes` and nesting deeper than `max_depth` (objects and
// arrays) with InvalidArgument naming the limit, and never throws. YAML errors name the line
// ("line 7: ..."); YAML is decoded as Kubernetes does (yaml → JSON: maps, sequences, strings,
// numbers, booleans, null; anchors and aliases resolved with a cap on expansion).
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace etna::api::codec {

using Json = nlohmann::json;

struct DecodeLimits {
  size_t max_bytes = 3 * 1024 * 1024;
  int max_depth = 64;
};

Result<Json> DecodeJson(std::string_view text, const DecodeLimits& limits = {});
// A YAML stream: one JSON value per non-empty document ("---" separated).
Result<std::vector<Json>> DecodeYamlDocuments(std::string_view text,
                                              const DecodeLimits& limits = {});
// A request body by its Content-Type: JSON for application/json and the patch types
// (…+json); one YAML document for application/yaml and application/apply-patch+yaml
// (which also accepts JSON, being a YAML superset).
Result<Json> DecodeBody(std::string_view text, std::string_view content_type,
                        const DecodeLimits& limits = {});

}  // namespace etna::api::codec
