// Session's device choice: the registered device choosers first, then the default (whole GPUs
// inside the tightest NVLink domain that holds them all, a fraction of a GPU on the fullest
// unpartitioned device with room), and the resource fit that includes it.
#include <algorithm>
#include <string>

#include "sched/devices/nvlink.h"
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
  size_t total_free = 0;
  for (const auto& g : n.gpus) total_free += g.WholeFree();
  if (total_free < count) return std::nullopt;
  // Inside the tightest NVLink domain that holds them all, so large domains stay whole for
  // larger tasks; anywhere when no domain does.
  std::optional<devices::NvlinkDomainFit> domain = devices::TightestNvlinkDomain(n, count);
  std::vector<DeviceAllocation> pick;
  pick.reserve(count);
  for (size_t i = 0; i < n.gpus.size() && pick.size() < count; ++i) {
    const auto& g = n.gpus[i];
    if (!g.WholeFree()) continue;
    if (domain && g.nvlink_domain != domain->domain) continue;
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

std::optional<std::vector<DeviceAllocation>> Session::ChooseDevices(const Task& t,
                                                                    const Node& n) const {
  for (const auto& fn : device_choosers()) {
    if (auto answer = fn(t, n)) {
      if (!answer->fits) return std::nullopt;
      return std::move(answer->devices);
    }
  }
  return DefaultDevices(t, n);
}

bool Session::DevicesAvailable(const Task& t, const Node& n) const {
  if (device_choosers().empty()) return DefaultDevicesAvailable(t, n);
  return ChooseDevices(t, n).has_value();
}

bool Session::DevicesAvailable(const Task& t, const Node& n, std::string* reason) const {
  for (const auto& fn : device_choosers()) {
    if (auto answer = fn(t, n)) {
      if (!answer->fits && reason) *reason = std::move(answer->reason);
      return answer->fits;
    }
  }
  return DefaultDevicesAvailable(t, n);
}

bool Session::ResourceFits(const Task& t, const Node& n, const ResourceVector& available,
                           bool check_devices, FitErrors* errors) const {
  uint32_t short_mask = t.request.ExceedMask(available);
  if (short_mask == 0 && !MayUseReserved(t, n)) {
    // Only the resources the task asks for count: a reservation short of GPUs does not keep
    // CPU-only work off the node.
    uint32_t reserved_mask = t.request.ExceedMask(available - n.reserved);
    for (int r = 0; r < kMaxResources; ++r) {
      if ((reserved_mask & (1u << r)) && t.request.Get(r) > 0) {
        if (errors) errors->AddNodeFailure("node(s) had capacity reserved for a starving job");
        return false;
      }
    }
  }
  bool device_request = t.request.Get(kGpu) > 0 || !device_choosers().empty();
  if (short_mask == 0 && check_devices && device_request && !n.gpus.empty()) {
    // Aggregate fit is not enough when devices are fragmented by shares.
    std::string reason;
    if (!DevicesAvailable(t, n, &reason)) {
      if (reason.empty()) {
        short_mask |= 1u << kGpu;
      } else {
        if (errors) errors->AddNodeFailure(reason);
        return false;
      }
    }
  }
  if (short_mask == 0) return true;
  if (errors) {
    for (int r = 0; r < kMaxResources; ++r) {
      if (short_mask & (1u << r)) {
        errors->AddNodeFailure("Insufficient " + ResourceNames::Global().Name(r));
      }
    }
  }
  return false;
}

}  // namespace etna::sched
