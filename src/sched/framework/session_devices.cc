// Session's default device choice: whole GPUs inside the tightest NVLink domain that holds them
// all, a fraction of a GPU on the fullest unpartitioned device with room.
#include <algorithm>

#include "sched/framework/session.h"

namespace etna::sched {

std::optional<std::vector<DeviceAllocation>> Session::DefaultDevices(const Task& t, const Node& n) {
  int64_t need = t.request.Get(kGpu);
  if (need <= 0 || n.gpus.empty()) return std::vector<DeviceAllocation>{};
  if (need < 1000) {
    // A share of one device: the fullest unpartitioned device that still has room (binpack).
    int32_t best = -1;
    for (const auto& g : n.gpus) {
      if (!g.healthy || !g.mig.empty() || g.used_milli + need > 1000) continue;
      if (best < 0 || g.used_milli > n.gpus[best].used_milli) best = g.index;
    }
    if (best < 0) return std::nullopt;
    DeviceAllocation d;
    d.gpu = best;
    d.milli = static_cast<int32_t>(need);
    return std::vector<DeviceAllocation>{d};
  }
  if (need % 1000 != 0) return std::nullopt;  // more than one GPU must be whole GPUs
  size_t count = static_cast<size_t>(need / 1000);
  // Free devices per NVLink domain; prefer the tightest domain that holds them all, so large
  // domains stay whole for larger tasks.
  std::vector<std::pair<int32_t, size_t>> free_per_domain;  // (domain, free devices)
  size_t total_free = 0;
  for (const auto& g : n.gpus) {
    if (!g.WholeFree()) continue;
    ++total_free;
    auto it = std::find_if(free_per_domain.begin(), free_per_domain.end(),
                           [&](const auto& d) { return d.first == g.nvlink_domain; });
    if (it == free_per_domain.end()) {
      free_per_domain.emplace_back(g.nvlink_domain, 1);
    } else {
      ++it->second;
    }
  }
  if (total_free < count) return std::nullopt;
  bool use_domain = false;
  int32_t domain = -1;
  size_t domain_free = 0;
  for (const auto& [d, free] : free_per_domain) {
    if (d < 0 || free < count) continue;
    if (!use_domain || free < domain_free) {
      use_domain = true;
      domain = d;
      domain_free = free;
    }
  }
  std::vector<DeviceAllocation> pick;
  pick.reserve(count);
  for (size_t i = 0; i < n.gpus.size() && pick.size() < count; ++i) {
    const auto& g = n.gpus[i];
    if (!g.WholeFree()) continue;
    if (use_domain && g.nvlink_domain != domain) continue;
    DeviceAllocation d;
    d.gpu = static_cast<int32_t>(i);
    pick.push_back(d);
  }
  return pick;
}

bool Session::DefaultDevicesAvailable(const Task& t, const Node& n) {
  int64_t need = t.request.Get(kGpu);
  if (need <= 0 || n.gpus.empty()) return true;
  if (need < 1000) {
    for (const auto& g : n.gpus) {
      if (g.healthy && g.mig.empty() && g.used_milli + need <= 1000) return true;
    }
    return false;
  }
  if (need % 1000 != 0) return false;
  int64_t free = 0;
  for (const auto& g : n.gpus) free += g.WholeFree();
  return free * 1000 >= need;
}

}  // namespace etna::sched
