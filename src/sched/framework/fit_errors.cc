#include "sched/framework/fit_errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace etna::sched {

std::string FitErrors::ToString() const {
  std::vector<std::pair<std::string, int>> sorted(reasons_.begin(), reasons_.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out = fmt::format("0/{} nodes are available", total_nodes_);
  for (size_t i = 0; i < sorted.size(); ++i) {
    out += fmt::format("{} {} {}", i == 0 ? ":" : ",", sorted[i].second, sorted[i].first);
  }
  return out + ".";
}

}  // namespace etna::sched
