#include "sched/plugins/topology_spread.h"

#include <algorithm>
#include <cmath>

#include "sched/plugins/kube_matching.h"

namespace etna::sched {

namespace {

bool Eligible(const TopologySpreadConstraint& c, const PodSpec& spec, const Node& n) {
  if (n.labels.find(c.topology_key) == n.labels.end()) return false;
  if (c.honor_node_affinity && !NodeMatchesSelectorAndAffinity(spec, n)) return false;
  if (c.honor_taints && FirstUntoleratedTaint(spec.tolerations, n) != nullptr) return false;
  return true;
}

}  // namespace

bool AnyTopologySpread(const Session& s, bool hard) {
  for (const Task& t : s.tasks()) {
    if (!t.spec) continue;
    for (const auto& c : t.spec->topology_spread) {
      if (c.hard == hard) return true;
    }
  }
  return false;
}

void TopologySpread::Prepare(const Session& s, const Task& t) {
  const TaskIdx idx = s.IndexOf(t);
  const size_t pos = s.node_change_log().size();
  if (task_ == idx && log_pos_ == pos) return;
  task_ = idx;
  log_pos_ = pos;
  const auto& constraints = t.spec->topology_spread;
  domains_.assign(constraints.size(), Domains{});
  for (size_t i = 0; i < constraints.size(); ++i) {
    const TopologySpreadConstraint& c = constraints[i];
    Domains& d = domains_[i];
    for (const Node& n : s.nodes()) {
      if (!Eligible(c, *t.spec, n)) continue;
      int64_t& count = d.counts[n.labels.at(c.topology_key)];
      for (TaskIdx pi : n.tasks) {
        const Task& p = s.task(pi);
        if (pi != idx && OnNode(p) && p.ns == t.ns && c.selector.Matches(p.labels)) ++count;
      }
    }
    d.min = 0;
    if (static_cast<int64_t>(d.counts.size()) >= c.min_domains && !d.counts.empty()) {
      d.min = std::min_element(d.counts.begin(), d.counts.end(), [](const auto& a, const auto& b) {
                return a.second < b.second;
              })->second;
    }
  }
  scores_.assign(s.nodes().size(), 0);
  bool first = true;
  for (size_t ni = 0; ni < s.nodes().size(); ++ni) {
    const Node& n = s.nodes()[ni];
    double raw = 0;
    for (size_t i = 0; i < constraints.size(); ++i) {
      const TopologySpreadConstraint& c = constraints[i];
      if (c.hard) continue;
      auto label = n.labels.find(c.topology_key);
      if (label == n.labels.end()) continue;
      auto count = domains_[i].counts.find(label->second);
      double weight = std::log(static_cast<double>(domains_[i].counts.size()) + 2);
      if (count != domains_[i].counts.end()) raw += static_cast<double>(count->second) * weight;
    }
    scores_[ni] = raw;
    if (!s.Schedulable(n)) continue;
    score_min_ = first ? raw : std::min(score_min_, raw);
    score_max_ = first ? raw : std::max(score_max_, raw);
    first = false;
  }
}

PredicateResult TopologySpread::Check(const Session& s, const Task& t, const Node& n) {
  if (!t.spec || t.spec->topology_spread.empty()) return PredicateResult::Pass();
  Prepare(s, t);
  const auto& constraints = t.spec->topology_spread;
  for (size_t i = 0; i < constraints.size(); ++i) {
    const TopologySpreadConstraint& c = constraints[i];
    if (!c.hard) continue;
    auto label = n.labels.find(c.topology_key);
    if (label == n.labels.end()) return PredicateResult::Fail(kReasonTopologySpreadLabel);
    auto count = domains_[i].counts.find(label->second);
    int64_t here = count == domains_[i].counts.end() ? 0 : count->second;
    int64_t self = c.selector.Matches(t.labels) ? 1 : 0;
    if (here + self - domains_[i].min > c.max_skew) {
      return PredicateResult::Fail(kReasonTopologySpread);
    }
  }
  return PredicateResult::Pass();
}

double TopologySpread::Score(const Session& s, const Task& t, const Node& n) {
  if (!t.spec || t.spec->topology_spread.empty()) return 0;
  Prepare(s, t);
  if (score_max_ <= score_min_) return 0;
  constexpr double kMaxScore = 100;
  return kMaxScore * (score_max_ - scores_[s.IndexOf(n)]) / (score_max_ - score_min_);
}

}  // namespace etna::sched
