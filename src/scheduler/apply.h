// DecisionApplier: carries a cycle's Decision out through the API.
//
// - Binds: each pod is marked Binding in the cache, then POSTed to pods/binding (with the device
//   annotations, convert.h) by a pool of workers, so a gang's binds go out in parallel and the
//   next cycle can run while they are in flight. A failed bind un-marks the pod (pending again)
//   and is reported as a FailedScheduling event.
// - Evictions: the victim gets condition DisruptionTarget=True (reason Preempted or Reclaimed,
//   message naming the preemptor) through a status patch, then pods/eviction.
// - PodGroup status (phase and one Scheduled/Unschedulable condition), Queue status.allocated
//   and status.timeWindow ({open, nextOpen} for a queue with timePolicies) by JSON merge patch,
//   only when they differ from what was last written; sent by the same workers after the
//   cycle's binds (a failed patch is retried after the next cycle).
// - Events: Scheduled, FailedScheduling, Preempted and Evict (client/event_recorder.h).
//
// Thread-safety: Apply from one thread (the scheduling loop); WaitForBinds from any.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/event_recorder.h"
#include "client/rest.h"
#include "sched/framework/decision.h"
#include "scheduler/cache.h"

namespace etna::scheduler {

using client::EventRecorder;
using client::ObjectRef;

struct ApplyStats {
  uint64_t binds = 0;
  uint64_t bind_failures = 0;
  uint64_t evictions = 0;
  uint64_t podgroup_patches = 0;
  uint64_t queue_patches = 0;
};

class DecisionApplier {
 public:
  DecisionApplier(client::RestClient* rest, Cache* cache, EventRecorder* events, int bind_workers);
  ~DecisionApplier();

  // `nodes` are the snapshot's nodes as the cycle saw them (for device UUIDs and MIG ids).
  // `usage` gives each queue's status.usage when it is due (written as of `now`).
  void Apply(const Assembled& view, const std::vector<sched::Node>& nodes,
             const sched::Decision& decision, QueueUsage& usage, TimeMs now);
  // Blocks until every bind and patch handed out so far has been answered.
  void WaitForBinds();
  ApplyStats stats() const;

 private:
  struct BindJob {
    std::string key, ns, pod, node, pod_uid;
    json annotations;
  };
  struct JobStatus {
    std::string phase, condition, reason, message;
    int32_t failures = 0;
    std::string evicted_in_run;  // status.evictedInRun as written, JSON text
  };

  void Worker();
  void Post(std::function<void()> work);
  void Bind(const BindJob& job);
  // After a bind whose answer was lost (the connection broke, the server died, a timeout): reads
  // the pod back, through another server when there is one, until it can tell whether the bind
  // was applied. Its node then, "" when it is unbound or is another pod now; while nothing can
  // be read the bind counts as applied, so its GPUs are never given to another pod meanwhile.
  std::string NodeAfterLostAnswer(const BindJob& job);
  void PatchPodGroup(const std::string& key, const std::string& ns, const std::string& name,
                     const json& status);
  void Evict(const sched::EvictDecision& e);
  void UpdateJobs(const Assembled& view, const sched::Decision& decision);
  void UpdateQueues(const Assembled& view, const sched::Decision& decision, QueueUsage& usage,
                    TimeMs now);

  client::RestClient* rest_;
  Cache* cache_;
  EventRecorder* events_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Ends NodeAfterLostAnswer's pauses; not cv_, whose notify_one (Post) must reach a worker.
  std::condition_variable stop_cv_;
  std::deque<std::function<void()>> work_;
  size_t active_ = 0;
  bool stop_ = false;
  ApplyStats stats_;
  std::vector<std::thread> workers_;
  // What was last written, so unchanged status is not patched again (job_status_ under mu_).
  std::map<std::string, JobStatus> job_status_;
  std::map<std::string, std::map<std::string, std::string>> queue_allocated_;
  std::map<std::string, json> queue_window_;  // status.timeWindow; null: none written
};

}  // namespace etna::scheduler
