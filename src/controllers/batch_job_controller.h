// BatchJobController: Kubernetes' job controller (batch/v1 Job) and its TTL-after-finished
// controller.
//  - Keeps min(parallelism, what remains) pods of the Job's template active: for an Indexed Job
//    one pod per index not yet completed (lowest first, "<job>-<index>-" names, the index in the
//    pod's annotation, label, hostname and JOB_COMPLETION_INDEX); for a work-queue Job (no
//    completions) none new once one pod has succeeded. A failed pod is replaced after an
//    exponential back-off (10 s doubling, at most 6 min).
//  - Counts finished pods as Kubernetes does with its tracking finalizer: each pod is created
//    with batch.kubernetes.io/job-tracking; a finished pod's uid goes into
//    status.uncountedTerminatedPods, then its finalizer is removed, then it moves into
//    status.succeeded/failed (and an Indexed Job's completedIndexes). Every status write names
//    the resourceVersion it read, and a pass waits until the pod cache shows its own creations,
//    deletions and finalizer removals (expectations.h), so a pod is counted once even across a
//    restart or a stale cache, and deleting a finished pod never runs its work again.
//  - Fails the Job (condition Failed; its active pods deleted) on more failures than
//    backoffLimit (counting container restarts under restartPolicy OnFailure), past
//    activeDeadlineSeconds from startTime, or on a podFailurePolicy FailJob rule; Ignore rules
//    leave a failure uncounted. Completes it (Complete, completionTime) when completions pods
//    (or every index) succeeded, or for a work-queue Job when one succeeded and none is active.
//  - spec.suspend deletes the active pods (their failures not counted) under condition
//    Suspended; resuming resets startTime.
//  - A Job deleted (or gone) lets go of its pods' finalizers, so the cascade can delete them.
//  - ttlSecondsAfterFinished deletes a finished Job (and, by cascade, its pods) that long after
//    it finished.
//  - Events: SuccessfulCreate, SuccessfulDelete, Completed, BackoffLimitExceeded,
//    DeadlineExceeded, PodFailurePolicy, Suspended, Resumed.
// Keys: "<ns>/<name>" of Jobs, "pod/<ns>/<name>" of pods to let go. Thread-safety: as Controller
// (one worker).
#pragma once

#include <string>

#include "controllers/controller.h"
#include "controllers/expectations.h"

namespace etna::controllers {

using Json = nlohmann::json;

class BatchJobController : public Controller {
 public:
  explicit BatchJobController(ControllerOptions options);
  ~BatchJobController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  struct Pass;
  // Sorts the Job's pods into active, finished-and-uncounted and the rest.
  void ClassifyPods(Pass& p);
  // Decides whether the Job has now completed or failed.
  void DecideFinish(Pass& p);
  // Creates and deletes pods towards what the Job wants active.
  Status ManagePods(Pass& p);
  // The status the pass arrived at (counted, uncounted, active, conditions, ...): with
  // `flush_counted` the uncounted pods counted (else the newly finished added to them), with
  // `with_finish` the finished condition the pass decided.
  Json BuildStatus(const Pass& p, bool flush_counted, bool with_finish);
  Status WriteStatus(Pass& p, const Json& status);
  // Removes the tracking finalizer from the pods in `names`.
  Status RemoveFinalizers(Pass& p, const std::vector<std::string>& names);
  // Removes the tracking finalizer of pod `name` when its Job is gone or being deleted.
  Status ReleaseOrphan(const std::string& ns, const std::string& name);
  // Deletes a finished Job whose ttlSecondsAfterFinished has passed.
  Status ApplyTtl(const Json& job);

  client::Informer* jobs_;
  client::Informer* pods_;
  PodExpectations expectations_;
};

}  // namespace etna::controllers
