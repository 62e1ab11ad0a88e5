#include "sched/devices/nvlink.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace etna::sched::devices {

std::optional<NvlinkDomainFit> TightestNvlinkDomain(const Node& n, size_t count) {
  // Free devices per domain, in order of each domain's first free device.
  std::vector<std::pair<int32_t, size_t>> free_per_domain;
  for (const auto& g : n.gpus) {
    if (!g.WholeFree() || g.nvlink_domain < 0) continue;
    auto it = std::find_if(free_per_domain.begin(), free_per_domain.end(),
                           [&](const auto& d) { return d.first == g.nvlink_domain; });
    if (it == free_per_domain.end()) {
      free_per_domain.emplace_back(g.nvlink_domain, 1);
    } else {
      ++it->second;
    }
  }
  std::optional<NvlinkDomainFit> best;
  for (const auto& [domain, free] : free_per_domain) {
    if (free < count) continue;
    if (!best || free < best->free) best = NvlinkDomainFit{domain, free};
  }
  return best;
}

}  // namespace etna::sched::devices
