// The minimal OpenAPI v3 documents of discovery.h (kubectl-protocol.md §3, §4): one PATCH
// operation per kind, declaring the fieldValidation parameter so kubectl trusts the server's
// validation, with empty schemas so kubectl never validates client-side.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <utility>

#include "api/resources/discovery.h"

namespace etna::api::resources {

namespace {

using nlohmann::json;

// "api/v1" or "apis/<group>/<version>".
std::string GroupVersionPath(const ResourceInfo& r) {
  return r.group.empty() ? "api/" + r.version : "apis/" + r.group + "/" + r.version;
}

std::string ItemPath(const ResourceInfo& r) {
  std::string path = "/" + GroupVersionPath(r);
  if (r.namespaced) path += "/namespaces/{namespace}";
  return path + "/" + r.plural + "/{name}";
}

json PatchOperation(const ResourceInfo& r) {
  json content = {{"application/json-patch+json", json::object()},
                  {"application/merge-patch+json", json::object()},
                  {"application/apply-patch+yaml", json::object()}};
  if (r.built_in) content["application/strategic-merge-patch+json"] = json::object();
  json parameters = json::array();
  parameters.push_back({{"name", "fieldValidation"},
                        {"in", "query"},
                        {"description",
                         "fieldValidation instructs the server on how to handle objects in the "
                         "request containing unknown or duplicate fields: Ignore, Warn or "
                         "Strict."},
                        {"schema", {{"type", "string"}, {"uniqueItems", true}}}});
  return {{"operationId", "patch" + r.kind},
          {"x-kubernetes-group-version-kind",
           {{"group", r.group}, {"version", r.version}, {"kind", r.kind}}},
          {"x-kubernetes-action", "patch"},
          {"parameters", std::move(parameters)},
          {"requestBody", {{"content", std::move(content)}, {"required", true}}},
          {"responses", {{"200", {{"description", "OK"}}}}}};
}

// A stable hash of a document's canonical dump (nlohmann orders object keys): FNV-1a 64.
std::string DocumentHash(const json& doc) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : doc.dump()) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016X}", h);
}

}  // namespace

std::optional<json> OpenApiV3Document(const ResourceRegistry& registry, std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  json paths = json::object();
  for (const ResourceInfo& r : registry.All()) {
    if (r.computed || GroupVersionPath(r) != path) continue;
    paths[ItemPath(r)] = {{"patch", PatchOperation(r)}};
  }
  if (paths.empty()) return std::nullopt;
  return json{{"openapi", "3.0.0"},
              {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0-etna"}}},
              {"paths", std::move(paths)},
              {"components", {{"schemas", json::object()}}}};
}

json OpenApiV3Index(const ResourceRegistry& registry) {
  json paths = json::object();
  for (const ResourceInfo& r : registry.All()) {
    const std::string gv = GroupVersionPath(r);
    if (paths.contains(gv)) continue;
    std::optional<json> doc = OpenApiV3Document(registry, gv);
    if (!doc) continue;
    paths[gv] = {{"serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + DocumentHash(*doc)}};
  }
  return {{"paths", std::move(paths)}};
}

}  // namespace etna::api::resources
