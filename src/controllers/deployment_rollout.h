// The arithmetic of Kubernetes' deployment controller, as pure functions over the Deployment and
// its ReplicaSets (JSON objects): the pod-template-hash, which ReplicaSet is the new one, how far
// a rolling update may scale the new one up and the old ones down (maxSurge, maxUnavailable,
// availability), how a change of spec.replicas is shared out among the ReplicaSets of a rollout
// in progress, and which old ReplicaSets the revision history keeps.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace etna::controllers {

using Json = nlohmann::json;

// The annotations the controller keeps on each ReplicaSet it sizes: the Deployment's replicas
// and replicas + maxSurge when it last did (a differing one marks a scaling event).
inline constexpr char kDesiredReplicasAnnotation[] = "deployment.kubernetes.io/desired-replicas";
inline constexpr char kMaxReplicasAnnotation[] = "deployment.kubernetes.io/max-replicas";
// The annotation `kubectl rollout history` prints as CHANGE-CAUSE; copied to the ReplicaSet.
inline constexpr char kChangeCauseAnnotation[] = "kubernetes.io/change-cause";

// The hash of a pod template and the Deployment's collisionCount, in the alphabet Kubernetes
// uses for it (FNV-1a of the template's canonical JSON, safe-encoded: no vowels).
std::string PodTemplateHash(const Json& pod_template, int64_t collision_count);
// Whether two pod templates are equal but for the pod-template-hash label.
bool EqualIgnoringHash(const Json& a, const Json& b);

// spec.replicas of each ReplicaSet, summed.
int64_t SpecReplicas(const std::vector<const Json*>& replica_sets);
int64_t AvailableReplicas(const std::vector<const Json*>& replica_sets);

// RollingUpdate: the new ReplicaSet's next spec.replicas (Kubernetes' NewRSNewReplicas): up to
// replicas + maxSurge pods in all, never more than the Deployment wants. Recreate: replicas.
int64_t NewReplicaSetReplicas(const Json& deployment, const std::vector<const Json*>& all,
                              const Json& new_rs);

// RollingUpdate: how far each old ReplicaSet may be scaled down now (Kubernetes'
// reconcileOldReplicaSets): first the old pods that are not available, then available ones
// while at least replicas - maxUnavailable stay available. Returns each old ReplicaSet's new
// spec.replicas, in the order given.
std::vector<int64_t> ScaleDownOldReplicaSets(const Json& deployment,
                                             const std::vector<const Json*>& old_rss,
                                             const Json* new_rs);

// A scaling event during a rollout (Kubernetes' scale()): the change from the ReplicaSets'
// total to replicas (+ maxSurge when rolling) shared out in proportion to their sizes, the
// rounding remainder to the largest. `active` are the ReplicaSets with replicas, newest first;
// returns each one's new spec.replicas.
std::vector<int64_t> ProportionalScale(const Json& deployment,
                                       const std::vector<const Json*>& active);

// The old ReplicaSets to delete for spec.revisionHistoryLimit: those scaled to zero with no
// pods left, oldest revision first, beyond the limit.
std::vector<const Json*> HistoryToDelete(const Json& deployment, std::vector<const Json*> old_rss);

}  // namespace etna::controllers
