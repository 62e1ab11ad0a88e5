// What the ReplicaSet controller decides about pods, as Kubernetes' replicaset controller does,
// as pure functions: the pod it makes from a ReplicaSet's template, which pods count as active,
// ready and available (ready for minReadySeconds), and which pods a scale-down deletes first.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"

namespace etna::controllers {

using Json = nlohmann::json;

// A new pod of `replica_set` (apiVersion/kind may be missing from a cached object): the
// template's labels, annotations and spec, generateName "<name>-", the ReplicaSet as its
// controlling owner.
Json BuildReplicaSetPod(const Json& replica_set);
// An ownerReference to `owner` of `kind` in apps/v1 with controller: true.
Json AppsControllerRef(const Json& owner, const std::string& kind);
// Whether the selector of `owner` (a ReplicaSet, Deployment or DaemonSet) matches the labels of
// `object`; an owner without a selector selects nothing.
bool SelectedBy(const Json& owner, const Json& object);
// Not terminal (Succeeded, Failed) and not being deleted: a pod a ReplicaSet counts.
bool IsActivePod(const Json& pod);
// Ready (condition Ready=True) for at least `min_ready_seconds` at `now`; when not yet, and it is
// ready, `*available_at` (optional) is when it will be.
bool IsPodAvailable(const Json& pod, int64_t min_ready_seconds, TimeMs now,
                    TimeMs* available_at = nullptr);
// The first `count` of `pods` to delete when scaling down, in Kubernetes' order: unassigned
// before assigned, Pending before Unknown before Running, not ready before ready, lower
// controller.kubernetes.io/pod-deletion-cost first, more of the set's pods on the same node
// first, ready more recently first, more restarts first, newer first.
std::vector<Json> PodsToDelete(std::vector<Json> pods, size_t count);

}  // namespace etna::controllers
