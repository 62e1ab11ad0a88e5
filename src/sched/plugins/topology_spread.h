// TopologySpread: kube-scheduler's PodTopologySpread over the session, for the predicates
// plugin (DoNotSchedule constraints: a filter) and the nodeorder plugin (ScheduleAnyway
// constraints: a score). For each constraint of a task, the tasks its selector matches in the
// task's namespace (placed or waiting on a node) are counted per domain of the topology key,
// over the nodes eligible for the task (those with the key; with nodeAffinityPolicy Honor,
// those its nodeSelector and required node affinity accept; with nodeTaintsPolicy Honor, those
// whose taints it tolerates).
//   Filter: a node lacking the key fails ("node(s) didn't match pod topology spread constraints
//   (missing required label)"); one where count + (1 if the task matches its own selector) −
//   the smallest domain's count (0 when fewer domains than minDomains) would exceed maxSkew
//   fails ("node(s) didn't match pod topology spread constraints").
//   Score: Σ over soft constraints of the node's domain count × log(domains + 2), fewer
//   scoring higher, normalized 0..100 over the schedulable nodes.
// The counts are rebuilt when the task or the session's placements change.
// Thread-safety: none; one instance per plugin per session.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sched/framework/plugin.h"
#include "sched/framework/session.h"

namespace etna::sched {

inline constexpr char kReasonTopologySpread[] =
    "node(s) didn't match pod topology spread constraints";
inline constexpr char kReasonTopologySpreadLabel[] =
    "node(s) didn't match pod topology spread constraints (missing required label)";

// Whether any task of the session has a constraint of that hardness.
bool AnyTopologySpread(const Session& s, bool hard);

class TopologySpread {
 public:
  PredicateResult Check(const Session& s, const Task& t, const Node& n);
  double Score(const Session& s, const Task& t, const Node& n);

 private:
  struct Domains {
    std::map<std::string, int64_t> counts;  // by the topology key's value
    int64_t min = 0;
  };
  // Counts for each of the task's constraints, rebuilt when needed.
  void Prepare(const Session& s, const Task& t);

  TaskIdx task_ = kNone;
  size_t log_pos_ = 0;
  std::vector<Domains> domains_;  // per constraint of the task
  std::vector<double> scores_;    // raw soft score per node
  double score_min_ = 0, score_max_ = 0;
};

}  // namespace etna::sched
