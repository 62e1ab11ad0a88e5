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
//   fgdplus        etna: FGD's node score (integer, as published), but a share goes on the
//                  device with the steepest unrounded fragmentation decrease; FGD rounds the
//                  device score to an integer too and takes the lowest-indexed device among
//                  the many resulting ties, which is often not the least-fragmenting one.
//
// Why fgdplus stays this close to FGD (openb, seeds 42..51, 130 % arrived; issue 3): the
// refinements tried all measured within seed noise (±10 GPUs) of FGD or worse — unrounded node
// deltas (432 unallocated GPUs vs FGD's 287: the sigmoid's saturation and the rounding's ties,
// broken in the simulator's fixed random node order, act as first-fit packing and are worth
// keeping), packing tie-breaks (fewest idle GPUs: 293; most idle GPUs: 562..622), weighted FGD +
// best-fit mixes (313..359), coarser or finer score steps (287..303), 100 % typical-shape coverage
// (292), a penalty for breaking a whole free node (289). At 130 % the idle GPUs are slivers
// (seed 42: 188 of 291 idle GPUs are 150..199-milli remainders, mostly the 190 milli beside
// 810-milli shares, the trace's most common share, which only the rare 50/110/160-milli shares
// can use); we found no node or device choice that recovers them under the protocol.
//
// Scores are integers like the simulator's, so the placer's tie-break (uniform, or the
// simulator's fixed random node order) matters as kube-scheduler's does. The non-FGD policies put a
// share on the best-fitting device (least room that still holds it, lowest index on ties); whole
// GPUs are the lowest-indexed free devices.
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
