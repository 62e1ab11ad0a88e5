// MemberNodes: where a job's other members already are: the distinct nodes they hold (or are
// pipelined on) with a count each. Topology scores compare a candidate node with these few
// nodes instead of walking the gang member by member for every node they score.
//
// MemberNodesCache keeps the answer for one task until the session changes (its node change
// log grows), which is what a node scan for one task needs, with the members on each node in a
// dense array (only the member nodes are written and cleared again), so that a candidate's own
// count is one read. Given the topology, it also counts
// the members inside each hypernode, so that ForEachMemberDistance finds a candidate's distance
// to every member in one walk up the candidate's few hypernodes: the cost of scoring a node no
// longer grows with how many nodes the gang is spread over. Not thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "sched/framework/session.h"
#include "sched/model/hypernode.h"

namespace etna::sched {

struct MemberNodes {
  int members = 0;                             // placed members other than the task itself
  int64_t pending = 0;                         // pending members other than the task itself
  std::vector<std::pair<NodeIdx, int>> nodes;  // sorted by node
  // Members inside each hypernode (indexed as HyperNodeIndex::hypernodes()); empty unless the
  // cache was given a nested topology.
  std::vector<int> per_hypernode;
  // Members on each node (indexed by NodeIdx); empty unless kept by a MemberNodesCache.
  std::vector<int> per_node;
};

// Fills m->per_hypernode from m->nodes when `topology` is given and nested, else empties it.
void CountPerHypernode(const HyperNodeIndex* topology, MemberNodes* m);

class MemberNodesCache {
 public:
  // Also fills per_hypernode when `topology` is given and nested.
  const MemberNodes& Get(const Session& s, const Task& self, const HyperNodeIndex* topology);

 private:
  TaskIdx task_ = kNone;
  size_t log_pos_ = 0;
  MemberNodes value_;
};

// Calls f(distance, count) for the members of `m` grouped by HyperNodeIndex::Distance from
// `candidate`: from the per-hypernode counts when `m` has them (one step per hypernode holding
// the candidate), else one Distance per member node.
template <typename F>
void ForEachMemberDistance(const HyperNodeIndex& topology, const MemberNodes& m, NodeIdx candidate,
                           F&& f) {
  if (m.per_hypernode.empty()) {
    for (const auto& [node, count] : m.nodes) f(topology.Distance(candidate, node), count);
    return;
  }
  int counted = 0;
  if (!m.per_node.empty()) {
    counted = m.per_node[candidate];
  } else {
    auto it = std::lower_bound(m.nodes.begin(), m.nodes.end(), candidate,
                               [](const auto& e, NodeIdx n) { return e.first < n; });
    counted = it != m.nodes.end() && it->first == candidate ? it->second : 0;
  }
  if (counted > 0) f(0, counted);
  for (int32_t h : topology.Containing(candidate)) {
    int inside = m.per_hypernode[h];
    if (inside > counted) f(topology.hypernodes()[h].tier, inside - counted);
    counted = std::max(counted, inside);
  }
  if (m.members > counted) f(topology.max_tier() + 1, m.members - counted);
}

}  // namespace etna::sched
