// Built-in fairness actions and plugins.
#include "sched/builtins.h"
#include "sched/plugins/capacity.h"
#include "sched/plugins/drf.h"
#include "sched/plugins/proportion.h"

namespace etna::sched {

void RegisterFairnessPlugins(Registry& r) {
  r.AddPlugin("drf", DrfPlugin::Create);
  r.AddPlugin("proportion", ProportionPlugin::Create);
  r.AddPlugin("capacity", CapacityPlugin::Create);
}

}  // namespace etna::sched
