#include "sched/plugins/member_nodes.h"

#include <algorithm>

namespace etna::sched {

MemberNodes CollectMemberNodes(const Session& s, const Task& self) {
  MemberNodes out;
  if (self.job == kNone) return out;
  TaskIdx ti = s.IndexOf(self);
  for (TaskIdx mi : s.job(self.job).tasks) {
    if (mi == ti) continue;
    const Task& m = s.task(mi);
    if (m.status == TaskStatus::kPending) ++out.pending;
    bool placed = m.node != kNone && (HoldsNode(m.status) || m.status == TaskStatus::kPipelined);
    if (!placed) continue;
    ++out.members;
    auto it = std::find_if(out.nodes.begin(), out.nodes.end(),
                           [&](const auto& e) { return e.first == m.node; });
    if (it == out.nodes.end()) {
      out.nodes.emplace_back(m.node, 1);
    } else {
      ++it->second;
    }
  }
  std::sort(out.nodes.begin(), out.nodes.end());
  return out;
}

void CountPerHypernode(const HyperNodeIndex* topology, MemberNodes* m) {
  if (!topology || !topology->nested() || m->nodes.empty()) {
    m->per_hypernode.clear();
    return;
  }
  m->per_hypernode.assign(topology->hypernodes().size(), 0);
  for (const auto& [node, count] : m->nodes) {
    for (int32_t h : topology->Containing(node)) m->per_hypernode[h] += count;
  }
}

const MemberNodes& MemberNodesCache::Get(const Session& s, const Task& self,
                                         const HyperNodeIndex* topology) {
  TaskIdx ti = s.IndexOf(self);
  size_t log_pos = s.node_change_log().size();
  if (task_ != ti || log_pos_ != log_pos) {
    task_ = ti;
    log_pos_ = log_pos;
    std::vector<int> counts = std::move(value_.per_hypernode);
    value_ = CollectMemberNodes(s, self);
    value_.per_hypernode = std::move(counts);  // reuses its capacity
    CountPerHypernode(topology, &value_);
  }
  return value_;
}

}  // namespace etna::sched
