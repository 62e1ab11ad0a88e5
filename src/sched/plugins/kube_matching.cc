#include "sched/plugins/kube_matching.h"

#include <algorithm>

namespace etna::sched {

bool NodeMatchesTerm(const NodeSelectorTerm& term, const Node& node) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const auto& r : term.match_expressions) {
    if (!r.Matches(node.labels)) return false;
  }
  if (!term.match_fields.empty()) {
    Labels fields{{"metadata.name", node.name}};
    for (const auto& r : term.match_fields) {
      if (!r.Matches(fields)) return false;
    }
  }
  return true;
}

bool NodeMatchesSelectorAndAffinity(const PodSpec& spec, const Node& node) {
  for (const auto& [k, v] : spec.node_selector) {
    auto it = node.labels.find(k);
    if (it == node.labels.end() || it->second != v) return false;
  }
  if (spec.node_affinity_required.empty()) return true;
  return std::any_of(spec.node_affinity_required.begin(), spec.node_affinity_required.end(),
                     [&](const NodeSelectorTerm& t) { return NodeMatchesTerm(t, node); });
}

const Taint* FirstUntoleratedTaint(const std::vector<Toleration>& tolerations, const Node& node) {
  for (const auto& taint : node.taints) {
    if (taint.effect == Taint::Effect::kPreferNoSchedule) continue;
    bool tolerated = std::any_of(tolerations.begin(), tolerations.end(),
                                 [&](const Toleration& t) { return t.Tolerates(taint); });
    if (!tolerated) return &taint;
  }
  return nullptr;
}

int CountIntolerablePreferNoSchedule(const std::vector<Toleration>& tolerations, const Node& node) {
  int count = 0;
  for (const auto& taint : node.taints) {
    if (taint.effect != Taint::Effect::kPreferNoSchedule) continue;
    bool tolerated = std::any_of(tolerations.begin(), tolerations.end(), [&](const Toleration& t) {
      return (t.any_effect || t.effect == Taint::Effect::kPreferNoSchedule) && t.Tolerates(taint);
    });
    count += !tolerated;
  }
  return count;
}

bool AffinityTermMatches(const PodAffinityTerm& term, const std::string& owner_ns,
                         const Task& task) {
  if (term.namespaces.empty()) {
    if (task.ns != owner_ns) return false;
  } else if (std::find(term.namespaces.begin(), term.namespaces.end(), task.ns) ==
             term.namespaces.end()) {
    return false;
  }
  return term.selector.Matches(task.labels);
}

bool NodeDomain(const Node& node, const std::string& key, TopologyPair* out) {
  auto it = node.labels.find(key);
  if (it == node.labels.end()) return false;
  *out = {key, it->second};
  return true;
}

bool OnNode(const Task& t) {
  return t.node != kNone && (HoldsNode(t.status) || t.status == TaskStatus::kPipelined);
}

}  // namespace etna::sched
