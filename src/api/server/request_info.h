// What a resource request addresses: group, version, namespace, resource, name, subresource and
// the Kubernetes verb, parsed from the method, path and query.
//
//   /api/v1/<plural>[/<name>[/<sub>]]                       (cluster-scoped, or all namespaces)
//   /api/v1/namespaces/<ns>/<plural>[/<name>[/<sub>]]
//   /apis/<group>/<version>/...                              (the same below)
//   /api/v1/nodes/<name>/proxy[/<path>]                      (subresource "proxy", subpath)
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/strings.h"  // ParseBool
#include "net/http/message.h"

namespace etna::api::server {

struct RequestInfo {
  std::string group;  // "" for core
  std::string version;
  std::string ns;  // "" for cluster-scoped paths and cross-namespace lists
  bool namespace_in_path = false;
  std::string plural;
  std::string name;         // "" for collections
  std::string subresource;  // "status", "log", "binding", "eviction", "proxy", or ""
  std::string subpath;      // after ".../proxy/": the path on the proxied server, "" for none
  std::string verb;         // get, list, watch, create, update, patch, delete, deletecollection
};

// nullopt when the path is not a resource path (discovery and other paths are routed first).
std::optional<RequestInfo> ParseRequestInfo(const net::http::Request& request);

}  // namespace etna::api::server
