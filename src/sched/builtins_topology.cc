// Built-in topology plugins: GPU interconnect, network topology, workload defaults.
#include "sched/builtins.h"
#include "sched/plugins/gpu_topology.h"
#include "sched/plugins/network_topology.h"
#include "sched/plugins/workload_defaults.h"

namespace etna::sched {

void RegisterTopologyPlugins(Registry& r) {
  r.AddPlugin("gpu-topology", GpuTopologyPlugin::Create);
  r.AddPlugin("network-topology-aware", NetworkTopologyPlugin::Create);
  r.AddPlugin("network-topology", NetworkTopologyPlugin::Create);  // alias
  r.AddPlugin("workload-defaults", WorkloadDefaultsPlugin::Create);
}

}  // namespace etna::sched
