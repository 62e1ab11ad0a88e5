// Deployment: a typed read view of an apps/v1 Deployment — its desired replicas (Kubernetes'
// default of 1), the replica counts its status reports, its pod template's containers and its
// selector. Thread-safety: const reads of the JSON only.
#pragma once

#include <cstdint>

#include "api/types/object.h"

namespace etna::api::types {

class Deployment : public ObjectView {
 public:
  using ObjectView::ObjectView;

  // spec.replicas; 1 when unset, as the API server defaults it.
  int64_t replicas() const { return Integer(json(), {"spec", "replicas"}, 1); }
  int64_t ready_replicas() const { return Integer(json(), {"status", "readyReplicas"}); }
  int64_t updated_replicas() const { return Integer(json(), {"status", "updatedReplicas"}); }
  int64_t available_replicas() const { return Integer(json(), {"status", "availableReplicas"}); }
  const Json& containers() const {
    return Array(json(), {"spec", "template", "spec", "containers"});
  }
  // spec.selector (matchLabels, matchExpressions); nullptr when unset.
  const Json* selector() const { return Find(json(), {"spec", "selector"}); }
};

}  // namespace etna::api::types
