#include "controllers/daemon_set_pods.h"

#include "api/types/object.h"
#include "controllers/replica_set_pods.h"
#include "sched/plugins/kube_matching.h"
#include "scheduler/convert.h"

namespace etna::controllers {

namespace types = etna::api::types;

namespace {

// The tolerations Kubernetes adds to every daemon pod (AddOrUpdateDaemonPodTolerations).
Json DaemonTolerations(const Json& existing) {
  Json out = existing.is_array() ? existing : Json::array();
  auto add = [&](const char* key, const char* effect) {
    for (const Json& t : out) {
      if (types::String(t, {"key"}) == key && types::String(t, {"effect"}) == effect) return;
    }
    out.push_back({{"key", key}, {"operator", "Exists"}, {"effect", effect}});
  };
  add("node.kubernetes.io/not-ready", "NoExecute");
  add("node.kubernetes.io/unreachable", "NoExecute");
  add("node.kubernetes.io/disk-pressure", "NoSchedule");
  add("node.kubernetes.io/memory-pressure", "NoSchedule");
  add("node.kubernetes.io/pid-pressure", "NoSchedule");
  add("node.kubernetes.io/unschedulable", "NoSchedule");
  return out;
}

}  // namespace

Json BuildDaemonSetPod(const Json& daemon_set, const std::string& node, const std::string& hash) {
  types::ObjectView ds(daemon_set);
  const Json& tmpl = types::Object(daemon_set, {"spec", "template"});
  Json meta = {{"generateName", ds.name() + "-"},
               {"namespace", ds.ns()},
               {"ownerReferences", Json::array({AppsControllerRef(daemon_set, "DaemonSet")})}};
  for (const char* f : {"labels", "annotations"}) {
    if (const Json* v = types::Find(tmpl, {"metadata", f})) meta[f] = *v;
  }
  meta["labels"][kControllerRevisionHashLabel] = hash;
  Json spec = types::Object(tmpl, {"spec"});
  spec["nodeName"] = node;
  spec["tolerations"] = DaemonTolerations(types::Array(tmpl, {"spec", "tolerations"}));
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", std::move(meta)}, {"spec", spec}};
}

DaemonPlacement::DaemonPlacement(const Json& pod) : spec_(scheduler::ConvertPodSpec(pod)) {}

bool DaemonPlacement::Fits(const Json& node) const {
  auto converted = scheduler::ConvertNode(node);
  if (!converted.ok()) return false;
  static const sched::PodSpec kUnconstrained;
  const sched::PodSpec& s = spec_ ? *spec_ : kUnconstrained;
  if (!sched::NodeMatchesSelectorAndAffinity(s, *converted)) return false;
  return sched::FirstUntoleratedTaint(s.tolerations, *converted) == nullptr;
}

}  // namespace etna::controllers
