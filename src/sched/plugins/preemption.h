// preemption: the seed's preemption rules (docs/design.md) as plugin arguments. It registers no
// callbacks; at session open it writes the session's PreemptionPolicy, which the preempt and
// reclaim actions read. Without this plugin the policy keeps its defaults.
//
// Arguments:
//   preemption.maxClusterFraction   of each cluster resource evicted per cycle (0.3), in (0, 1]
//   preemption.maxJobFraction       of a victim job's requested resources per cycle (0.5), (0, 1]
//   preemption.victimOrder          longest-running (default) | least-work-lost
//   preemption.wholeGang            evict whole lower-priority gangs when no slack (false)
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
