// MemberNodes: where a job's other members already are: the distinct nodes they hold (or are
// pipelined on) with a count each. Topology scores compare a candidate node with these few
// nodes instead of walking the gang member by member for every node they score.
//
// MemberNodesCache keeps the answer for one task until the session changes (its node change
// log grows), which is what a node scan for one task needs. Not thread-safe.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sched/framework/session.h"

namespace etna::sched {

struct MemberNodes {
  int members = 0;      // placed members other than the task itself
  int64_t pending = 0;  // pending members other than the task itself
  std::vector<std::pair<NodeIdx, int>> nodes;
};

MemberNodes CollectMemberNodes(const Session& s, const Task& self);

class MemberNodesCache {
 public:
  const MemberNodes& Get(const Session& s, const Task& self);

 private:
  TaskIdx task_ = kNone;
  size_t log_pos_ = 0;
  MemberNodes value_;
};

}  // namespace etna::sched
