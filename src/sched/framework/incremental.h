// IncrementalPlacer: places a stream of single-task arrivals through one open session, the way
// kube-scheduler places one pod at a time, without a new session (and snapshot copy) per pod.
//
// For each task: every schedulable node is filtered and scored by the NodeFilter the actions'
// Placer uses too (idle resources including concrete devices from the device choosers, then
// every predicate; the NodeOrder plugins' score); the highest score wins; equal best scores are
// broken at random from `seed`, either uniformly per task (kube-scheduler's selectHost) or by one
// random node order fixed for the whole stream (the FGD simulator's: nodes get random name prefixes
// and the first best name wins). The task is then bound through a Statement, so plugins see the
// usual events and the session's accounting stays exact.
//
// Node results are cached per task shape (spec and request) and node version (bumped from the
// session's node change log), so a node is re-filtered and re-scored only after it changed.
// This is valid when predicates and scores depend only on the task's shape and the node's own
// state; set `cache = false` otherwise (the cache is also off when the session has dynamic or
// cross-node predicates). Static predicates are cached per pod spec by the NodeFilter either way,
// as for the actions (PluginDispatch::AddPredicateFn's `cacheable`).
//
// Thread-safety: none; one per session.
#pragma once

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "sched/framework/session.h"
#include "sched/placement/node_filter.h"

namespace etna::sched {

class IncrementalPlacer {
 public:
  enum class TieBreak {
    kUniform,     // each tied node equally likely (kube-scheduler's reservoir sampling)
    kFixedOrder,  // the first tied node in a random node order drawn once from `seed`
  };
  struct Options {
    uint64_t seed = 1;
    bool cache = true;
    TieBreak tie_break = TieBreak::kUniform;
  };

  IncrementalPlacer(Session& session, Options options);

  // Places the pending task `t` now. Returns its node, or kNone when no node can hold it (the
  // task is then left pending; see Session::AbandonTask).
  NodeIdx Place(TaskIdx t);

 private:
  struct Entry {
    uint32_t version = UINT32_MAX;
    bool feasible = false;
    double score = 0;
  };
  struct ShapeKey {
    const PodSpec* spec;
    ResourceVector request;
    bool operator==(const ShapeKey& o) const { return spec == o.spec && request == o.request; }
  };
  struct ShapeKeyHash {
    size_t operator()(const ShapeKey& k) const;
  };

  void CatchUp();
  bool Feasible(const Task& t, NodeIdx n);

  Session& session_;
  Options options_;
  NodeFilter filter_;
  std::mt19937_64 rng_;
  size_t log_pos_ = 0;
  std::vector<uint32_t> version_;
  std::vector<uint32_t> rank_;  // kFixedOrder: position of each node in the random order
  std::unordered_map<ShapeKey, std::vector<Entry>, ShapeKeyHash> cache_;
};

}  // namespace etna::sched
