#include "agent/gpu/gpu_source.h"

namespace etna::agent {

Result<std::vector<GpuDevice>> InventoryGpuSource::Devices() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<GpuDevice> out;
  for (const auto& gpu : gpus_) {
    GpuDevice d;
    d.gpu = gpu;
    d.gpu.healthy = gpu.healthy && !unhealthy_.count(gpu.index);
    d.mig_enabled = !gpu.mig.empty();
    d.metrics.gpu_utilization_percent = 0;  // simulated GPUs are idle
    d.metrics.memory_utilization_percent = 0;
    d.metrics.memory_used_mib = 0;
    out.push_back(std::move(d));
  }
  return out;
}

void InventoryGpuSource::MarkUnhealthy(int index) {
  std::lock_guard<std::mutex> lock(mu_);
  unhealthy_.insert(index);
}

bool IsCriticalXid(uint64_t xid) {
  switch (xid) {
    case 13:
    case 31:
    case 43:
    case 45:
    case 68:
    case 109:
      return false;
    default:
      return true;
  }
}

}  // namespace etna::agent
