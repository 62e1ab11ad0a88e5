// The GPU catalogue's MIG geometry: the GPU-instance profiles of the MIG-capable GPUs etna models
// (A100-40GB, A100-80GB, H100-80GB, H200-141GB) and validation of a GPU's MIG layout against the
// placement rules (8 memory slices, 7 SM slices, fixed legal start slices per profile). It sits
// below both the scheduling core (src/sched) and the agent, which depend on it and not on each
// other. Facts from NVIDIA's MIG user guide (profiles per GPU, their placements); H200
// placements are assumed equal to H100's.
//
// Thread-safety: the catalogue is immutable static data; every function is pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace etna::gpu {

inline constexpr int kMemorySlices = 8;
inline constexpr int kComputeSlices = 7;

// One GPU-instance profile of a GPU model ("1g.10gb" on an A100-80GB).
struct MigProfile {
  std::string name;         // "1g.10gb", "1g.10gb+me"
  int32_t nvml_id = 0;      // `nvidia-smi mig -lgip` ID (19, 20, 15, 14, 9, 5, 0)
  int compute_slices = 0;   // of 7
  int memory_slices = 0;    // of 8 (the placement size)
  int max_instances = 0;    // per GPU
  std::vector<int> starts;  // legal first memory slice
  int64_t memory_mib = 0;   // nominal: memory_slices/8 of the GPU (read NVML for the exact size)
  bool media_extensions = false;
};

// A MIG-capable GPU model and its profiles.
struct GpuModelSpec {
  std::string model;  // canonical: "A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB"
  int64_t memory_mib = 0;
  std::vector<MigProfile> profiles;
};

// Every modelled GPU model.
const std::vector<GpuModelSpec>& GpuModels();
// The spec for a model name as nodes report it ("A100-40GB", "NVIDIA-A100-SXM4-80GB", "H100",
// "NVIDIA H200"); null for GPUs without modelled MIG support.
const GpuModelSpec* FindGpuModel(std::string_view model);
const MigProfile* FindProfile(const GpuModelSpec& spec, std::string_view profile);

// Checks that `profiles` can coexist on one GPU of `spec`: every profile exists, per-profile
// and total instance limits hold, at most one "+me" instance, SM slices total at most 7 and
// some assignment of legal start slices leaves no memory slices overlapping. Returns the start
// slice of each instance (in the given order) so the agent can create them with explicit
// placements.
Result<std::vector<int>> ValidateMigLayout(const GpuModelSpec& spec,
                                           const std::vector<std::string>& profiles);

// One GPU instance of a validated layout: its profile and GPU-instance id.
struct MigSlot {
  std::string profile;
  int32_t id = 0;  // 1, 2, ... in the order the layout lists them
};

// Validates `profiles` on a GPU of `model` and numbers the instances 1, 2, ... in the given
// order. Fails naming the model when it has no MIG profiles, or the profile that does not fit.
Result<std::vector<MigSlot>> LayOutMig(std::string_view model,
                                       const std::vector<std::string>& profiles);

// The resource name a node advertises for a profile under the mixed strategy.
std::string MigResourceName(std::string_view profile);  // "nvidia.com/mig-1g.10gb"
inline constexpr std::string_view kMigResourcePrefix = "nvidia.com/mig-";

}  // namespace etna::gpu
