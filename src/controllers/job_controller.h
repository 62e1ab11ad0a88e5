// JobController: Volcano's job controller for batch.volcano.sh/v1alpha1 Jobs. For each job it
// keeps a PodGroup and the pods of each task (job_pods.h), runs the job state machine of
// Volcano (Pending, Running, Restarting, Completing, Completed, Aborting, Aborted, Terminating,
// Terminated, Failed), applies the job's and tasks' policies to pod and task events and the
// Commands that target the job (the Command is deleted once applied), writes the job status
// through the status subresource, and deletes a finished job after ttlSecondsAfterFinished.
//
// Events come from the current state where they can (a Failed pod is PodFailed, a pod with the
// DisruptionTarget condition or deleted by someone else is PodEvicted, a pod pending past a
// PodPending policy's timeout, a task whose pods all succeeded is TaskCompleted); a deletion is
// seen only as a watch event, so a PodEvicted policy is not applied to a deletion that happened
// while the controller was down (the pod is re-created, as without a policy).
// Thread-safety: as Controller; the pending-event map is guarded by a mutex.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "controllers/controller.h"
#include "controllers/job_pods.h"

namespace etna::controllers {

struct JobContext;  // job_sync.h

class JobController : public Controller {
 public:
  explicit JobController(ControllerOptions options);
  // Stops the informers before this class's members go (their handlers use them).
  ~JobController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  struct PodEvent {
    std::string event;  // PodEvicted or PodFailed
    std::string task;
    std::string pod;
    int exit_code = 0;
    std::string version;  // the pod's job version: stale events are dropped
  };

  Status ReconcileJob(const std::string& key, JobContext& c);
  void OnPod(const std::string& type, const Json& pod);
  std::vector<Json> PodsOf(const Json& job) const;
  // The action the job's events call for, if any (commands first).
  std::optional<std::pair<std::string, std::string>> NextAction(JobContext& c);
  Status ApplyAction(JobContext& c, const std::string& action, const std::string& target_pod);
  Status EnsureGroup(JobContext& c);
  Status RunPhase(JobContext& c);
  Status SyncPods(JobContext& c);
  Status KillPods(JobContext& c, bool keep_finished, bool only_old_versions);
  Status DeletePod(const Json& pod);
  void ComputeStatus(JobContext& c);
  void SetPhase(JobContext& c, const std::string& phase, const std::string& reason = {},
                const std::string& message = {});
  Status WriteStatus(JobContext& c);
  Status CheckTtl(JobContext& c);

  client::Informer* jobs_;
  client::Informer* pods_;
  client::Informer* podgroups_;
  client::Informer* commands_;
  mutable std::mutex mu_;
  std::map<std::string, std::vector<PodEvent>> events_;  // job key -> unhandled events
  std::set<std::string> self_deleted_;                   // uids of pods this controller deleted
  std::set<std::string> handled_disruptions_;            // pod uids already acted on
  std::set<std::string> done_commands_;                  // uids of Commands applied
  std::set<std::string> made_config_maps_;  // job uids whose svc ConfigMap and Service exist
  std::map<std::string, int64_t> seen_generation_;            // job key -> metadata.generation
  std::map<std::string, std::set<std::string>> pods_by_job_;  // job key -> its pods' names
};

}  // namespace etna::controllers
