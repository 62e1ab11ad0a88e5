// HyperNodeIndex: the network hierarchy of a snapshot's nodes, for topology-aware placement.
//
// Built from Snapshot::hypernodes (Volcano 1.12 HyperNodes: tier 1 is the tightest network
// domain, usually the nodes under one switch; higher tiers hold lower ones). When a snapshot
// has no hypernodes, tier-1 hypernodes are derived from node labels: a node's switch is the
// value of the first of these labels it carries, in this order:
//   topology.etna.io/switch, volcano.sh/hypernode, topology.kubernetes.io/zone
// and nodes with the same label and value form one hypernode named "<label>=<value>". Nodes
// without any of them belong to no hypernode.
//
// Distance between two nodes: 0 for the same node, else the tier of the tightest hypernode
// holding both, else max_tier() + 1 ("cross switch").
//
// Thread-safety: immutable after construction; safe to share for reading.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "sched/model/snapshot.h"

namespace etna::sched {

class HyperNodeIndex {
 public:
  static constexpr std::array<std::string_view, 3> kSwitchLabels = {
      "topology.etna.io/switch", "volcano.sh/hypernode", "topology.kubernetes.io/zone"};

  // Tier-1 hypernodes from node labels (see above), ordered by name.
  static std::vector<HyperNode> FromLabels(const std::vector<Node>& nodes);

  // Uses `hypernodes`, or FromLabels(nodes) when it is empty. Member indices out of range and
  // cycles among hypernodes are ignored.
  HyperNodeIndex(const std::vector<Node>& nodes, const std::vector<HyperNode>& hypernodes);

  bool empty() const { return hypernodes_.empty(); }
  int32_t max_tier() const { return max_tier_; }
  const std::vector<HyperNode>& hypernodes() const { return hypernodes_; }
  // Every node inside hypernode `h` (directly or through member hypernodes), sorted.
  const std::vector<NodeIdx>& Members(int32_t h) const { return members_[h]; }
  bool Contains(int32_t h, NodeIdx n) const;
  int32_t Distance(NodeIdx a, NodeIdx b) const;
  // Hypernodes holding node `n`, tightest (lowest tier) first.
  const std::vector<int32_t>& Containing(NodeIdx n) const { return containing_[n]; }
  // Whether every node's hypernodes nest, each inside the next (a tree, as label-made and
  // Volcano's HyperNodes are). Then how far a node is from a set of nodes follows from how many
  // of them each of its hypernodes holds (ForEachMemberDistance in plugins/member_nodes.h).
  bool nested() const { return nested_; }

 private:
  std::vector<HyperNode> hypernodes_;
  std::vector<std::vector<NodeIdx>> members_;
  std::vector<std::vector<int32_t>> containing_;  // per node
  int32_t max_tier_ = 0;
  bool nested_ = true;
};

}  // namespace etna::sched
