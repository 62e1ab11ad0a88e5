// nodeorder: Volcano's nodeorder plugin, kube-scheduler node scores, each scaled to 0..100 and
// multiplied by its weight argument (all summed):
//   leastrequested.weight (1)   free share of cpu and memory after the task
//   mostrequested.weight (0)    used share of cpu and memory after the task
//   balancedresource.weight (1) 100 × (1 − |cpu share − memory share| / 2)
//   nodeaffinity.weight (1)     preferred node affinity terms, normalized by the best node
//   podaffinity.weight (1)      the task's preferred pod affinity (+) and anti-affinity (−)
//                               terms, weighted by the matching tasks in the node's domain,
//                               normalized min..max over the schedulable nodes
//   tainttoleration.weight (1)  fewer intolerable PreferNoSchedule taints score higher
//   podtopologyspread.weight (2) the task's ScheduleAnyway topologySpreadConstraints: fewer
//                               matching tasks in the node's domain score higher
//                               (topology_spread.h)
// Accepted and ignored (no image or volume model here): imagelocality.weight,
// selectorspread.weight, volumebinding.weight.
// Shares use allocatable against used + the task's request, in integer math as kube does.
//
// Thread-safety: none; one instance per session.
#pragma once

#include <map>
#include <unordered_map>
#include <vector>

#include "sched/framework/plugin.h"
#include "sched/framework/session.h"
#include "sched/plugins/topology_spread.h"

namespace etna::sched {

class NodeOrderPlugin : public Plugin {
 public:
  struct Weights {
    int64_t least_requested = 1;
    int64_t most_requested = 0;
    int64_t balanced_resource = 1;
    int64_t node_affinity = 1;
    int64_t pod_affinity = 1;
    int64_t taint_toleration = 1;
    int64_t pod_topology_spread = 2;  // Volcano's default
  };
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  explicit NodeOrderPlugin(Weights w) : w_(w) {}
  std::string_view name() const override { return "nodeorder"; }
  void OnSessionOpen(Session& session) override;

  // The individual kube scores (0..100), exposed for tests and other plugins.
  static int64_t LeastRequested(const Task& t, const Node& n);
  static int64_t MostRequested(const Task& t, const Node& n);
  static int64_t BalancedResource(const Task& t, const Node& n);

 private:
  double NodeAffinityScore(const Session& s, const Task& t, const Node& n);
  double TaintScore(const Session& s, const Task& t, const Node& n);
  double PodAffinityScore(const Session& s, const Task& t, const Node& n);

  Weights w_;
  TopologySpread spread_;
  std::unordered_map<const PodSpec*, int64_t> node_affinity_max_;  // per spec, static
  std::unordered_map<const PodSpec*, int64_t> taint_max_;
  struct PodAffinityState {
    TaskIdx task = kNone;
    size_t log_pos = 0;
    std::vector<int64_t> raw;  // per node
    int64_t min = 0, max = 0;
  };
  PodAffinityState pod_affinity_;
};

}  // namespace etna::sched
