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
  return out;
}

const MemberNodes& MemberNodesCache::Get(const Session& s, const Task& self) {
  TaskIdx ti = s.IndexOf(self);
  size_t log_pos = s.node_change_log().size();
  if (task_ != ti || log_pos_ != log_pos) {
    task_ = ti;
    log_pos_ = log_pos;
    value_ = CollectMemberNodes(s, self);
  }
  return value_;
}

}  // namespace etna::sched
