// Built-in node actions and plugins.
#include "sched/builtins.h"
#include "sched/plugins/binpack.h"
#include "sched/plugins/conformance.h"
#include "sched/plugins/nodeorder.h"
#include "sched/plugins/overcommit.h"
#include "sched/plugins/predicates.h"
#include "sched/plugins/sla.h"

namespace etna::sched {

void RegisterNodePlugins(Registry& r) {
  r.AddPlugin("predicates", PredicatesPlugin::Create);
  r.AddPlugin("nodeorder", NodeOrderPlugin::Create);
  r.AddPlugin("binpack", BinpackPlugin::Create);
  r.AddPlugin("conformance", ConformancePlugin::Create);
  r.AddPlugin("overcommit", OvercommitPlugin::Create);
  r.AddPlugin("sla", SlaPlugin::Create);
}

}  // namespace etna::sched
