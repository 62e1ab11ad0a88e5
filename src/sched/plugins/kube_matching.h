// Kubernetes placement rules shared by the predicates and nodeorder plugins: node selector and
// node affinity terms, taints against tolerations, and pod (anti-)affinity terms matched
// against the tasks of a session. Pure functions over the model; thread-safe.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sched/model/snapshot.h"

namespace etna::sched {

class Session;

// A topology domain: (topology key, the node label value all nodes of the domain share).
using TopologyPair = std::pair<std::string, std::string>;

// One NodeSelectorTerm: all matchExpressions on the node's labels and all matchFields on
// metadata.name. A term with no requirements matches no node (as in Kubernetes).
bool NodeMatchesTerm(const NodeSelectorTerm& term, const Node& node);
// nodeSelector (every label equal) and required node affinity (any term matches).
bool NodeMatchesSelectorAndAffinity(const PodSpec& spec, const Node& node);
// The first NoSchedule or NoExecute taint no toleration tolerates, or null.
const Taint* FirstUntoleratedTaint(const std::vector<Toleration>& tolerations, const Node& node);
// PreferNoSchedule taints not tolerated by a toleration that covers PreferNoSchedule.
int CountIntolerablePreferNoSchedule(const std::vector<Toleration>& tolerations, const Node& node);
// Whether `task` is matched by `term` owned by a pod of namespace `owner_ns` (an empty
// namespace list means the owner's namespace).
bool AffinityTermMatches(const PodAffinityTerm& term, const std::string& owner_ns,
                         const Task& task);
// The node's domain for `key`, or false when the node lacks the label.
bool NodeDomain(const Node& node, const std::string& key, TopologyPair* out);
// Whether the task currently holds or waits for a node (counts for pod affinity).
bool OnNode(const Task& t);

}  // namespace etna::sched
