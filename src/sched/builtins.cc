// The one list of built-in actions and plugins, by area.
#include "sched/builtins.h"

#include "sched/actions/allocate.h"
#include "sched/plugins/gang.h"
#include "sched/plugins/priority.h"

namespace etna::sched {

void RegisterCorePlugins(Registry& r) {
  r.AddAction("allocate", AllocateAction::Create);
  r.AddPlugin("gang", GangPlugin::Create);
  r.AddPlugin("priority", PriorityPlugin::Create);
}

void RegisterBuiltins(Registry& r) {
  RegisterCorePlugins(r);
  RegisterFairnessPlugins(r);
  RegisterNodePlugins(r);
  RegisterEvictionPlugins(r);
  RegisterQueueingPlugins(r);
  RegisterDevicePlugins(r);
  RegisterTopologyPlugins(r);
  RegisterSimPlugins(r);
}

}  // namespace etna::sched
