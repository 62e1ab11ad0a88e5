// GPU fragmentation as FGD (Weng et al., USENIX ATC'23) measures it, for the GPU-sharing
// policies and the trace simulator.
//
// A node's fragmentation is the idle milli-GPU the next task, drawn from the workload's typical
// task shapes, could not use: for shape m with probability p_m, f_n(m) is every idle milli-GPU
// when m asks no GPU, may not use the node's GPU model, or does not fit (too few GPUs with room
// for one unit of m, or too little CPU); otherwise only the GPUs with less room than one unit of
// m. F_n = Σ p_m f_n(m). Memory plays no role.
//
// GpuFragModel memoises F per node state (GPU model, free CPU, free milli-GPU per device as a
// multiset), so replaying a trace computes each distinct state once.
//
// Thread-safety: none (the memo is mutable); one per session or per thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/model/snapshot.h"

namespace etna::sched {

// The node label that names a node's GPU model (also read from GpuDevice::model).
inline constexpr char kGpuModelLabel[] = "nvidia.com/gpu.model";

// A task shape as fragmentation sees it.
struct GpuTaskShape {
  int64_t cpu_milli = 0;
  int32_t num_gpu = 0;
  int32_t gpu_milli = 0;  // per GPU; 1000 for whole GPUs, 0 when num_gpu == 0
  std::string models;     // allowed GPU models "A|B"; empty: any
  bool operator==(const GpuTaskShape&) const = default;
};

struct WeightedShape {
  GpuTaskShape shape;
  double weight = 0;  // count, or probability once normalised
};

// The typical shapes: the most popular shapes (ties: the larger shape first) until they cover
// at least `popularity_pct` % of the tasks, with probabilities renormalised to sum to 1.
std::vector<WeightedShape> TypicalShapes(std::vector<WeightedShape> counts, int popularity_pct);

// A node's free resources as fragmentation sees them.
struct GpuNodeState {
  int32_t model = -1;  // interned model id (GpuFragModel::ModelId); -1: no GPU model
  int64_t cpu_left = 0;
  std::vector<int32_t> gpu_left;  // free milli-GPU per device, in device order
  int64_t TotalGpuLeft() const;
};

class GpuFragModel {
 public:
  explicit GpuFragModel(std::vector<WeightedShape> typical);

  int32_t ModelId(const std::string& model);
  // The state of a node from the session's accounting (healthy, unpartitioned devices).
  GpuNodeState StateOf(const Node& n);
  // Expected unusable idle milli-GPU of a node state (memoised).
  double Frag(const GpuNodeState& s);
  // Whether a task asking `models` ("A|B", empty: any) may use GPU model `model`.
  bool Allowed(const std::string& models, int32_t model);

  const std::vector<WeightedShape>& typical() const { return typical_; }

 private:
  struct Key {
    int64_t cpu_left;
    int32_t model;
    int32_t n;
    std::array<int16_t, 16> gpu;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  double Compute(const GpuNodeState& s);

  std::vector<WeightedShape> typical_;
  std::vector<std::vector<int32_t>> allowed_;  // per typical shape: model ids; empty: any
  std::unordered_map<std::string, int32_t> model_ids_;
  std::unordered_map<std::string, std::vector<int32_t>> parsed_models_;
  std::unordered_map<Key, double, KeyHash> memo_;
};

// The allowed GPU models of a task ("A|B"), from its required node affinity on kGpuModelLabel
// (operator In); empty when unconstrained.
std::string AllowedGpuModels(const Task& t);
// A node's GPU model: the kGpuModelLabel label, else the first device's model.
std::string NodeGpuModel(const Node& n);

}  // namespace etna::sched
