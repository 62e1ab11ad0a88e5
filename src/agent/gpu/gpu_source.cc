#include "agent/gpu/gpu_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace etna::agent {
namespace {

// "3g.40gb" -> 40 GiB in MiB; -1 when the name has no "<n>gb".
int64_t ProfileMemoryMib(const std::string& profile) {
  size_t dot = profile.find('.');
  if (dot == std::string::npos) return -1;
  int64_t gb = std::atoll(profile.c_str() + dot + 1);
  return gb > 0 ? gb * 1024 : -1;
}

void SetIdle(GpuDevice* d) {
  GpuMetrics& m = d->metrics;
  m.gpu_utilization_percent = 0;
  m.memory_utilization_percent = 0;
  m.memory_used_mib = 0;
  m.temperature_c = 30;
  m.power_mw = 60'000;
  m.sm_clock_mhz = 210;
  m.memory_clock_mhz = 405;
  d->mig_metrics.clear();
  for (const auto& mig : d->gpu.mig) {
    MigMetrics mm;
    mm.id = mig.id;
    mm.memory_mib = ProfileMemoryMib(mig.profile);
    mm.memory_used_mib = mm.memory_mib < 0 ? -1 : 0;
    d->mig_metrics.push_back(mm);
  }
}

void SetBusy(const std::vector<GpuHolder>& holders, GpuDevice* d) {
  GpuMetrics& m = d->metrics;
  int util = 80 + (7 * d->gpu.index) % 16;
  int driven = -1;
  for (const auto& h : holders) {
    if (h.driven_utilization >= 0) driven = std::max(driven, 0) + h.driven_utilization;
  }
  if (driven >= 0) util = std::min(driven, 100);
  m.gpu_utilization_percent = util;
  m.memory_utilization_percent = util / 2;
  m.temperature_c = 30 + util / 2;
  m.power_mw = 60'000 + 3'000 * int64_t{util};
  m.sm_clock_mhz = util > 0 ? 1410 : 210;
  m.memory_clock_mhz = 1215;
  bool all_shares = true;
  int64_t shares = 0;
  for (const auto& h : holders) {
    if (h.mig_instance >= 0) continue;
    all_shares = all_shares && h.memory_mib >= 0;
    shares += std::max<int64_t>(h.memory_mib, 0);
  }
  m.memory_used_mib = all_shares ? std::min(shares, d->gpu.memory_mib) : d->gpu.memory_mib * 3 / 4;
  bool mig_held = false;
  int64_t mig_used = 0;
  for (auto& mm : d->mig_metrics) {
    for (const auto& h : holders) {
      if (h.mig_instance == mm.id && mm.memory_mib >= 0) {
        mm.memory_used_mib = mm.memory_mib * 3 / 4;
        mig_held = true;
        break;
      }
    }
    mig_used += std::max<int64_t>(mm.memory_used_mib, 0);
  }
  if (mig_held) m.memory_used_mib = std::min(mig_used, d->gpu.memory_mib);
}

}  // namespace

void SimulateReadings(const GpuHolders& holders, std::vector<GpuDevice>* devices) {
  for (GpuDevice& d : *devices) {
    SetIdle(&d);
    auto it = holders.find(d.gpu.index);
    if (it != holders.end() && !it->second.empty()) SetBusy(it->second, &d);
  }
}

Result<std::vector<GpuDevice>> InventoryGpuSource::Devices() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<GpuDevice> out;
  for (const auto& gpu : gpus_) {
    GpuDevice d;
    d.gpu = gpu;
    d.gpu.healthy = gpu.healthy && !unhealthy_.count(gpu.index);
    d.mig_enabled = !gpu.mig.empty();
    d.pci_bus_id = fmt::format("00000000:{:02X}:00.0", 0x10 + gpu.index);
    out.push_back(std::move(d));
  }
  SimulateReadings({}, &out);
  return out;
}

void InventoryGpuSource::ApplyHolders(const GpuHolders& holders,
                                      std::vector<GpuDevice>* devices) const {
  SimulateReadings(holders, devices);
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
