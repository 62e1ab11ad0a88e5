#include "sched/plugins/gpu_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "sched/devices/nvlink.h"
#include "sched/framework/session.h"

namespace etna::sched {
namespace {

enum class Level { kNvlink, kPcie, kNuma };

int32_t KeyOf(const GpuDevice& g, Level level) {
  switch (level) {
    case Level::kNvlink:
      return g.nvlink_domain;
    case Level::kPcie:
      return g.pcie_switch;
    case Level::kNuma:
      return g.numa_node;
  }
  return -1;
}

int WholeGpus(const Task& t) {
  int64_t g = t.request.Get(kGpu);
  return g >= 1000 && g % 1000 == 0 ? static_cast<int>(g / 1000) : 0;
}

// Groups of GPU indices by the level's key, in order of first appearance; a negative key makes
// a group of one.
std::vector<std::vector<int32_t>> GroupBy(const Node& n, const std::vector<int32_t>& gpus,
                                          Level level) {
  std::vector<std::vector<int32_t>> groups;
  std::map<int32_t, size_t> where;
  for (int32_t i : gpus) {
    int32_t key = KeyOf(n.gpus[i], level);
    if (key < 0) {
      groups.push_back({i});
      continue;
    }
    auto [it, inserted] = where.try_emplace(key, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

// Picks `count` of `gpus` level by level: the tightest group that holds them all, else the
// largest groups first and the tightest group that holds the remainder.
void Pick(const Node& n, const std::vector<int32_t>& gpus, size_t count,
          const std::vector<Level>& levels, size_t level, std::vector<int32_t>* out) {
  if (level == levels.size()) {
    out->insert(out->end(), gpus.begin(), gpus.begin() + static_cast<std::ptrdiff_t>(count));
    return;
  }
  std::vector<std::vector<int32_t>> groups = GroupBy(n, gpus, levels[level]);
  std::vector<bool> used(groups.size(), false);
  size_t remaining = count;
  while (remaining > 0) {
    int tight = -1, largest = -1;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (used[g]) continue;
      size_t size = groups[g].size();
      if (size >= remaining && (tight < 0 || size < groups[tight].size()))
        tight = static_cast<int>(g);
      if (largest < 0 || size > groups[largest].size()) largest = static_cast<int>(g);
    }
    int g = tight >= 0 ? tight : largest;
    if (g < 0) return;  // not enough GPUs; the caller checked
    size_t take = std::min(remaining, groups[g].size());
    Pick(n, groups[g], take, levels, level + 1, out);
    used[g] = true;
    remaining -= take;
  }
}

std::vector<int32_t> FreeGpus(const Node& n) {
  std::vector<int32_t> free;
  for (size_t i = 0; i < n.gpus.size(); ++i) {
    if (n.gpus[i].WholeFree()) free.push_back(static_cast<int32_t>(i));
  }
  return free;
}

}  // namespace

Result<std::unique_ptr<Plugin>> GpuTopologyPlugin::Create(PluginBuildContext& ctx) {
  Options o;
  ETNA_RETURN_IF_ERROR(ctx.arguments.GetInt("gpu-topology.weight", &o.weight));
  if (o.weight < 0) return Status::InvalidArgument("argument gpu-topology.weight: must be >= 0");
  ETNA_RETURN_IF_ERROR(ctx.arguments.GetBool("gpu-topology.nvlinkPreferred", &o.nvlink_preferred));
  ETNA_RETURN_IF_ERROR(ctx.arguments.GetBool("gpu-topology.pciePreferred", &o.pcie_preferred));
  return std::unique_ptr<Plugin>(new GpuTopologyPlugin(o));
}

std::optional<std::vector<DeviceAllocation>> GpuTopologyPlugin::Choose(const Options& o,
                                                                       const Node& n, int count) {
  std::vector<int32_t> free = FreeGpus(n);
  if (count <= 0 || free.size() < static_cast<size_t>(count)) return std::nullopt;
  std::vector<Level> levels;
  if (o.pcie_preferred) levels.push_back(Level::kPcie);
  if (o.nvlink_preferred) levels.push_back(Level::kNvlink);
  if (!o.pcie_preferred) levels.push_back(Level::kPcie);
  levels.push_back(Level::kNuma);
  std::vector<int32_t> picked;
  Pick(n, free, static_cast<size_t>(count), levels, 0, &picked);
  std::sort(picked.begin(), picked.end());
  std::vector<DeviceAllocation> out;
  for (int32_t i : picked) {
    DeviceAllocation d;
    d.gpu = i;
    out.push_back(d);
  }
  return out;
}

int GpuTopologyPlugin::LargestFreeDomain(const Node& n) {
  size_t best = 0;
  for (const auto& g : GroupBy(n, FreeGpus(n), Level::kNvlink)) best = std::max(best, g.size());
  return static_cast<int>(best);
}

double GpuTopologyPlugin::Score(const Node& n, int count) {
  if (count <= 0) return 0;
  std::vector<int32_t> free = FreeGpus(n);
  if (free.size() < static_cast<size_t>(count)) return 0;
  // A free GPU without a domain is a tight fit of its own for a one-GPU task.
  bool lone_fit = count == 1 && std::any_of(free.begin(), free.end(),
                                            [&](int32_t i) { return n.gpus[i].nvlink_domain < 0; });
  if (lone_fit) return 100.0;
  std::optional<devices::NvlinkDomainFit> tight =
      devices::TightestNvlinkDomain(n, static_cast<size_t>(count));
  if (!tight) {
    auto groups = GroupBy(n, free, Level::kNvlink);
    std::sort(groups.begin(), groups.end(),
              [](const auto& a, const auto& b) { return a.size() > b.size(); });
    size_t taken = 0;
    int k = 0;
    for (const auto& g : groups) {
      if (taken >= static_cast<size_t>(count)) break;
      taken += g.size();
      ++k;
    }
    return 50.0 / k;
  }
  size_t size =
      static_cast<size_t>(std::count_if(n.gpus.begin(), n.gpus.end(), [&](const GpuDevice& g) {
        return g.nvlink_domain == tight->domain;
      }));
  return 100.0 - 50.0 * static_cast<double>(tight->free - static_cast<size_t>(count)) /
                     static_cast<double>(size);
}

void GpuTopologyPlugin::OnSessionOpen(Session& s) {
  Options o = o_;
  s.AddDeviceChooserFn([o](const Task& t, const Node& n) -> std::optional<DeviceChoice> {
    int count = WholeGpus(t);
    if (count < 2 || n.gpus.empty()) return std::nullopt;
    Options use = o;
    if (t.spec && t.spec->require_full_nvlink) {
      // Without a domain that has room the predicate rejects the node with its own reason.
      if (LargestFreeDomain(n) < count) return std::nullopt;
      use.nvlink_preferred = true;
      use.pcie_preferred = false;
    }
    auto picked = Choose(use, n, count);
    if (!picked) return DeviceChoice{false, {}};
    return DeviceChoice{true, std::move(*picked)};
  });
  s.AddPredicateFn(
      [&s](const Task& t, const Node& n) {
        int count = WholeGpus(t);
        if (count < 2 || !t.spec || !t.spec->require_full_nvlink) return PredicateResult::Pass();
        int largest = 0;
        if (n.Idle().Get(kGpu) >= t.request.Get(kGpu)) {
          largest = LargestFreeDomain(n);
        } else {
          // Only pipelining is possible here: count GPUs that releasing tasks will give back.
          Node future = n;
          for (TaskIdx ti : n.tasks) {
            const Task& held = s.task(ti);
            if (held.status != TaskStatus::kReleasing) continue;
            for (const auto& d : held.devices) {
              if (d.gpu < static_cast<int32_t>(future.gpus.size())) {
                future.gpus[d.gpu].used_milli -= d.milli;
              }
            }
          }
          largest = LargestFreeDomain(future);
        }
        if (largest >= count) return PredicateResult::Pass();
        return PredicateResult::Fail(
            fmt::format("node(s) had no NVLink domain with {} free GPUs", count));
      },
      /*cacheable=*/false);
  if (o.weight > 0) {
    s.AddNodeOrderFn([o](const Task& t, const Node& n) {
      return Score(n, WholeGpus(t)) * static_cast<double>(o.weight);
    });
  }
}

}  // namespace etna::sched
