// What the DaemonSet controller decides about pods and nodes, as Kubernetes' daemonset
// controller does, as pure functions: the pod it makes for a node (the template, the
// tolerations Kubernetes adds to every daemon pod, the template hash label, the node already
// set), and whether a node should run it (node selector, required node affinity, NoSchedule
// and NoExecute taints, read with the scheduler's own rules: scheduler/convert.h,
// sched/plugins/kube_matching.h).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "sched/model/snapshot.h"

namespace etna::controllers {

using Json = nlohmann::json;

// The label on a daemon pod naming the template it was made from (the hash of the template).
inline constexpr char kControllerRevisionHashLabel[] = "controller-revision-hash";

// The pod of `daemon_set` for `node`, labelled with `hash`.
Json BuildDaemonSetPod(const Json& daemon_set, const std::string& node, const std::string& hash);
// Whether `pod` (a BuildDaemonSetPod result) may run on a node: its node selector and required
// node affinity match and it tolerates every NoSchedule and NoExecute taint. A cordoned node
// counts as schedulable, as for Kubernetes' daemon pods. The pod's placement rules are read once.
class DaemonPlacement {
 public:
  explicit DaemonPlacement(const Json& pod);
  bool Fits(const Json& node) const;

 private:
  std::shared_ptr<const sched::PodSpec> spec_;  // null: unconstrained
};

}  // namespace etna::controllers
