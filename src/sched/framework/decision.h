// Decision: everything one scheduling cycle concluded, for the daemon (or the simulator) to
// apply: binds naming concrete GPU devices, evictions with reasons, nominations of pipelined
// tasks, PodGroup phase/condition/backoff updates with a reason a person can act on for every
// job left pending, the reservations to carry into the next cycle, and what the daemon's metrics
// report: each queue's allocation and fair share, and where the cycle's time went.
#pragma once

#include <string>
#include <vector>

#include "sched/model/snapshot.h"

namespace etna::sched {

struct BindDecision {
  TaskIdx task = kNone;
  std::string task_uid;
  std::string pod_name;
  std::string ns;
  std::string node;
  std::vector<int32_t> gpu_indices;  // one per device allocation, in order
  std::vector<std::string> gpu_uuids;
  std::vector<DeviceAllocation> devices;  // shares and MIG instances in detail
};

struct EvictDecision {
  TaskIdx task = kNone;
  std::string task_uid;
  std::string pod_name;
  std::string ns;
  std::string node;
  std::string reason;   // condition reason: "Preempted" or "Reclaimed"
  std::string message;  // names the preemptor and the rule
  std::string preemptor_job_uid;
};

struct NominateDecision {
  TaskIdx task = kNone;
  std::string task_uid;
  std::string node;
};

struct JobUpdate {
  JobIdx job = kNone;
  std::string job_uid;
  PodGroupPhase phase = PodGroupPhase::kPending;
  bool phase_changed = false;
  // "Scheduled" when the job holds what it needs, "Unschedulable" when it was left pending.
  std::string condition;
  std::string reason;   // e.g. "NotEnoughResources", "QueueCapabilityExceeded", "Backoff"
  std::string message;  // "0/16 nodes are available: 12 Insufficient nvidia.com/gpu, ..."
  Backoff backoff;
  // Job::evicted_in_run for the next cycle: plus this cycle's evictions, cleared once the job is
  // whole again. The update is reported when it changed (evicted_in_run_changed).
  ResourceVector evicted_in_run;
  TimeMs evicted_since_ms = 0;
  bool evicted_in_run_changed = false;
};

// A queue as the cycle left it, for the scheduler's queue metrics (Volcano's queue gauges).
struct QueueReport {
  std::string name;
  int32_t weight = 1;
  ResourceVector allocated;        // held and pipelined
  ResourceVector request;          // allocated + its jobs' pending tasks
  ResourceLimit deserved;          // from the fair-share plugin; empty: no plugin computed one
  ResourceLimit capability;        // as the queue wrote it (unnamed dimensions unbounded)
  ResourceVector real_capability;  // capability less the other queues' guarantees
  double share = 0;                // allocated / deserved, dominant over deserved's dimensions
  bool overused = false;
  // Fair share over time (fairness/fairshare.h), when a plugin keeps it.
  bool fairshare = false;
  double usage_share = 0;       // u: the share of the cluster the queue held, decayed
  double fairshare_factor = 1;  // F = 2^(−u/s)
};

// Where a cycle's time went, in milliseconds; filled only when RunCycle is given a clock.
struct CycleTimings {
  struct Step {
    std::string name;   // the action, or the plugin
    std::string phase;  // plugins: "OnSessionOpen" or "OnSessionClose"; actions: ""
    double ms = 0;
  };
  std::vector<Step> actions;  // in run order
  std::vector<Step> plugins;
};

struct Decision {
  std::vector<BindDecision> binds;
  std::vector<EvictDecision> evictions;
  std::vector<NominateDecision> nominations;
  std::vector<JobUpdate> jobs;
  std::vector<Reservation> reservations;
  std::vector<QueueReport> queues;  // one per snapshot queue, in snapshot order
  CycleTimings timings;
};

}  // namespace etna::sched
