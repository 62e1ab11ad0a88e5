// The one list of built-in actions and plugins.
#include "sched/actions/allocate.h"
#include "sched/framework/registry.h"
#include "sched/plugins/gang.h"
#include "sched/plugins/priority.h"

namespace etna::sched {

void RegisterBuiltins(Registry& r) {
  r.AddAction("allocate", AllocateAction::Create);

  r.AddPlugin("gang", GangPlugin::Create);
  r.AddPlugin("priority", PriorityPlugin::Create);
}

}  // namespace etna::sched
