// predicates: Volcano's predicates plugin, the kube-scheduler filters a node must pass.
//
// Static checks (registered cacheable, so identical tasks share the result per node):
//   - node ready and not cordoned        "node(s) were unschedulable"
//   - nodeSelector and required node affinity (OR of NodeSelectorTerms; matchExpressions on
//     labels, matchFields on metadata.name)
//                                        "node(s) didn't match Pod's node affinity/selector"
//   - NoSchedule / NoExecute taints must be tolerated (PreferNoSchedule need not be)
//                                        "node(s) had untolerated taint {key: value}"
// Dynamic checks (cacheable=false; they depend on what is placed where):
//   - required pod affinity / anti-affinity for any topology key: nodes sharing the key's
//     label value form a domain; the tasks on the domain's nodes matched by a term's selector
//     and namespaces count. Like kube, the first pod of a self-affine group may go anywhere
//     that has the topology label, and existing pods' required anti-affinity is symmetric.
//       "node(s) didn't match pod affinity rules"
//       "node(s) didn't match pod anti-affinity rules"
//       "node(s) didn't satisfy existing pods anti-affinity rules"
//   - topologySpreadConstraints with whenUnsatisfiable DoNotSchedule (topology_spread.h)
//       "node(s) didn't match pod topology spread constraints"
//   - proportional (`predicate.ProportionalEnable`): a task that does not ask for one of the
//     `predicate.resources` must leave `predicate.resources.<r>.cpu` cores and `.memory` GB per
//     idle unit of <r> on the node.   "proportional of resource <r> check failed"
//
// Arguments (booleans, default true unless noted): predicate.NodeAffinityEnable (selector and
// node affinity), predicate.TaintTolerationEnable, predicate.PodAffinityEnable,
// predicate.PodTopologySpreadEnable, predicate.CacheEnable (false registers the static checks as
// non-cacheable), predicate.ProportionalEnable (default false) with predicate.resources. Accepted
// and ignored (this scheduler does not model host ports, volumes or DRA):
// predicate.NodePortsEnable, predicate.NodeVolumeLimitsEnable,
// predicate.VolumeZoneEnable, predicate.VolumeBindingEnable,
// predicate.DynamicResourceAllocationEnable, predicate.GPUSharingEnable,
// volumebinding.bindTimeoutSeconds, volumebinding.shape, volumebinding.weight.
//
// Thread-safety: none; one instance per session.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/resource.h"
#include "sched/framework/plugin.h"
#include "sched/framework/session.h"
#include "sched/plugins/kube_matching.h"
#include "sched/plugins/topology_spread.h"

namespace etna::sched {

inline constexpr char kReasonUnschedulable[] = "node(s) were unschedulable";
inline constexpr char kReasonNodeAffinity[] = "node(s) didn't match Pod's node affinity/selector";
inline constexpr char kReasonPodAffinity[] = "node(s) didn't match pod affinity rules";
inline constexpr char kReasonPodAntiAffinity[] = "node(s) didn't match pod anti-affinity rules";
inline constexpr char kReasonExistingAntiAffinity[] =
    "node(s) didn't satisfy existing pods anti-affinity rules";

class PredicatesPlugin : public Plugin {
 public:
  struct Proportion {
    ResourceId resource;
    double cpu = 0;     // cores per unit of the resource
    double memory = 0;  // GB per unit of the resource
  };
  struct Options {
    bool node_affinity = true;
    bool taint_toleration = true;
    bool pod_affinity = true;
    bool pod_topology_spread = true;
    bool cache = true;
    bool proportional = false;
    std::vector<Proportion> proportions;
  };

  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  explicit PredicatesPlugin(Options options) : options_(std::move(options)) {}
  std::string_view name() const override { return "predicates"; }
  void OnSessionOpen(Session& session) override;

 private:
  // Per-task view of the cluster for pod (anti-)affinity, rebuilt when the session changes.
  struct AffinityState {
    TaskIdx task = kNone;
    size_t log_pos = 0;
    std::map<TopologyPair, int> affinity_counts;  // pods matching all affinity terms
    std::set<TopologyPair> anti;                  // domains holding a pod the task repels
    std::set<TopologyPair> existing_anti;         // domains whose pods repel the task
    bool self_match = false;
  };
  void Prepare(const Session& s, const Task& t);
  PredicateResult CheckPodAffinity(const Session& s, const Task& t, const Node& n);
  PredicateResult CheckProportional(const Task& t, const Node& n) const;

  Options options_;
  std::vector<TaskIdx> anti_holders_;
  AffinityState state_;
  TopologySpread spread_;
};

}  // namespace etna::sched
