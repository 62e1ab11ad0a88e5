// The built-in actions and plugins, registered per area. RegisterBuiltins (builtins.cc) calls
// each of these; each area's file is the one place that lists its actions and plugins.
#pragma once

#include "sched/framework/registry.h"

namespace etna::sched {

void RegisterCorePlugins(Registry& r);      // allocate, gang, priority
void RegisterFairnessPlugins(Registry& r);  // drf, proportion, capacity
void RegisterNodePlugins(Registry& r);      // predicates, nodeorder, binpack, conformance, ...
void RegisterEvictionPlugins(Registry& r);  // preempt, reclaim, preemption rules
void RegisterQueueingPlugins(Registry& r);  // enqueue, backfill, reservation
void RegisterDevicePlugins(Registry& r);    // deviceshare
void RegisterTopologyPlugins(Registry& r);  // gpu-topology, network-topology-aware, ...
void RegisterSimPlugins(Registry& r);       // GPU-sharing policies of the trace simulator

}  // namespace etna::sched
