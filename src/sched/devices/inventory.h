// Building a node's GPU list (with a mixed MIG layout: some GPUs whole, some partitioned) and
// the resources the node then advertises, as the NVIDIA device plugin does under the mixed
// strategy plus Volcano's vGPU device plugin: `nvidia.com/gpu` per healthy whole GPU,
// `nvidia.com/mig-<profile>` per healthy instance, and optionally `volcano.sh/vgpu-number`
// (split × whole GPUs), `vgpu-memory` (MiB), `vgpu-cores` (100 per GPU) and the legacy
// `volcano.sh/gpu-memory` (MiB). Used by inventories, the simulator and tests.
//
// Thread-safety: pure functions (resource names are interned through the thread-safe table).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/resource.h"
#include "common/status.h"
#include "sched/model/snapshot.h"

namespace etna::sched::devices {

struct NodeGpuSpec {
  std::string node;   // for UUIDs "GPU-<node>-<i>"
  std::string model;  // "A100-80GB", "H100-80GB", ...
  int count = 0;
  int nvlink_domains = 1;  // GPUs split evenly; 0: no NVLink
  int64_t memory_mib = 0;  // 0: the model's memory from the MIG catalogue (else 81920)
  std::map<int, std::vector<std::string>> mig;  // GPU index → its MIG layout
};

Result<std::vector<GpuDevice>> BuildGpus(const NodeGpuSpec& spec);

// The core's MIG instances of a layout that gpu::LayOutMig validates (ids 1, 2, ... in order).
Result<std::vector<MigInstance>> MakeMigInstances(std::string_view model,
                                                  const std::vector<std::string>& profiles);

struct AdvertiseOptions {
  int vgpu_split = 0;         // > 0: advertise the volcano.sh/vgpu-* resources
  bool legacy_share = false;  // advertise volcano.sh/gpu-memory
};

// Sets the device resources of `gpus` on `allocatable` (overwriting those dimensions).
Status AdvertiseDevices(const std::vector<GpuDevice>& gpus, const AdvertiseOptions& options,
                        ResourceVector* allocatable);

}  // namespace etna::sched::devices
