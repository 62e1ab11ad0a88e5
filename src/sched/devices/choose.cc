#include "sched/devices/choose.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "gpu/mig_catalog.h"

namespace etna::sched::devices {
namespace {

// Memory slices of a MIG instance (from the catalogue; 1 when the model or profile is unknown).
int Slices(const GpuDevice& g, const MigInstance& m) {
  if (const gpu::GpuModelSpec* spec = gpu::FindGpuModel(g.model)) {
    if (const gpu::MigProfile* p = gpu::FindProfile(*spec, m.profile)) return p->memory_slices;
  }
  return 1;
}

int TotalSlices(const GpuDevice& g) {
  int total = 0;
  for (const auto& m : g.mig) total += Slices(g, m);
  return std::max(total, gpu::kMemorySlices);
}

double Fullness(const GpuDevice& g, int32_t extra_milli, int64_t extra_memory, int extra_slices) {
  if (!g.mig.empty()) {
    int used = extra_slices;
    for (const auto& m : g.mig) used += m.used ? Slices(g, m) : 0;
    return std::min(1.0, static_cast<double>(used) / TotalSlices(g));
  }
  double cores = static_cast<double>(g.used_milli + extra_milli) / 1000.0;
  double memory = g.memory_mib > 0 ? static_cast<double>(g.used_memory_mib + extra_memory) /
                                         static_cast<double>(g.memory_mib)
                                   : 0.0;
  return std::min(1.0, std::max(cores, memory));
}

// Device indices ordered by policy: fullest first for binpack, emptiest first for spread;
// ties by index so the choice is deterministic.
std::vector<int32_t> Ordered(const Node& n, const std::vector<int32_t>& candidates,
                             DevicePolicy policy) {
  std::vector<std::pair<double, int32_t>> keyed;
  for (int32_t i : candidates) keyed.emplace_back(DeviceFullness(n.gpus[i]), i);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first)
      return policy == DevicePolicy::kBinpack ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  });
  std::vector<int32_t> out;
  for (const auto& [f, i] : keyed) out.push_back(i);
  return out;
}

}  // namespace

bool IsShare(const DeviceAllocation& d) {
  return d.mig_instance < 0 && (d.milli < 1000 || d.memory_mib > 0);
}

double DeviceFullness(const GpuDevice& g) { return Fullness(g, 0, 0, 0); }

std::optional<std::vector<DeviceAllocation>> ChooseMig(const Node& n,
                                                       const std::vector<MigRequest>& mig,
                                                       const std::vector<std::string>& models,
                                                       DevicePolicy policy, std::string* reason) {
  std::vector<int32_t> candidates;
  for (const auto& g : n.gpus) {
    if (g.healthy && !g.mig.empty() && GpuModelAllowed(models, g.model)) {
      candidates.push_back(g.index);
    }
  }
  std::vector<int32_t> order = Ordered(n, candidates, policy);
  std::vector<DeviceAllocation> out;
  auto taken = [&](int32_t gpu, int32_t inst) {
    for (const auto& d : out) {
      if (d.gpu == gpu && d.mig_instance == inst) return true;
    }
    return false;
  };
  for (const auto& req : mig) {
    int32_t found = 0;
    for (int32_t gi : order) {
      const GpuDevice& g = n.gpus[gi];
      for (size_t k = 0; k < g.mig.size() && found < req.count; ++k) {
        const MigInstance& m = g.mig[k];
        if (m.used || m.profile != req.profile || taken(gi, static_cast<int32_t>(k))) continue;
        DeviceAllocation d;
        d.gpu = gi;
        d.milli = 0;
        d.mig_instance = static_cast<int32_t>(k);
        out.push_back(d);
        ++found;
      }
      if (found == req.count) break;
    }
    if (found < req.count) {
      if (reason)
        *reason = fmt::format("node(s) had no free MIG instance of profile {}", req.profile);
      return std::nullopt;
    }
  }
  return out;
}

std::optional<std::vector<DeviceAllocation>> ChooseShares(const Node& n, const DeviceRequest& r,
                                                          const ShareState& state,
                                                          DevicePolicy policy,
                                                          std::string* reason) {
  bool legacy = r.vgpu_number == 0;
  int32_t want = legacy ? 1 : r.vgpu_number;
  int32_t cores = legacy ? 0 : std::min(r.vgpu_cores, 100);
  int32_t milli = cores * 10;
  std::vector<int32_t> fits;
  int open = 0, memory_ok = 0;
  for (const auto& g : n.gpus) {
    int32_t shares =
        g.index < static_cast<int32_t>(state.shares.size()) ? state.shares[g.index] : 0;
    // Not held whole (or by an exclusive share), not partitioned, room for one more share.
    if (!g.healthy || !g.mig.empty() || g.used_milli >= 1000 || shares >= state.split ||
        !GpuModelAllowed(state.models, g.model)) {
      continue;
    }
    ++open;
    int64_t memory =
        legacy ? r.gpu_memory_mib : (r.vgpu_memory_mib > 0 ? r.vgpu_memory_mib : g.memory_mib);
    if (g.used_memory_mib + memory > g.memory_mib) continue;
    ++memory_ok;
    if (g.used_milli + milli > 1000 || (cores >= 100 && shares > 0)) continue;
    fits.push_back(g.index);
  }
  if (static_cast<int32_t>(fits.size()) < want) {
    if (reason) {
      if (open < want) {
        *reason = "node(s) had too few GPUs free for sharing";
      } else if (memory_ok < want) {
        *reason = "node(s) had insufficient GPU memory for the share";
      } else {
        *reason = "node(s) had insufficient GPU cores for the share";
      }
    }
    return std::nullopt;
  }
  std::vector<int32_t> order = Ordered(n, fits, policy);
  std::vector<DeviceAllocation> out;
  for (int32_t i = 0; i < want; ++i) {
    const GpuDevice& g = n.gpus[order[i]];
    DeviceAllocation d;
    d.gpu = g.index;
    d.milli = milli;
    d.cores_percent = cores;
    d.memory_mib =
        legacy ? r.gpu_memory_mib : (r.vgpu_memory_mib > 0 ? r.vgpu_memory_mib : g.memory_mib);
    out.push_back(d);
  }
  return out;
}

double ScoreChoice(const Node& n, const std::vector<DeviceAllocation>& chosen,
                   DevicePolicy policy) {
  if (chosen.empty()) return 0;
  // Group by device so two allocations on one device count once, with both added.
  std::map<int32_t, std::tuple<int32_t, int64_t, int>> per_gpu;
  for (const auto& d : chosen) {
    auto& [milli, memory, slices] = per_gpu[d.gpu];
    if (d.mig_instance >= 0) {
      slices += Slices(n.gpus[d.gpu], n.gpus[d.gpu].mig[d.mig_instance]);
    } else {
      milli += d.milli;
      memory += d.memory_mib;
    }
  }
  double sum = 0;
  for (const auto& [gpu, extra] : per_gpu) {
    auto [milli, memory, slices] = extra;
    sum += Fullness(n.gpus[gpu], milli, memory, slices);
  }
  double mean = sum / static_cast<double>(per_gpu.size());
  return 100.0 * (policy == DevicePolicy::kBinpack ? mean : 1.0 - mean);
}

}  // namespace etna::sched::devices
