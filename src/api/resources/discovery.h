// The discovery, version and OpenAPI documents kubectl fetches (kubectl-protocol.md §1–§3).
//
// Legacy discovery (APIVersions, APIGroupList, APIResourceList) and the aggregated form
// (APIGroupDiscoveryList, apidiscovery.k8s.io v2 or v2beta1, chosen by the Accept header:
// answer only with a version the client listed). /version reports a minor in 27–33 so the
// kubectl dispatcher picks a matching binary. /openapi/v2 is an empty 200 (valid protobuf);
// /openapi/v3 lists each group-version with a PATCH operation that declares fieldValidation.
// Pure functions of the registry; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/resources/registry.h"

namespace etna::api::resources {

nlohmann::json VersionInfo();
nlohmann::json ApiVersions(std::string_view server_address);    // GET /api
nlohmann::json ApiGroupList(const ResourceRegistry& registry);  // GET /apis
// GET /api/v1 or /apis/<group>/<version>; nullopt when the group-version is not served.
std::optional<nlohmann::json> ApiResourceList(const ResourceRegistry& registry,
                                              std::string_view group, std::string_view version);
// The aggregated discovery version the Accept header asks for: "v2", "v2beta1" or "" (legacy).
std::string AggregatedDiscoveryVersion(std::string_view accept);
// The aggregated document for /api (core = true) or /apis, in `version` ("v2" or "v2beta1").
nlohmann::json AggregatedDiscovery(const ResourceRegistry& registry, bool core,
                                   std::string_view version);
// The Content-Type for an aggregated reply in `version`.
std::string AggregatedDiscoveryContentType(std::string_view version);
// GET /openapi/v3 and GET /openapi/v3/<path> (path like "apis/batch.volcano.sh/v1alpha1").
nlohmann::json OpenApiV3Index(const ResourceRegistry& registry);
std::optional<nlohmann::json> OpenApiV3Document(const ResourceRegistry& registry,
                                                std::string_view path);

}  // namespace etna::api::resources
