// Built-in eviction actions and plugins.
#include "sched/actions/preempt.h"
#include "sched/actions/reclaim.h"
#include "sched/builtins.h"
#include "sched/plugins/preemption.h"

namespace etna::sched {

void RegisterEvictionPlugins(Registry& r) {
  r.AddAction("preempt", PreemptAction::Create);
  r.AddAction("reclaim", ReclaimAction::Create);
  r.AddPlugin("preemption", PreemptionPlugin::Create);
}

}  // namespace etna::sched
