// Decision: everything one scheduling cycle concluded, for the daemon (or the simulator) to
// apply: binds naming concrete GPU devices, evictions with reasons, nominations of pipelined
// tasks, PodGroup phase/condition/backoff updates with a reason a person can act on for every
// job left pending, and the reservations to carry into the next cycle.
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
};

struct Decision {
  std::vector<BindDecision> binds;
  std::vector<EvictDecision> evictions;
  std::vector<NominateDecision> nominations;
  std::vector<JobUpdate> jobs;
  std::vector<Reservation> reservations;
};

}  // namespace etna::sched
