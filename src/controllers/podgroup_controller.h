// PodGroupController: Volcano's pg controller plus the seed's PodGroup ttl.
//  - A pod whose schedulerName is volcano or etna and that has no
//    scheduling.k8s.io/group-name annotation gets a PodGroup `podgroup-<pod uid>` (minMember 1,
//    the queue in the pod's scheduling.volcano.sh/queue-name annotation, which admission routed,
//    or "default", its priorityClassName and requests), owned by the pod, and the annotation.
//    The pods of a batch/v1 Job share one `podgroup-<job uid>` owned by the Job, as Volcano's pg
//    controller makes it: minMember from their scheduling.volcano.sh/group-min-member
//    annotation (1 when unset), minResources that many pods' requests.
//    The group of a pod a ReplicaSet or Deployment owns is labelled `etna.io/workload:
//    inference`, so the scheduler gives it the inference defaults (binpack with sharing).
//  - A PodGroup with spec.ttl (seconds) still Pending or Inqueue (or without a phase) ttl
//    seconds after its creation is failed: status.phase "Failed" and an Unschedulable
//    condition with reason WaitTimeout (the job controller then fails its job with that reason);
//    the pending pods of a group that no Job owns are deleted.
// Keys: "pod/<ns>/<name>" and "pg/<ns>/<name>". Thread-safety: as Controller.
#pragma once

#include "controllers/controller.h"

namespace etna::controllers {

inline constexpr char kWaitTimeoutReason[] = "WaitTimeout";

class PodGroupController : public Controller {
 public:
  explicit PodGroupController(ControllerOptions options);
  // Stops the informers before this class's members go (their handlers use them).
  ~PodGroupController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  Status ReconcilePod(const std::string& ns, const std::string& name);
  Status ReconcileGroup(const std::string& key, const std::string& ns, const std::string& name);

  client::Informer* pods_;
  client::Informer* podgroups_;
};

}  // namespace etna::controllers
