// The devices a bind gave a pod, read back from the annotations the scheduler writes at bind
// (well_known.h) — by the agent (CUDA_VISIBLE_DEVICES, the GPU metrics' pod labels), the CLI
// (`etna gpus`) and a restarted scheduler (which GPUs are taken). The scheduler's encoder lives
// with it in src/scheduler/bind_annotations.cc; the format:
//   etna.io/gpu-ids            "0,1"   whole GPUs and shares, device indices in allocation order
//   etna.io/gpu-uuids          "GPU-a,GPU-b"  the same devices' UUIDs
//   etna.io/gpu-memory-mib     "40960" (one value for every device) or "40960,20480" per device
//   etna.io/gpu-cores-percent  "30" likewise; present only for shares
//   etna.io/mig-instances      "<gpu>:<profile>:<gi id>,..."; MIG devices are not in gpu-ids
// Thread-safety: plain values and a pure function.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"

namespace etna::api::types {

struct BoundGpu {
  int32_t index = 0;
  std::string uuid;           // "" when the annotation does not name it
  bool share = false;         // a fraction (memory or cores annotated), not the whole device
  int64_t memory_mib = 0;     // shares only
  int32_t cores_percent = 0;  // shares only
};

struct BoundMigInstance {
  int32_t gpu = 0;  // the parent device's index
  std::string profile;
  int32_t instance = 0;  // the GPU instance id
};

struct BoundDevices {
  std::vector<BoundGpu> gpus;
  std::vector<BoundMigInstance> mig;
  bool empty() const { return gpus.empty() && mig.empty(); }
};

// Reads a pod's metadata.annotations (a non-object reads as no devices); an error names the
// annotation and the bad value.
Result<BoundDevices> DecodeBoundDevices(const nlohmann::json& annotations);

}  // namespace etna::api::types
