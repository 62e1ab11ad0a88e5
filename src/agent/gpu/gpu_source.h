// Where an agent learns its node's GPUs: NVML on a real machine (nvml_source.h, also used with
// the project's fake NVML library), or the inventory a cluster profile declares.
// The declared inventory has nothing to measure: its readings are simulated from allocation
// (SimulateReadings below) so that dashboards in `etna dev` show which GPUs are busy.
// Thread-safety: Devices() from one thread at a time (the agent's status loop);
// ApplyHolders is const and pure, and InventoryGpuSource::MarkUnhealthy may be called from any
// thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "agent/gpu/gpu_holders.h"
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
  int sm_clock_mhz = -1;
  int memory_clock_mhz = -1;
  int64_t energy_mj = -1;     // total since the driver loaded (a counter)
  int64_t nvlink_bytes = -1;  // data sent plus received over all NVLinks (a counter)
};

// Readings of one MIG instance (NVML answers memory per instance; utilization, power and the
// rest only for the whole device).
struct MigMetrics {
  int32_t id = 0;  // GPU instance id, as client::NodeMigInstance::id
  int64_t memory_mib = -1;
  int64_t memory_used_mib = -1;
};

struct GpuDevice {
  client::NodeGpu gpu;  // healthy=false once a critical XID was seen
  GpuMetrics metrics;
  std::string pci_bus_id;               // "00000000:17:00.0"; empty when unknown
  std::vector<MigMetrics> mig_metrics;  // for the instances in gpu.mig that have readings
  bool mig_enabled = false;
  std::vector<uint64_t> xids;  // critical XIDs seen on this GPU since the agent started
  bool lost = false;           // NVML answers GPU_IS_LOST for it (fallen off the bus)
};

class GpuSource {
 public:
  virtual ~GpuSource() = default;
  // The devices now; health reflects every XID seen so far.
  virtual Result<std::vector<GpuDevice>> Devices() = 0;
  virtual std::string Describe() const = 0;  // "NVML (libnvidia-ml.so.1)", "profile inventory"
  // Readings that follow from which pods hold the devices. A source that measures (NVML)
  // leaves `devices` alone; the declared inventory simulates them.
  virtual void ApplyHolders(const GpuHolders& /*holders*/,
                            std::vector<GpuDevice>* /*devices*/) const {}
  // Whether pods set the utilization their GPUs report (GpuHolder::driven_utilization).
  virtual bool DrivableUtilization() const { return false; }
};

// The devices a cluster profile declares, with simulated readings (SimulateReadings) and a
// made-up PCI bus id per index; MarkUnhealthy simulates a failing GPU.
class InventoryGpuSource final : public GpuSource {
 public:
  explicit InventoryGpuSource(std::vector<client::NodeGpu> gpus) : gpus_(std::move(gpus)) {}
  Result<std::vector<GpuDevice>> Devices() override;
  std::string Describe() const override { return "declared inventory"; }
  void ApplyHolders(const GpuHolders& holders, std::vector<GpuDevice>* devices) const override;
  bool DrivableUtilization() const override { return true; }
  void MarkUnhealthy(int index);

 private:
  std::vector<client::NodeGpu> gpus_;
  std::mutex mu_;
  std::set<int> unhealthy_;
};

// Declared inventory: readings are simulated from allocation, deterministically.
//   idle device: utilization 0 %, framebuffer used 0, 30 °C, 60 W, SM 210 MHz, memory 405 MHz;
//   a device some pod holds: utilization 80-95 % (80 + 7*index mod 16) — or, when any of its
//   holders drives it (GpuHolder::driven_utilization), the sum of the driven values capped at
//   100 (holders that drive nothing add 0; a holder not Ready yet that drives nothing is still
//   loading and counts as driving 0: agent.cc), as the device's load is its sharers' together —
//   memory-copy utilization half that, 30 + util/2 °C, 60 W + 3 W per util %, SM 1410 MHz
//   (210 at 0 %), memory 1215 MHz; framebuffer used: the sum of the holders' shares
//   (etna.io/gpu-memory-mib) when all of them hold shares, else three quarters of the device (or of
//   each held MIG instance, whose memory comes from its profile name, "3g.40gb" = 40 GiB). Energy
//   and NVLink counters are not simulated (left out).
// Idle readings for `devices` (what InventoryGpuSource::Devices reports) come from
// SimulateReadings with no holders.
void SimulateReadings(const GpuHolders& holders, std::vector<GpuDevice>* devices);

// XIDs that are the application's fault (as NVIDIA's device plugin treats them) do not make a
// GPU unhealthy: 13, 31, 43, 45, 68, 109.
bool IsCriticalXid(uint64_t xid);

}  // namespace etna::agent
