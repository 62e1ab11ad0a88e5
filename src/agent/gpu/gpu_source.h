// Where an agent learns its node's GPUs: NVML on a real machine (nvml_source.h, also used with
// the project's fake NVML library), or the inventory a cluster profile declares.
// Thread-safety: implementations are safe to call from one thread at a time (the agent's
// status loop); InventoryGpuSource::MarkUnhealthy may be called from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "client/node_gpus.h"
#include "common/status.h"

namespace etna::agent {

// Live readings of one GPU; -1 where the source does not know.
struct GpuMetrics {
  int64_t memory_used_mib = -1;
  int gpu_utilization_percent = -1;
  int memory_utilization_percent = -1;
  int temperature_c = -1;
  int64_t power_mw = -1;
};

struct GpuDevice {
  client::NodeGpu gpu;  // healthy=false once a critical XID was seen
  GpuMetrics metrics;
  bool mig_enabled = false;
  std::vector<uint64_t> xids;  // critical XIDs seen on this GPU since the agent started
};

class GpuSource {
 public:
  virtual ~GpuSource() = default;
  // The devices now; health reflects every XID seen so far.
  virtual Result<std::vector<GpuDevice>> Devices() = 0;
  virtual std::string Describe() const = 0;  // "NVML (libnvidia-ml.so.1)", "profile inventory"
};

// The devices a cluster profile declares; MarkUnhealthy simulates a failing GPU.
class InventoryGpuSource final : public GpuSource {
 public:
  explicit InventoryGpuSource(std::vector<client::NodeGpu> gpus) : gpus_(std::move(gpus)) {}
  Result<std::vector<GpuDevice>> Devices() override;
  std::string Describe() const override { return "declared inventory"; }
  void MarkUnhealthy(int index);

 private:
  std::vector<client::NodeGpu> gpus_;
  std::mutex mu_;
  std::set<int> unhealthy_;
};

// XIDs that are the application's fault (as NVIDIA's device plugin treats them) do not make a
// GPU unhealthy: 13, 31, 43, 45, 68, 109.
bool IsCriticalXid(uint64_t xid);

}  // namespace etna::agent
