// Typed read views of apps/v1's replicated workloads: ReplicaSet (a count of pods from one
// template) and Deployment (ReplicaSets rolled from one template to the next). Both read the
// desired replicas (Kubernetes' default of 1), the selector, the pod template and the counts
// their status reports; Deployment adds its strategy, revision history and rollout limits.
// Thread-safety: const reads of the JSON only.
#pragma once

#include <cstdint>
#include <string>

#include "api/types/object.h"

namespace etna::api::types {

// The revision a Deployment's ReplicaSet was made or brought back for, and the Deployment's
// latest (the annotation `kubectl rollout history` and `undo` read).
inline constexpr char kRevisionAnnotation[] = "deployment.kubernetes.io/revision";
// The label a Deployment adds to its ReplicaSets' selector and pods: the template's hash.
inline constexpr char kPodTemplateHashLabel[] = "pod-template-hash";
// Scale-down deletes the pods with the lowest cost first (Kubernetes 1.22+).
inline constexpr char kPodDeletionCostAnnotation[] = "controller.kubernetes.io/pod-deletion-cost";

// What ReplicaSet and Deployment have in common.
class ReplicatedView : public ObjectView {
 public:
  using ObjectView::ObjectView;

  // spec.replicas; 1 when unset, as the API server defaults it.
  int64_t replicas() const { return Integer(json(), {"spec", "replicas"}, 1); }
  int64_t min_ready_seconds() const { return Integer(json(), {"spec", "minReadySeconds"}); }
  int64_t status_replicas() const { return Integer(json(), {"status", "replicas"}); }
  int64_t ready_replicas() const { return Integer(json(), {"status", "readyReplicas"}); }
  int64_t available_replicas() const { return Integer(json(), {"status", "availableReplicas"}); }
  int64_t observed_generation() const { return Integer(json(), {"status", "observedGeneration"}); }
  // spec.template (metadata and spec of the pods); an empty object when unset.
  const Json& pod_template() const { return Object(json(), {"spec", "template"}); }
  const Json& containers() const {
    return Array(json(), {"spec", "template", "spec", "containers"});
  }
  // spec.selector (matchLabels, matchExpressions); nullptr when unset.
  const Json* selector() const { return Find(json(), {"spec", "selector"}); }
  // The revision annotation as a number; 0 when unset or not a number.
  int64_t revision() const;
};

class ReplicaSet : public ReplicatedView {
 public:
  using ReplicatedView::ReplicatedView;

  int64_t fully_labeled_replicas() const {
    return Integer(json(), {"status", "fullyLabeledReplicas"});
  }
};

class Deployment : public ReplicatedView {
 public:
  using ReplicatedView::ReplicatedView;

  int64_t updated_replicas() const { return Integer(json(), {"status", "updatedReplicas"}); }
  // "RollingUpdate" (the default) or "Recreate".
  std::string strategy() const {
    return String(json(), {"spec", "strategy", "type"}, "RollingUpdate");
  }
  bool paused() const;
  // spec.revisionHistoryLimit; 10 when unset.
  int64_t revision_history_limit() const {
    return Integer(json(), {"spec", "revisionHistoryLimit"}, 10);
  }
  // spec.progressDeadlineSeconds; 600 when unset.
  int64_t progress_deadline_seconds() const {
    return Integer(json(), {"spec", "progressDeadlineSeconds"}, 600);
  }
  int64_t collision_count() const { return Integer(json(), {"status", "collisionCount"}); }
  // maxSurge and maxUnavailable resolved against spec.replicas as Kubernetes does (a percentage
  // rounds up for surge, down for unavailable; both 0 makes unavailable 1); {0, 0} for Recreate.
  struct RollingLimits {
    int64_t max_surge = 0;
    int64_t max_unavailable = 0;
  };
  RollingLimits rolling_limits() const;
};

// An int-or-percent field ("25%" or 3) resolved against `total`, rounding up or down; `fallback`
// when unset or malformed (admission refuses malformed ones).
int64_t ResolveIntOrPercent(const Json* value, int64_t total, bool round_up, int64_t fallback);

}  // namespace etna::api::types
