// What a task asks of a node's GPU devices, read from its resource request: whole GPUs
// (`nvidia.com/gpu`, Volcano's `volcano.sh/gpu-number`), MIG instances
// (`nvidia.com/mig-<profile>`), vGPU shares (`volcano.sh/vgpu-number` / `vgpu-memory` MiB /
// `vgpu-cores` %) and the legacy memory share (`volcano.sh/gpu-memory` MiB). Also the GPU model
// constraint (openb's `gpu_spec` "A|B").
//
// Resource names are never interned here: a name not yet interned is one no task or node uses.
//
// Thread-safety: DeviceResourceIds is a plain value; functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/resource.h"
#include "sched/model/snapshot.h"

namespace etna::sched::devices {

inline constexpr char kVgpuNumber[] = "volcano.sh/vgpu-number";
inline constexpr char kVgpuMemory[] = "volcano.sh/vgpu-memory";
inline constexpr char kVgpuCores[] = "volcano.sh/vgpu-cores";
inline constexpr char kGpuMemory[] = "volcano.sh/gpu-memory";  // legacy gpushare
inline constexpr char kGpuNumber[] = "volcano.sh/gpu-number";
inline constexpr char kGpuModelLabel[] = "nvidia.com/gpu.model";
// Shares one device takes at most (Volcano's deviceSplitCount default).
inline constexpr int kDefaultSplitCount = 10;

// The ids of the device resources interned so far (looked up, never interned).
struct DeviceResourceIds {
  std::optional<ResourceId> vgpu_number, vgpu_memory, vgpu_cores, gpu_memory, gpu_number;
  std::vector<std::pair<ResourceId, std::string>> mig;  // id → profile

  static DeviceResourceIds Lookup();
};

struct MigRequest {
  std::string profile;
  int32_t count = 0;
};

struct DeviceRequest {
  int64_t gpu_milli = 0;   // nvidia.com/gpu (the session's default chooser serves it)
  int32_t gpu_number = 0;  // volcano.sh/gpu-number: whole GPUs
  std::vector<MigRequest> mig;
  int32_t vgpu_number = 0;      // devices, each with the share below
  int64_t vgpu_memory_mib = 0;  // per device; 0: the whole device's memory (Volcano's default)
  int32_t vgpu_cores = 0;       // per device, % of SMs; 0: no limit
  int64_t gpu_memory_mib = 0;   // legacy share on one device

  bool HasMig() const { return !mig.empty(); }
  bool HasShare() const { return vgpu_number > 0 || gpu_memory_mib > 0; }
  // Anything the deviceshare plugin serves (not plain nvidia.com/gpu).
  bool Any() const { return gpu_number > 0 || HasMig() || HasShare(); }
};

DeviceRequest ParseDeviceRequest(const ResourceVector& request, const DeviceResourceIds& ids);

// openb's `gpu_spec` / Volcano's use-gputype list: "V100M16|V100M32" (also ',' separated).
std::vector<std::string> ParseGpuModels(std::string_view spec);
// Whether `model` (a node label or device model) matches one of `allowed` (case-insensitive;
// empty `allowed` matches everything).
bool GpuModelAllowed(const std::vector<std::string>& allowed, std::string_view model);

}  // namespace etna::sched::devices
