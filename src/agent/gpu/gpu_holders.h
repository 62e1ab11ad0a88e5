// Which pods hold each GPU of a node, read from the scheduler's bind annotations on the pods the
// agent runs (api/types/bound_devices.h: etna.io/gpu-ids, etna.io/gpu-memory-mib,
// etna.io/mig-instances). The agent's /metrics attributes GPU readings to these pods
// (gpu/dcgm_metrics.h) and the declared inventory simulates its readings from them.
// A pod counts while it is bound to the node and not finished (phase neither Succeeded nor
// Failed); its container is the first one listed, as dcgm-exporter names the container that
// uses the device. A pod whose annotations cannot be read is skipped: metrics never fail on one
// pod.
// Thread-safety: plain values and a pure function.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace etna::agent {

struct GpuHolder {
  std::string pod;
  std::string ns;
  std::string container;
  int32_t mig_instance = -1;  // the GPU instance id it holds; -1: the device whole or a share
  int64_t memory_mib = -1;    // a share's framebuffer (etna.io/gpu-memory-mib); -1: not a share
  std::string uid;
  // The utilization the pod set for its GPUs (simulated GPUs only: gpu_source.h); -1: none.
  int driven_utilization = -1;
  bool ready = false;  // the pod's Ready condition is True (it has started, its model is loaded)

  bool operator==(const GpuHolder&) const = default;
};

// By device index; each device's holders in the order of `pods`.
using GpuHolders = std::map<int32_t, std::vector<GpuHolder>>;

GpuHolders GpuHoldersFromPods(const std::vector<nlohmann::json>& pods);

}  // namespace etna::agent
