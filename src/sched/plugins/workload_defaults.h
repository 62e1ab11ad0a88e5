// workload-defaults: the seed's training-vs-inference placement defaults (docs/design.md) as a
// NodeOrder score, × weight, for tasks that request GPUs:
//   - small training (the job's GPUs, over every unfinished task, < 8): binpack inside an
//     NVLink domain: 50 · GPU fill of the node after the task + 50 · the gpu-topology domain
//     fit (plugins/gpu_topology.h Score / 100; 0 for a fraction of a GPU) for the job's GPUs
//     still to place, × the share of all the job's GPUs that would then sit together on the
//     node, so a gang of one-GPU tasks goes where one NVLink domain holds it all;
//   - large training (>= 8 GPUs; exactly 8 counts as large, since the seed only calls < 8
//     small — an 8-GPU task on an 8-GPU node takes a whole node either way): spread across
//     nodes under one switch: 50 · (1 − GPU fill after) + 50 · the share of the job's placed
//     members under the same tier-1 hypernode as the node (1 when none is placed yet);
//   - inference (Job::kind, from `etna.io/workload: inference`; Deployment pods too): binpack
//     with sharing: 50 · GPU fill after + 50 · the fill after of the fullest device that has
//     room for a fraction of a GPU (the node fill again for whole GPUs).
// Combine with network-topology-aware for same-node preference of gangs; the two weigh against
// each other for large training (spread vs same node).
//
// Arguments: weight (1, >= 0).
//
// Thread-safety: none; one instance per session.
#pragma once

#include <memory>
#include <vector>

#include "sched/framework/plugin.h"
#include "sched/model/hypernode.h"
#include "sched/model/snapshot.h"
#include "sched/plugins/member_nodes.h"

namespace etna::sched {

class WorkloadDefaultsPlugin : public Plugin {
 public:
  static constexpr int64_t kLargeTrainingMilliGpu = 8000;

  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  explicit WorkloadDefaultsPlugin(int64_t weight) : weight_(weight) {}
  std::string_view name() const override { return "workload-defaults"; }
  void OnSessionOpen(Session& session) override;

 private:
  double Score(const Session& s, const Task& t, const Node& n);
  // Large training: the share of the placed members under the node's switch (MemberNodeOrderFn).
  void AddTogetherScores(const Session& s, const Task& t, const std::vector<const Node*>& nodes,
                         std::vector<double>& scores);
  // Small training gangs: the gang's domain fit (DomainFit) in place of the task's own.
  void AddGangDomainScores(const Session& s, const Task& t, const std::vector<const Node*>& nodes,
                           std::vector<double>& scores) const;

  int64_t weight_;
  std::unique_ptr<HyperNodeIndex> topology_;
  MemberNodesCache members_;
};

}  // namespace etna::sched
