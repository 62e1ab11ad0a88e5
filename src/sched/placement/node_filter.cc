#include "sched/placement/node_filter.h"

namespace etna::sched {

int16_t NodeFilter::ReasonId(const std::string& reason) {
  auto [it, inserted] = reason_ids_.try_emplace(reason, static_cast<int16_t>(reasons_.size()));
  if (inserted) reasons_.push_back(reason);
  return it->second;
}

PredicateResult NodeFilter::StaticPredicate(const Task& t, NodeIdx n) {
  SpecCache& cache = spec_cache_[t.spec.get()];
  if (cache.result.empty()) cache.result.assign(session_.nodes().size(), -1);
  int16_t& r = cache.result[n];
  if (r < 0) {
    PredicateResult p = session_.Predicate(t, session_.node(n), /*cacheable_only=*/true);
    r = p.ok ? 0 : static_cast<int16_t>(ReasonId(p.reason) + 1);
    return p;
  }
  return r == 0 ? PredicateResult::Pass() : PredicateResult::Fail(reasons_[r - 1]);
}

PredicateResult NodeFilter::AllPredicates(const Task& t, NodeIdx n) {
  if (auto p = StaticPredicate(t, n); !p.ok) return p;
  return session_.DynamicPredicate(t, session_.node(n));
}

bool NodeFilter::FitsNow(const Task& t, NodeIdx n, FitErrors* errors) {
  const Node& node = session_.node(n);
  if (!session_.ResourceFits(t, node, node.Idle(), /*check_devices=*/true, errors)) return false;
  PredicateResult p = AllPredicates(t, n);
  if (!p.ok) {
    if (errors) errors->AddNodeFailure(p.reason);
    return false;
  }
  return true;
}

}  // namespace etna::sched
