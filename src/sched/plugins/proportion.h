// proportion: weighted fair share of the cluster among queues (Volcano's proportion plugin).
//
// At session open each queue's request (allocated + pending tasks of its jobs) and real
// capability (min(capability, total − the other queues' guarantees)) give its deserved share by
// iterative weight water-filling of cluster_total() (fairness::WaterFill). Queue::deserved is
// ignored, as in Volcano (#5814); enableHierarchy is ignored too.
//   QueueOrder: spec priority (higher first), then allocated/deserved dominant share (lower first).
//   Overused: deserved ≤ allocated on every dimension the queue requests.
//   Allocatable / Preemptive: allocated + task request ≤ deserved on the requested dimensions.
//   Reclaimable: only from reclaimable queues above their deserved share, and only while the
//     queue stays at or above it (victims already chosen are counted).
//   JobEnqueueable: min_resources + allocated + inqueue ≤ real capability (open queues only);
//     JobEnqueued adds the job's min_resources to the queue's inqueue; the
//     job's part shrinks as its tasks are allocated (event handler).
// Deserved never exceeds the real capability, so the capability is never exceeded.
//
// Arguments: `fairshare` and `fairshare.halfLife` (fairness/fairshare.h): the water-fill uses
// weight · F, the factor of each queue's decayed usage, and equal shares order the queue with the
// larger weight · F first. Thread-safety: none; built per session.
#pragma once

#include <vector>

#include "common/resource.h"
#include "sched/fairness/fairshare.h"
#include "sched/framework/plugin.h"
#include "sched/model/snapshot.h"

namespace etna::sched {

class ProportionPlugin : public Plugin {
 public:
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  explicit ProportionPlugin(fairness::FairshareOptions fairshare) : fairshare_(fairshare) {}
  std::string_view name() const override { return "proportion"; }
  void OnSessionOpen(Session& session) override;

 private:
  struct Attr {
    ResourceVector request;
    ResourceVector real_capability;
    ResourceVector deserved;
    ResourceVector inqueue;   // min_resources of admitted jobs not yet allocated
    int32_t fill_weight = 1;  // weight, or weight · F with fair share on
  };
  void ComputeAttrs(Session& s);
  void Register(Session& s);
  // Sets the job's inqueue part to min_resources − allocated (0 when not admitted).
  void SetInqueue(const Job& job, JobIdx j, bool admitted);

  fairness::FairshareOptions fairshare_;
  std::vector<Attr> attrs_;
  std::vector<ResourceVector> job_inqueue_;
};

}  // namespace etna::sched
