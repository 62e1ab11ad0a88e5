// SeedConfig: the seed's scheduler ConfigMap volcano-system/volcano-scheduler-config
// (examples/seed/volcano-cluster-config.yaml), whose five embedded files Volcano never reads.
// Every key of it gets an outcome, "in force" (with what it does) or "ignored" (with why):
//
//   priority.conf   classAndPriors, defaultPriority: the priority classes and the default
//                   (api/types/priority.h; admission reads the same key from the API itself)
//   gpu-topology-config.json
//                   gpuTopologyAwareness (false leaves gpu-topology out), nvlinkPreferred and
//                   pciePreferred (gpu-topology.nvlinkPreferred / .pciePreferred),
//                   nicTopology.intraNodePenalty / .interNodePenalty (network-topology-aware's
//                   arguments of those names; the seed's key " nicTopology" is read with its
//                   leading space trimmed), nicTopology.allowedDDGZZones ignored
//   queue.conf      queue.plugin: plugins etna has are enabled (added to the tiers when
//                   missing); gang.scheduling.enable / .together: in force when true
//   volcano.conf    scheduler.name: in force only when it is a served schedulerName;
//                   scheduler.hierarchical.pods ignored
//   reclaim.conf    reclaimable: true is the Queue default; allowNext ignored
//
// A volcano-scheduler.conf (the Volcano ConfigMap, or --conf) stays the source of actions and
// tiers; an argument it sets itself wins over the seed's key, which is then reported ignored.
// Pure functions; plain values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/types/priority.h"
#include "sched/framework/conf.h"
#include "sched/framework/registry.h"

namespace etna::scheduler {

inline constexpr char kSeedConfigMapNamespace[] = "volcano-system";
inline constexpr char kSeedConfigMapName[] = "volcano-scheduler-config";

// One key's outcome; `key` is "<file> <path>", e.g. "priority.conf classAndPriors[0].class".
struct SeedKeyOutcome {
  std::string key;
  bool in_force = false;
  std::string detail;  // what it does, or why it is ignored
  // A plugin argument the key sets ("gpu-topology", "gpu-topology.nvlinkPreferred"); empty for
  // other keys. ApplySeedConfig reports it ignored when the base configuration sets it.
  std::string plugin, argument, value;

  std::string Line() const;  // "<key>: in force: <detail>" / "<key>: ignored: <detail>"
};

struct SeedConfig {
  api::types::PriorityConf priority;
  // Plugin name -> argument -> value, from gpu-topology-config.json.
  std::map<std::string, std::map<std::string, std::string>> arguments;
  std::vector<std::string> plugins;  // queue.plugin names etna has
  bool gpu_topology_off = false;     // gpuTopologyAwareness: false
  std::vector<SeedKeyOutcome> outcomes;
};

// Reads the ConfigMap's `data`. `served_names` are the schedulerName values the scheduler serves.
SeedConfig ParseSeedConfig(const std::map<std::string, std::string>& data,
                           const sched::Registry& registry,
                           const std::vector<std::string>& served_names);

// `base` with the seed's plugins and arguments applied; outcomes whose effect depends on `base`
// (an argument `base` sets itself, a plugin it lacks) are completed in `seed`. An argument the
// plugin refuses is an error naming it.
Result<sched::SchedulerConf> ApplySeedConfig(SeedConfig& seed, sched::SchedulerConf base,
                                             const sched::Registry& registry);

}  // namespace etna::scheduler
