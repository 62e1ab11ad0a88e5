// network-topology-aware (Volcano 1.12's name): keeps a gang's tasks close in the network.
//
// Applies to jobs with a PodGroup networkTopology (hard or soft) and to every gang
// (minAvailable > 1): the seed's "same node > same switch > cross switch". NodeOrder score
// for a task of such a job on node n, × weight:
//   - when members of the job already hold (or are pipelined on) nodes:
//       100 − mean over those members m of penalty(distance(n, m.node)), at least 0, where
//       penalty(0) = intraNodePenalty and penalty(d) = interNodePenalty · d for d >= 1
//       (distance: model/hypernode.h; tier 1 = one switch, cross switch = max tier + 1);
//   - for the first member: 50 · min(1, F_node / P) + 50 · min(1, F_switch / P), where P is
//     the job's pending tasks and F_node / F_switch how many copies of this task's request
//     fit in the idle resources of n / of the tightest hypernode holding n — so the gang
//     starts where all of it fits on one node, else under one switch.
// Soft mode is this preference; hard mode is enforced by allocate (actions/topology_placement.h)
// and this score still orders nodes inside the chosen hypernode.
//
// The score of one node depends on where other members went, so the plugin marks the session
// cross-node (the placer re-scans instead of reusing a job's candidate list) when some pending
// job has two or more tasks to place.
//
// Arguments: weight (1), intraNodePenalty (0), interNodePenalty (50) — the seed's
// gpu-topology-config.json `nicTopology` keys; all >= 0. `network-topology` is an alias name.
//
// Thread-safety: none; one instance per session.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "sched/framework/plugin.h"
#include "sched/model/hypernode.h"
#include "sched/model/snapshot.h"
#include "sched/plugins/member_nodes.h"

namespace etna::sched {

class NetworkTopologyPlugin : public Plugin {
 public:
  struct Options {
    int64_t weight = 1;
    int64_t intra_node_penalty = 0;
    int64_t inter_node_penalty = 50;
  };
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  explicit NetworkTopologyPlugin(Options o) : o_(o) {}
  std::string_view name() const override { return "network-topology-aware"; }
  void OnSessionOpen(Session& session) override;

  // Whether the plugin scores tasks of `job`.
  static bool Applies(const Job& job);

 private:
  void AddScores(const Session& s, const Task& t, const std::vector<const Node*>& nodes,
                 std::vector<double>& scores);
  // The score before the weight, for a task whose job's other members are `m`.
  double Score(const Session& s, const Task& t, const MemberNodes& m, const Node& n);
  int64_t SwitchFit(const Session& s, const Task& t, int32_t hypernode);

  Options o_;
  std::unique_ptr<HyperNodeIndex> topology_;
  // Per-hypernode fit of the task being scored, valid for one (task, change-log position).
  TaskIdx fit_task_ = kNone;
  size_t fit_log_ = 0;
  std::vector<int64_t> switch_fit_;
  MemberNodesCache members_;
};

// How many copies of `request` fit in `idle` (each requested dimension); large when none asked.
int64_t CopiesThatFit(const ResourceVector& request, const ResourceVector& idle);

}  // namespace etna::sched
