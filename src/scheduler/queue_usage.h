// QueueUsage: each queue's decayed usage (sched/model/usage.h), kept by the scheduler between
// cycles for the fair-share plugins and carried in the Queue's status.usage, so that a restarted
// scheduler (or the next leader) goes on from it:
//
//   status:
//     usage:
//       updated: "2026-12-07T15:04:05.000000Z"   # when these figures were true
//       halfLife: 604800                          # seconds
//       resources: {nvidia.com/gpu: 86400, cpu: 1.2e6, memory: 9.1e15}   # decayed resource·s
//       share: 0.21                              # u, when a plugin keeps fair share
//       fairshareFactor: 0.5                     # F
//
// Resources are in the resource's own unit (GPUs, CPU cores, bytes) times seconds. Every cycle
// ages each queue's usage by the time since the last one with what the queue held then. A queue
// met for the first time starts from its status.usage, aged to now with what it holds now: its
// pods went on running while no scheduler counted. Without a status it starts from zero.
//
// Thread-safety: none; the scheduler's cycle thread owns it.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "sched/framework/decision.h"
#include "sched/model/snapshot.h"

namespace etna::scheduler {

// status.usage as read back: the usage and when it was true (at_ms < 0: none).
struct StoredUsage {
  sched::DecayedUsage usage;
  TimeMs at_ms = -1;
};

// Reads status.usage; anything it cannot read counts as no usage (the scheduler wrote it, and
// fair share must not stop over it).
StoredUsage ParseStoredUsage(const nlohmann::json& status_usage);

class QueueUsage {
 public:
  // How often a queue's status.usage is written while it changes: what a crash can lose.
  static constexpr TimeMs kWritePeriodMs = 30'000;

  // Ages every queue of `snap` to `now` and sets its Queue::usage. `held[q]` is what queue q
  // holds now; `stored[q]` its status.usage. Queues that are gone are forgotten.
  void Advance(TimeMs now, TimeMs half_life_ms, sched::Snapshot& snap,
               const std::vector<ResourceVector>& held, const std::vector<StoredUsage>& stored);

  // status.usage for queue `name` when it is due (never written, or kWritePeriodMs since the
  // last write and there is usage to age); null otherwise. `report` adds the cycle's share and
  // factor when it has them.
  nlohmann::json DueStatus(const std::string& name, TimeMs now,
                           const sched::QueueReport* report) const;
  // The write of DueStatus succeeded.
  void Written(const std::string& name, TimeMs now);

  // The usage of `name` as of the last Advance (zero when unknown).
  sched::DecayedUsage Of(const std::string& name) const;

 private:
  struct Entry {
    sched::DecayedUsage usage;
    ResourceVector held;  // since `at`
    TimeMs at = 0;
    TimeMs written = -1;
  };
  std::map<std::string, Entry> queues_;
  TimeMs half_life_ms_ = sched::kDefaultUsageHalfLifeMs;
};

}  // namespace etna::scheduler
