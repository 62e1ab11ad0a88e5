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
//   fgdplus        etna: FGD's integer node score, with ties broken by CPU/GPU balance; a share
//                  goes on the device with the steepest unrounded fragmentation decrease.
//
// fgdplus in detail. FGD's node score is floor(100·sigmoid(ΔF/1000)); many nodes share a score
// (every node a CPU-only task leaves unfragmented scores 50), and the simulator breaks ties in a
// fixed random node order, i.e. first fit. fgdplus keeps that integer score and adds a fraction in
// (0, 1) that orders only the tied nodes: the gain in CPU/GPU balance. With r the workload's CPU
// demand per unit of GPU demand (all tasks' CPU milli over the GPU tasks' GPU milli, from the
// `workload` shapes; ≈ 14 on default, 17.7 on cpu250), a node's skew is freeCpu/r − freeGpu
// (milli-GPU) and the gain is |skew before| − |skew after|, rounded to a milli-GPU. So CPU-only
// tasks go to CPU-rich nodes (T4: 52 vCPU per GPU) rather than eat the CPU that a G2 node's eight
// GPUs need (12 vCPU per GPU), and CPU-light GPU tasks go to CPU-poor nodes. All nodes skewed
// beyond the task's own skew gain the same, so those stay ties and keep FGD's first-fit packing.
// Why it works: at 130 % arrived the openb workloads ask more CPU than the cluster has (default:
// ≈ 113k vCPU, CPU-only pods included, against 107k), so stranded GPUs are as much a CPU matter
// as a sliver one, and FGD only sees CPU when a node drops below a typical task's need.
// FGD rounds the device score to an integer too and takes the lowest-indexed device among the
// ties, which is often not the least-fragmenting one; fgdplus uses the unrounded decrease.
//
// Measured (etna sim openb, seeds 42..51, tune 1.3; alloc % at 100 % / 130 % arrived; published
// FGD = mean of fgd_expected_results/analysis_allo_discrete.csv; every seed of every workload
// beats our fgd at 130 %):
//   workload     fgdplus          published FGD    our fgd
//   default      95.71 / 95.80    95.23 / 95.39    95.21 / 95.37
//   cpu050       95.77 / 95.85    95.00 / 95.21    94.98 / 95.20
//   cpu100       95.74 / 95.82    95.21 / 95.35    95.11 / 95.30
//   cpu200       95.77 / 95.85    94.82 / 95.05    94.84 / 95.05
//   cpu250       93.88 / 94.13    93.20 / 93.41    93.03 / 93.27
//   gpushare40   94.31 / 94.41    93.96 / 94.15    94.02 / 94.19
//   gpushare60   91.58 / 91.73    91.26 / 91.40    91.21 / 91.37
//   gpushare80   89.37 / 89.57    89.08 / 89.31    89.09 / 89.32
//   gpushare100  87.02 / 87.26    86.64 / 86.90    86.62 / 86.87
// Unpublished variants: ahead of our fgd on cpu0/037/072/235 and gpushare20 (+0.4..0.7 at
// 130 %), but BEHIND on cpu300 (85.22 vs 86.29), where CPU demand exceeds the cluster's even
// at 100 % arrived; balancing only CPU-only tasks or only GPU tasks does not fix it (86.03,
// 85.83) and loses elsewhere.
// Balance variants measured and dropped: r from GPU tasks only (cpu250 93.15, behind), r = the
// cluster's CPU/GPU (all ahead, but by less: cpu250 93.84, gpushare40 94.36), coarser FGD steps
// (gpushare80 89.47), finer steps (cpu050 95.56), the node closest to balance after placing
// (−|skew after|: 92.9 on default, destroys the first-fit packing), CPU-only tasks to the node
// with fewest free GPUs (cpu250 93.34, cpu050 behind).
//
// Before the balance tie-break (node score exactly FGD's), refinements of the node score
// measured within seed noise (±10 GPUs) of FGD or worse — unrounded node deltas (432
// unallocated GPUs vs FGD's 287: the sigmoid's saturation and the rounding's ties, broken in the
// simulator's fixed random node order, act as first-fit packing and are worth keeping), packing
// tie-breaks (fewest idle GPUs: 293; most idle GPUs: 562..622), weighted FGD + best-fit mixes
// (313..359), coarser or finer score steps (287..303), 100 % typical-shape coverage (292), a
// penalty for breaking a whole free node (289). At 130 % many idle GPUs are slivers (seed 42,
// FGD: 188 of 291 idle GPUs are 150..199-milli remainders, mostly the 190 milli beside 810-milli
// shares, the trace's most common share, which only the rare 50/110/160-milli shares can use).
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
