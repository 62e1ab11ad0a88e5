// NodeFilter: the one filter-and-score path of a task on a node, shared by the actions' Placer
// and the simulators' IncrementalPlacer, so a predicate or score added once applies to both.
//
// Filter: resource fit against the node's idle resources, including concrete devices and
// capacity reserved for other jobs (Session::ResourceFits) → static predicates, whose results
// are cached per pod spec so identical tasks share them → dynamic predicates. Score: the
// NodeOrder plugins (PluginDispatch::NodeScore, or its two parts for callers that cache one).
//
// Thread-safety: none; one per placer.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sched/framework/fit_errors.h"
#include "sched/framework/session.h"

namespace etna::sched {

class NodeFilter {
 public:
  explicit NodeFilter(const Session& session) : session_(session) {}

  // Whether `t` can be bound on node `n` now; `errors`, when given, gets why not.
  bool FitsNow(const Task& t, NodeIdx n, FitErrors* errors);
  // Every predicate, ignoring resources: could this task ever run on this node?
  PredicateResult AllPredicates(const Task& t, NodeIdx n);

  double Score(const Task& t, NodeIdx n) const { return session_.NodeScore(t, session_.node(n)); }
  double ScoreOwn(const Task& t, NodeIdx n) const {
    return session_.NodeScoreOwn(t, session_.node(n));
  }

 private:
  struct SpecCache {
    std::vector<int16_t> result;  // per node: -1 unknown, 0 pass, k > 0 reason k-1
  };
  // Static predicates only, through the per-spec cache.
  PredicateResult StaticPredicate(const Task& t, NodeIdx n);
  int16_t ReasonId(const std::string& reason);

  const Session& session_;
  std::unordered_map<const PodSpec*, SpecCache> spec_cache_;
  std::vector<std::string> reasons_;
  std::unordered_map<std::string, int16_t> reason_ids_;
};

}  // namespace etna::sched
