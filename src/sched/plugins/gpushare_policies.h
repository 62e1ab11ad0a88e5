// GPU-sharing placement policies from the FGD paper (Weng et al., USENIX ATC'23) and its
// simulator, as NodeOrder plugins with device choosers, plus etna's own refinement of FGD.
//
//   randomfit      every feasible node scores 0, so the placer's uniform tie-break picks one
//                  at random; a share goes on a random device with room.
//   dotprod        Tetris: 100·(1 − ½(cpuFree·cpuReq/128000² + gpuFree·gpuReq/8000²)).
//   gpuclustering  prefer nodes already running tasks of the same GPU "affinity" (share-gpu,
//                  k-gpu), then fuller nodes.
//   gpupacking     prefer a partially used GPU, then free GPUs of a used node, then idle nodes.
//   bestfit        100·(1 − ½(cpuFree − cpuReq)/128000 − ½(gpuFree − gpuReq)/8000).
//   fgd            fragmentation gradient descent: 100·sigmoid((F_before − F_after)/1000) for the
//                  best device of the node (see placement/gpu_frag.h); shares go on that device.
//   fgdplus        etna: FGD without integer rounding of the score, with ties broken toward the
//                  node whose idle GPUs are fewest (see gpushare_policies.cc).
// Scores are integers like the simulator's (except fgdplus), so the placer's random tie-break
// matters as kube-scheduler's does. The non-FGD policies put a share on the best-fitting
// device (least room that still holds it, lowest index on ties); whole GPUs are the
// lowest-indexed free devices.
//
// Arguments: seed (randomfit's device choice), workload (fgd, fgdplus: the task shapes with
// counts, "count:cpu_milli:num_gpu:gpu_milli:models;..." with models "A|B" or empty; default:
// the tasks in the session), popularity (percentage of tasks the typical shapes cover, 95).
//
// Thread-safety: none; one instance per session.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sched/framework/plugin.h"
#include "sched/placement/gpu_frag.h"

namespace etna::sched {

class GpuSharePolicyPlugin : public Plugin {
 public:
  enum class Policy { kRandom, kDotProd, kGpuClustering, kGpuPacking, kBestFit, kFgd, kFgdPlus };
  struct Options {
    uint64_t seed = 0;
    bool has_workload = false;
    std::vector<WeightedShape> workload;
    int popularity = 95;
  };

  static Result<std::unique_ptr<Plugin>> Create(Policy policy, PluginBuildContext& ctx);
  // "count:cpu_milli:num_gpu:gpu_milli:models;..." → shapes with counts.
  static Result<std::vector<WeightedShape>> ParseWorkload(const std::string& text);
  static std::string FormatWorkload(const std::vector<WeightedShape>& shapes);
  static const char* PluginName(Policy policy);

  GpuSharePolicyPlugin(Policy policy, Options options);
  ~GpuSharePolicyPlugin() override;
  std::string_view name() const override { return PluginName(policy_); }
  void OnSessionOpen(Session& session) override;

 private:
  struct State;
  Policy policy_;
  Options options_;
  std::unique_ptr<State> state_;
};

}  // namespace etna::sched
