// Pod: a typed read view of a core/v1 Pod — its phase and the rules on it (terminal,
// deleting, ready, disrupted), where it runs, its containers, the Volcano job labels the job
// controller puts on it and the devices its bind gave it (bound_devices.h).
// Thread-safety: const reads of the JSON only.
#pragma once

#include <string>
#include <string_view>

#include "api/types/bound_devices.h"
#include "api/types/object.h"

namespace etna::api::types {

// Succeeded and Failed are the phases a pod never leaves.
bool IsTerminalPhase(std::string_view phase);

class Pod : public ObjectView {
 public:
  using ObjectView::ObjectView;

  // status.phase; "Pending" when unset, as a real apiserver sets it on create.
  std::string phase() const { return String(json(), {"status", "phase"}, "Pending"); }
  // Succeeded or Failed: the pod will not run again.
  bool IsTerminal() const { return IsTerminalPhase(phase()); }
  std::string node_name() const { return String(json(), {"spec", "nodeName"}); }
  std::string scheduler_name() const { return String(json(), {"spec", "schedulerName"}); }
  const Json& containers() const { return Array(json(), {"spec", "containers"}); }
  const Json& init_containers() const { return Array(json(), {"spec", "initContainers"}); }
  const Json& conditions() const { return Array(json(), {"status", "conditions"}); }
  // Whether condition `type` is "True".
  bool HasCondition(std::string_view type) const {
    return ConditionTrue(json(), {"status", "conditions"}, type);
  }
  bool IsReady() const { return HasCondition("Ready"); }
  // The scheduler marked it a preemption victim (condition DisruptionTarget=True).
  bool IsDisrupted() const;

  // The Volcano job labels (well_known.h): the job, the task and the job version it was made for.
  std::string JobName() const;
  std::string TaskName() const;
  std::string JobVersion() const;
  // The PodGroup it belongs to (annotation scheduling.k8s.io/group-name), "" when none.
  std::string GroupName() const;

  // Scheduled by Volcano or etna (schedulerName volcano or etna) and in no PodGroup yet: a bare
  // pod, which admission routes to a queue and the podgroup controller gives a PodGroup of its own.
  bool IsBarePod() const;
  // Owned by a ReplicaSet or a Deployment: a service, scheduled with the inference defaults.
  bool IsServicePod() const { return HasOwnerOfKind("ReplicaSet") || HasOwnerOfKind("Deployment"); }

  // The devices the scheduler's bind gave it; an error names the bad annotation.
  Result<BoundDevices> BoundGpus() const { return DecodeBoundDevices(annotations()); }
};

}  // namespace etna::api::types
