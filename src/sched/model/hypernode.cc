#include "sched/model/hypernode.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace etna::sched {

std::vector<HyperNode> HyperNodeIndex::FromLabels(const std::vector<Node>& nodes) {
  std::map<std::string, HyperNode> by_name;
  for (NodeIdx n = 0; n < static_cast<NodeIdx>(nodes.size()); ++n) {
    for (std::string_view key : kSwitchLabels) {
      auto it = nodes[n].labels.find(std::string(key));
      if (it == nodes[n].labels.end()) continue;
      std::string name = std::string(key) + "=" + it->second;
      HyperNode& h = by_name[name];
      h.name = name;
      h.tier = 1;
      h.nodes.push_back(n);
      break;
    }
  }
  std::vector<HyperNode> out;
  out.reserve(by_name.size());
  for (auto& [name, h] : by_name) out.push_back(std::move(h));
  return out;
}

HyperNodeIndex::HyperNodeIndex(const std::vector<Node>& nodes,
                               const std::vector<HyperNode>& hypernodes)
    : hypernodes_(hypernodes.empty() ? FromLabels(nodes) : hypernodes) {
  const int32_t count = static_cast<int32_t>(hypernodes_.size());
  const NodeIdx node_count = static_cast<NodeIdx>(nodes.size());
  members_.assign(count, {});
  // 0: not started, 1: in progress (a cycle when met again), 2: done.
  std::vector<uint8_t> state(count, 0);
  auto resolve = [&](auto&& self, int32_t h) -> void {
    if (state[h] != 0) return;
    state[h] = 1;
    std::vector<NodeIdx>& out = members_[h];
    for (NodeIdx n : hypernodes_[h].nodes) {
      if (n >= 0 && n < node_count) out.push_back(n);
    }
    for (int32_t child : hypernodes_[h].hypernodes) {
      if (child < 0 || child >= count || state[child] == 1) continue;
      self(self, child);
      out.insert(out.end(), members_[child].begin(), members_[child].end());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    state[h] = 2;
  };
  containing_.assign(node_count, {});
  for (int32_t h = 0; h < count; ++h) {
    resolve(resolve, h);
    max_tier_ = std::max(max_tier_, hypernodes_[h].tier);
    for (NodeIdx n : members_[h]) containing_[n].push_back(h);
  }
  std::set<std::pair<int32_t, int32_t>> checked;  // (inner, outer) pairs already compared
  for (auto& list : containing_) {
    std::stable_sort(list.begin(), list.end(), [&](int32_t a, int32_t b) {
      return hypernodes_[a].tier < hypernodes_[b].tier;
    });
    for (size_t k = 0; nested_ && k + 1 < list.size(); ++k) {
      if (!checked.emplace(list[k], list[k + 1]).second) continue;
      const auto& inner = members_[list[k]];
      const auto& outer = members_[list[k + 1]];
      nested_ = std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
    }
  }
}

// A node sits in a handful of hypernodes (one per tier), so scanning its own list is cheaper
// than searching the hypernode's members.
bool HyperNodeIndex::Contains(int32_t h, NodeIdx n) const {
  const auto& list = containing_[n];
  return std::find(list.begin(), list.end(), h) != list.end();
}

int32_t HyperNodeIndex::Distance(NodeIdx a, NodeIdx b) const {
  if (a == b) return 0;
  for (int32_t h : containing_[a]) {
    if (Contains(h, b)) return hypernodes_[h].tier;
  }
  return max_tier_ + 1;
}

}  // namespace etna::sched
