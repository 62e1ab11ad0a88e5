#include "sched/plugins/member_nodes.h"

#include <algorithm>

namespace etna::sched {
namespace {

// Fills m->members, m->pending and m->nodes for `self`, counting in m->per_node, which holds
// zeros on entry (sized to the nodes).
void CollectMemberNodes(const Session& s, const Task& self, MemberNodes* m) {
  m->members = 0;
  m->pending = 0;
  m->nodes.clear();
  if (self.job == kNone) return;
  TaskIdx ti = s.IndexOf(self);
  for (TaskIdx mi : s.job(self.job).tasks) {
    if (mi == ti) continue;
    const Task& t = s.task(mi);
    if (t.status == TaskStatus::kPending) ++m->pending;
    bool placed = t.node != kNone && (HoldsNode(t.status) || t.status == TaskStatus::kPipelined);
    if (!placed) continue;
    ++m->members;
    if (m->per_node[t.node]++ == 0) m->nodes.emplace_back(t.node, 0);
  }
  std::sort(m->nodes.begin(), m->nodes.end());
  for (auto& [node, count] : m->nodes) count = m->per_node[node];
}

}  // namespace

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
    std::vector<int>& per_node = value_.per_node;
    if (per_node.size() != s.nodes().size()) per_node.assign(s.nodes().size(), 0);
    for (const auto& [node, count] : value_.nodes) per_node[node] = 0;
    CollectMemberNodes(s, self, &value_);
    CountPerHypernode(topology, &value_);
  }
  return value_;
}

}  // namespace etna::sched
