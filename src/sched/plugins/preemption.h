// preemption: the seed's preemption rules (docs/design.md) as plugin arguments. It registers no
// callbacks; at session open it writes the session's PreemptionPolicy, which the preempt and
// reclaim actions read. Without this plugin the policy keeps its defaults.
//
// Arguments:
//   preemption.maxClusterFraction   of each cluster resource evicted per cycle (0.3), in (0, 1];
//                                   preempt and reclaim of one cycle share this one budget
//   preemption.maxJobFraction       of a victim job's requested resources over its current run
//                                   (0.5), in (0, 1]: what it lost in earlier cycles counts until
//                                   the job is whole again (Job::evicted_in_run)
//   preemption.victimOrder          longest-running (default) | least-work-lost (the time since
//                                   the task's last checkpoint, pod annotation
//                                   etna.io/last-checkpoint; a gang: its oldest member's)
//   preemption.wholeGang            when no member above minAvailable makes room, evict whole
//                                   lower-priority gangs, in the same order (true). Such a job
//                                   stops and waits Pending as a whole, so it may lose more than
//                                   maxJobFraction; maxClusterFraction still applies. With
//                                   false, a gang whose minAvailable is its size is never taken.
//   preemption.requireHigherPriority  victim job priority < preemptor's (true)
//
// Thread-safety: none needed; built per session, holds only its parsed policy.
#pragma once

#include "sched/framework/plugin.h"
#include "sched/framework/policies.h"

namespace etna::sched {

class PreemptionPlugin : public Plugin {
 public:
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  std::string_view name() const override { return "preemption"; }
  void OnSessionOpen(Session& session) override;
  const PreemptionPolicy& policy() const { return policy_; }

 private:
  PreemptionPolicy policy_;
};

}  // namespace etna::sched
