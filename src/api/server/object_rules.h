// Rules about objects that ObjectService's files share: kind checks, graceful deletion and
// finalizers. Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "api/resources/registry.h"
#include "api/server/api_error.h"

namespace etna::api::server::internal {

// Attempts of a read-modify-write before a conflict is reported.
inline constexpr int kMaxRetries = 8;

// Checks and fills apiVersion and kind, and makes metadata an object; *ok false with the error.
ApiError CheckKind(const resources::ResourceInfo& info, nlohmann::json& object, bool* ok);
// A pod on a node that has not finished: its deletion waits for its agent.
bool PodIsBoundAndLive(const resources::ResourceInfo& info, const nlohmann::json& pod);
bool HasFinalizers(const nlohmann::json& object);

// The creator of a workload (pods, Volcano and batch Jobs and CronJobs, Deployments, ReplicaSets,
// StatefulSets, DaemonSets, JobFlows), which accounting charges its pods' runs to: annotation
// etna.io/created-by (api/types/pod_run.h), set by the server and never by a client. On create,
// a workload without a controlling owner gets `user`; one with an owner gets none (its root's
// counts). On update it keeps what it had.
void StampCreator(const resources::ResourceInfo& info, nlohmann::json& object,
                  const std::string& user);
void KeepCreator(const resources::ResourceInfo& info, const nlohmann::json& current,
                 nlohmann::json& next);

}  // namespace etna::api::server::internal
