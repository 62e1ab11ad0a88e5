// The GPU devices of a node as the agent publishes them on its Node (annotation
// `etna.io/gpus`, api/types/well_known.h) and the scheduler reads them: one JSON object per device,
//   {"index":0,"uuid":"GPU-…","model":"NVIDIA-H100-80GB-HBM3","memoryMiB":81559,"healthy":true,
//    "numa":0,"nvlinkDomain":0,"pcieSwitch":0,"mig":[{"profile":"1g.10gb","id":7}]}
// Encoding and decoding live here only, so the two sides cannot drift apart.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"

namespace etna::client {

struct NodeMigInstance {
  std::string profile;  // "1g.10gb"
  int32_t id = 0;       // GPU instance id

  bool operator==(const NodeMigInstance&) const = default;
};

struct NodeGpu {
  int32_t index = 0;
  std::string uuid;
  std::string model;
  int64_t memory_mib = 0;
  bool healthy = true;
  int32_t numa = -1;
  int32_t nvlink_domain = -1;  // devices with the same value share an NVLink/NVSwitch domain
  int32_t pcie_switch = -1;
  std::vector<NodeMigInstance> mig;  // empty: used whole

  bool operator==(const NodeGpu&) const = default;
};

std::string EncodeNodeGpus(const std::vector<NodeGpu>& gpus);
// Fails with InvalidArgument naming the device and field on malformed input.
Result<std::vector<NodeGpu>> DecodeNodeGpus(std::string_view text);

}  // namespace etna::client
