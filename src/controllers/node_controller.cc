#include "controllers/node_controller.h"

#include <fmt/format.h>

#include "api/types/node.h"
#include "api/types/pod.h"
#include "api/types/well_known.h"
#include "common/time.h"
#include "controllers/job_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;
namespace wk = etna::api::types;

NodeLifecycleController::NodeLifecycleController(ControllerOptions options,
                                                 std::chrono::milliseconds lease_grace)
    : Controller("node-lifecycle-controller", std::move(options)), lease_grace_(lease_grace) {
  nodes_ = Watch(client::Path("nodes"));
  leases_ = Watch(client::Path("leases", wk::kNodeLeaseNamespace),
                  [this](const std::string&, const Json& lease) {
                    queue().Add("/" + types::String(lease, {"metadata", "name"}));
                  });
  pods_ = Watch(client::Path("pods"), [](const std::string&, const Json&) {});
}

Status NodeLifecycleController::Reconcile(const std::string& key) {
  std::string name = SplitKey(key).second;
  auto node = nodes_->Get("", name);
  if (!node) {
    metrics().RemoveNode(name);
    std::lock_guard lock(observed_mu_);
    observed_.erase(name);
    return Status::Ok();
  }
  metrics().SetNodeReady(name, types::Node(*node).ReadyStatus());
  ETNA_RETURN_IF_ERROR(Drain(*node));
  auto lease = leases_->Get(wk::kNodeLeaseNamespace, name);
  if (!lease) return Status::Ok();
  std::string renewed = types::String(*lease, {"spec", "renewTime"});
  if (renewed.empty()) renewed = types::String(*lease, {"spec", "acquireTime"});
  if (!ParseRfc3339(renewed)) return Status::Ok();
  // Counted from when this controller saw the renewal, on its own clock (kube's
  // node-lifecycle-controller does the same): a node whose clock is off is not lost for it, and
  // after a restart or a failover of this controller every node gets a whole lease and grace.
  TimeMs seen;
  {
    std::lock_guard lock(observed_mu_);
    Observed& o = observed_[name];
    if (o.renew_time != renewed) o = Observed{renewed, clock().NowMs()};
    seen = o.at_ms;
  }
  TimeMs due = seen + types::Integer(*lease, {"spec", "leaseDurationSeconds"}, 40) * 1000 +
               lease_grace_.count();
  if (clock().NowMs() < due) {
    queue().AddAt(key, due);
    if (types::Node(*node).HasTaint(kUnreachableTaint))
      return SetTaint(*node, kUnreachableTaint, false);
    return Status::Ok();
  }
  ETNA_RETURN_IF_ERROR(MarkLost(*node));
  return FailPods(name);
}

Status NodeLifecycleController::SetTaint(const Json& node, const std::string& taint, bool present,
                                         Json extra_spec) {
  Json taints = Json::array();
  for (const Json& t : types::Node(node).taints()) {
    if (types::String(t, {"key"}) != taint) taints.push_back(t);
  }
  if (present) {
    taints.push_back(
        {{"key", taint}, {"effect", "NoSchedule"}, {"timeAdded", FormatRfc3339(clock().NowMs())}});
  }
  extra_spec["taints"] = taints;
  auto patched = rest().MergePatch(client::Path("nodes", "", types::Node(node).name()),
                                   {{"spec", extra_spec}});
  return patched.ok() ? Status::Ok() : patched.status();
}

Status NodeLifecycleController::MarkLost(const Json& node) {
  if (types::Node(node).ReadyStatus() != "Unknown") {
    Json conditions = Json::array();
    bool found = false;
    Json unknown = {{"type", "Ready"},
                    {"status", "Unknown"},
                    {"reason", "NodeStatusUnknown"},
                    {"message", "Kubelet stopped posting node status (its lease lapsed)."},
                    {"lastTransitionTime", FormatRfc3339(clock().NowMs())},
                    {"lastHeartbeatTime", FormatRfc3339(clock().NowMs())}};
    for (const Json& c : types::Node(node).conditions()) {
      if (types::String(c, {"type"}) == "Ready") {
        conditions.push_back(unknown);
        found = true;
      } else {
        conditions.push_back(c);
      }
    }
    if (!found) conditions.push_back(unknown);
    auto patched = rest().MergePatch(client::Path("nodes", "", types::Node(node).name()),
                                     {{"status", {{"conditions", conditions}}}}, "status");
    if (!patched.ok()) return patched.status();
  }
  if (!types::Node(node).HasTaint(kUnreachableTaint))
    return SetTaint(node, kUnreachableTaint, true);
  return Status::Ok();
}

Status NodeLifecycleController::FailPods(const std::string& node) {
  for (const Json& json : pods_->List()) {
    types::Pod pod(json);
    if (pod.node_name() != node) continue;
    std::string ns = pod.ns(), name = pod.name();
    std::string path = client::Path("pods", ns, name);
    if (!pod.IsTerminal()) {
      Json status = {
          {"phase", "Failed"},
          {"reason", wk::kNodeLostReason},
          {"message", fmt::format("node {} which was running pod {} is unresponsive", node, name)}};
      auto patched = rest().MergePatch(path, {{"status", status}}, "status");
      if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) {
        return patched.status();
      }
    }
    Status s = rest().Delete(path, 0);
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  return Status::Ok();
}

Status NodeLifecycleController::Drain(const Json& node) {
  types::Node view(node);
  const Json& annotations = view.annotations();
  std::string name = view.name();
  bool draining = annotations.contains(kDrainAnnotation);
  bool drained_by_us = annotations.contains(kDrainedReasonAnnotation);
  if (!draining) {
    if (!drained_by_us) return Status::Ok();
    auto patched =
        rest().MergePatch(client::Path("nodes", "", name),
                          {{"metadata", {{"annotations", {{kDrainedReasonAnnotation, nullptr}}}}}});
    if (!patched.ok()) return patched.status();
    return SetTaint(node, kUnschedulableTaint, false, {{"unschedulable", false}});
  }
  std::string reason = annotations.value(kDrainAnnotation, "");
  if (!drained_by_us || annotations.value(kDrainedReasonAnnotation, "") != reason ||
      !view.unschedulable() || !view.HasTaint(kUnschedulableTaint)) {
    auto patched =
        rest().MergePatch(client::Path("nodes", "", name),
                          {{"metadata", {{"annotations", {{kDrainedReasonAnnotation, reason}}}}}});
    if (!patched.ok()) return patched.status();
    ETNA_RETURN_IF_ERROR(SetTaint(node, kUnschedulableTaint, true, {{"unschedulable", true}}));
  }
  for (const Json& json : pods_->List()) {
    types::Pod pod(json);
    if (pod.node_name() != name || pod.IsDeleting() || pod.IsTerminal()) continue;
    Status s = rest().Evict(pod.ns(), pod.name());
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  return Status::Ok();
}

}  // namespace etna::controllers
