// RestClient: typed JSON calls over a Transport — get, list, create, update, patch, delete and
// the status and binding/eviction subresources — with the API's error replies turned into a
// Status (404 NotFound, 409 Conflict or AlreadyExists, 410 Gone, 422/400 InvalidArgument,
// 429/5xx Unavailable) whose message is the server's.
//
// Paths are the API's: Path("pods", "default", "a") is "/api/v1/namespaces/default/pods/a".
// Thread-safety: as the Transport's Do (callable from several threads).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "client/transport.h"

namespace etna::client {

// The collection path of a resource this project serves (pods, nodes, leases, events,
// configmaps, jobs, podgroups, queues, commands, priorityclasses, ...); ns empty for a
// cluster-wide list or a cluster-scoped resource; name empty for the collection.
std::string Path(std::string_view resource, std::string_view ns = {}, std::string_view name = {});

class RestClient {
 public:
  explicit RestClient(Transport* transport) : transport_(transport) {}

  Result<nlohmann::json> Get(const std::string& path);
  // The items of a list (`query` without the leading "?", e.g. "labelSelector=a%3Db").
  Result<std::vector<nlohmann::json>> List(const std::string& path, const std::string& query = {});
  Result<nlohmann::json> Create(const std::string& collection_path, const nlohmann::json& object);
  // PUT of the whole object (optimistic concurrency through metadata.resourceVersion).
  Result<nlohmann::json> Update(const std::string& path, const nlohmann::json& object);
  Result<nlohmann::json> UpdateStatus(const std::string& path, const nlohmann::json& object);
  // JSON merge patch; `subresource` "status" patches the status.
  Result<nlohmann::json> MergePatch(const std::string& path, const nlohmann::json& patch,
                                    const std::string& subresource = {});
  // NotFound is an error here; callers that do not care test for it.
  Status Delete(const std::string& path, int grace_period_seconds = -1,
                const std::string& propagation = {});
  // POST pods/binding: binds the pod to `node`, adding `annotations` to it.
  Status Bind(const std::string& ns, const std::string& pod, const std::string& node,
              const nlohmann::json& annotations = nlohmann::json::object());
  // POST pods/eviction.
  Status Evict(const std::string& ns, const std::string& pod, int grace_period_seconds = -1);

  Transport* transport() const { return transport_; }

 private:
  Result<nlohmann::json> Call(std::string_view method, const std::string& target,
                              const nlohmann::json* body,
                              std::string_view content_type = "application/json");

  Transport* transport_;
};

// The Status for an API reply `code` with body `body` (a Kubernetes Status or anything).
Status StatusFromReply(int code, std::string_view body);

}  // namespace etna::client
