#include "sched/framework/incremental.h"

#include <algorithm>
#include <functional>

#include "sched/framework/statement.h"

namespace etna::sched {

IncrementalPlacer::IncrementalPlacer(Session& session, Options options)
    : session_(session), options_(options), filter_(session), rng_(options.seed) {
  version_.assign(session_.nodes().size(), 0);
  log_pos_ = session_.node_change_log().size();
  if (options_.tie_break == TieBreak::kFixedOrder) {
    std::vector<uint32_t> order(session_.nodes().size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
    std::shuffle(order.begin(), order.end(), rng_);
    rank_.resize(order.size());
    for (size_t i = 0; i < order.size(); ++i) rank_[order[i]] = static_cast<uint32_t>(i);
  }
  if (session_.HasDynamicPredicates() || session_.cross_node_predicates()) options_.cache = false;
}

size_t IncrementalPlacer::ShapeKeyHash::operator()(const ShapeKey& k) const {
  size_t h = std::hash<const void*>()(k.spec);
  for (int r = 0; r < k.request.dims(); ++r) {
    h = h * 1000003 + std::hash<int64_t>()(k.request.Get(r));
  }
  return h;
}

void IncrementalPlacer::CatchUp() {
  const auto& log = session_.node_change_log();
  for (; log_pos_ < log.size(); ++log_pos_) ++version_[log[log_pos_]];
}

bool IncrementalPlacer::Feasible(const Task& t, NodeIdx n) {
  return session_.Schedulable(session_.node(n)) && filter_.FitsNow(t, n, nullptr);
}

NodeIdx IncrementalPlacer::Place(TaskIdx ti) {
  CatchUp();
  const Task& t = session_.task(ti);
  const auto& nodes = session_.nodes();
  std::vector<Entry> local;
  std::vector<Entry>* entries = &local;
  if (options_.cache) {
    entries = &cache_[ShapeKey{t.spec.get(), t.request}];
  }
  if (entries->size() < nodes.size()) entries->resize(nodes.size());

  NodeIdx best = kNone;
  double best_score = 0;
  uint64_t ties = 0;
  for (NodeIdx n = 0; n < static_cast<NodeIdx>(nodes.size()); ++n) {
    Entry& e = (*entries)[n];
    if (e.version != version_[n] || !options_.cache) {
      e.version = version_[n];
      e.feasible = Feasible(t, n);
      e.score = e.feasible ? filter_.Score(t, n) : 0;
    }
    if (!e.feasible) continue;
    if (best == kNone || e.score > best_score) {
      best = n;
      best_score = e.score;
      ties = 1;
    } else if (e.score == best_score && options_.tie_break == TieBreak::kFixedOrder) {
      if (rank_[n] < rank_[best]) best = n;
    } else if (e.score == best_score) {
      // Reservoir sampling: each of the k tied nodes is kept with probability 1/k.
      ++ties;
      if (std::uniform_int_distribution<uint64_t>(0, ties - 1)(rng_) == 0) best = n;
    }
  }
  if (best == kNone) return kNone;
  Statement stmt(session_);
  if (!stmt.Allocate(ti, best).ok()) return kNone;
  stmt.Commit();
  return best;
}

}  // namespace etna::sched
