#include "controllers/daemon_set_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "api/types/deployment.h"
#include "api/types/pod.h"
#include "common/time.h"
#include "controllers/daemon_set_pods.h"
#include "controllers/deployment_rollout.h"
#include "controllers/replica_set_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;

namespace {

// What one node holds of a DaemonSet.
struct NodeState {
  std::string name;
  bool should_run = false;
  bool ready_node = false;
  std::vector<Json> active;  // not terminal, not being deleted
  bool terminating = false;  // a pod is still being deleted
  std::vector<Json> failed;
};

// The longest wait before a node gets a new pod after its pod failed (Kubernetes' 15 min is
// shortened: a daemon is cheap to retry).
constexpr TimeMs kMaxBackoffMs = 5 * 60 * 1000;

bool NodeReady(const Json& node) {
  return types::ConditionTrue(node, {"status", "conditions"}, "Ready");
}

}  // namespace

DaemonSetController::DaemonSetController(ControllerOptions options)
    : Controller("daemonset-controller", std::move(options)) {
  daemon_sets_ = Watch(client::Path("daemonsets"));
  nodes_ = Watch(client::Path("nodes"), [this](const std::string&, const Json&) {
    daemon_sets_->ForEach([&](const Json& ds) { queue().Add(KeyOf(ds)); });
  });
  pods_ = Watch(client::Path("pods"), [this](const std::string&, const Json& pod) {
    std::string owner = types::ObjectView(pod).ControllerName("DaemonSet");
    if (!owner.empty()) queue().Add(types::ObjectView(pod).ns() + "/" + owner);
  });
}

Status DaemonSetController::Reconcile(const std::string& key) {
  auto [ns, name] = SplitKey(key);
  auto found = daemon_sets_->Get(ns, name);
  if (!found || types::ObjectView(*found).IsDeleting()) return Status::Ok();
  const Json& ds = *found;
  types::ReplicatedView view(ds);
  const std::string hash = PodTemplateHash(view.pod_template(), 0);
  const std::string uid = view.uid();
  TimeMs now = clock().NowMs();

  const DaemonPlacement placement(BuildDaemonSetPod(ds, "", hash));
  std::map<std::string, NodeState> nodes;
  nodes_->ForEach([&](const Json& node) {
    NodeState& n = nodes[types::ObjectView(node).name()];
    n.name = types::ObjectView(node).name();
    n.ready_node = NodeReady(node);
    n.should_run = placement.Fits(node);
  });
  pods_->ForEachInNamespace(ns, [&](const Json& pod) {
    if (types::ObjectView(pod).ControllerUid() != uid) return;
    types::Pod p(pod);
    NodeState& n = nodes[p.node_name()];
    n.name = p.node_name();
    if (p.IsDeleting()) {
      n.terminating = true;
    } else if (p.phase() == "Failed") {
      n.failed.push_back(pod);
    } else if (!p.IsTerminal()) {
      n.active.push_back(pod);
    }
  });

  auto is_new = [&](const Json& pod) {
    return types::ObjectView(pod).Label(kControllerRevisionHashLabel) == hash;
  };
  auto available = [&](const Json& pod) {
    return IsPodAvailable(pod, view.min_ready_seconds(), now);
  };
  auto remove = [&](const Json& pod) -> Status {
    Status s = rest().Delete(client::Path("pods", ns, types::ObjectView(pod).name()));
    return s.ok() || s.code() == StatusCode::kNotFound ? Status::Ok() : s;
  };
  auto create = [&](const std::string& node) -> Status {
    auto made = rest().Create(client::Path("pods", ns), BuildDaemonSetPod(ds, node, hash));
    return made.ok() ? Status::Ok() : made.status();
  };

  int64_t desired = 0;
  for (auto& [node_name, n] : nodes) desired += n.should_run ? 1 : 0;
  const Json& strategy = types::Object(ds, {"spec", "updateStrategy"});
  bool rolling = types::String(strategy, {"type"}, "RollingUpdate") == "RollingUpdate";
  int64_t max_surge =
      rolling ? types::ResolveIntOrPercent(types::Find(strategy, {"rollingUpdate", "maxSurge"}),
                                           desired, true, 0)
              : 0;
  int64_t max_unavailable =
      rolling ? types::ResolveIntOrPercent(
                    types::Find(strategy, {"rollingUpdate", "maxUnavailable"}), desired, true, 1)
              : 0;
  if (rolling && max_surge == 0 && max_unavailable == 0) max_unavailable = 1;

  // Nodes without an available pod count against maxUnavailable.
  int64_t unavailable = 0;
  int64_t surging = 0;
  for (auto& [node_name, n] : nodes) {
    if (!n.should_run) continue;
    bool any_available = std::any_of(n.active.begin(), n.active.end(), available);
    if (!any_available) ++unavailable;
    if (n.active.size() > 1) ++surging;
  }
  std::vector<const NodeState*> to_update;
  for (auto& [node_name, n] : nodes) {
    const std::string node_key = key + "/" + node_name;
    for (const Json& pod : n.failed) {
      ETNA_RETURN_IF_ERROR(remove(pod));
      Backoff& b = backoff_[node_key];
      b.delay = std::min<TimeMs>(b.delay == 0 ? 1000 : 2 * b.delay, kMaxBackoffMs);
      b.until = now + b.delay;
    }
    if (node_name.empty()) continue;
    if (!n.should_run) {
      for (const Json& pod : n.active) ETNA_RETURN_IF_ERROR(remove(pod));
      continue;
    }
    if (n.active.empty()) {
      // A replacement waits until the old pod is gone; a lost node gets its pod when back.
      if (n.terminating || !n.ready_node) continue;
      if (auto b = backoff_.find(node_key); b != backoff_.end() && b->second.until > now) {
        queue().AddAt(key, b->second.until);
        continue;
      }
      ETNA_RETURN_IF_ERROR(create(node_name));
      continue;
    }
    if (std::any_of(n.active.begin(), n.active.end(), available)) backoff_.erase(node_key);
    // One daemon pod per node: the extra ones go (the newest template's kept).
    std::vector<Json> pods = n.active;
    std::stable_sort(pods.begin(), pods.end(),
                     [&](const Json& a, const Json& b) { return is_new(a) > is_new(b); });
    bool has_new = is_new(pods.front());
    if (pods.size() > 1) {
      if (has_new && (max_surge == 0 || available(pods.front()))) {
        for (size_t i = 1; i < pods.size(); ++i) ETNA_RETURN_IF_ERROR(remove(pods[i]));
      }
      continue;
    }
    if (!has_new && rolling) to_update.push_back(&n);
  }
  // The rolling update: unavailable old pods first, they cost no availability.
  std::stable_sort(to_update.begin(), to_update.end(), [&](const NodeState* a, const NodeState* b) {
    return available(a->active.front()) < available(b->active.front());
  });
  for (const NodeState* n : to_update) {
    const Json& old = n->active.front();
    if (max_surge > 0) {
      if (surging >= max_surge) break;
      ETNA_RETURN_IF_ERROR(create(n->name));
      ++surging;
    } else if (!available(old)) {
      ETNA_RETURN_IF_ERROR(remove(old));
    } else if (unavailable < max_unavailable) {
      ETNA_RETURN_IF_ERROR(remove(old));
      ++unavailable;
    }
  }

  // Status from what the nodes hold now (the writes above show in the next pass).
  int64_t current = 0, misscheduled = 0, ready = 0, updated = 0, available_count = 0;
  TimeMs next_due = 0;
  for (auto& [node_name, n] : nodes) {
    if (n.active.empty()) continue;
    if (!n.should_run) {
      ++misscheduled;
      continue;
    }
    ++current;
    if (std::any_of(n.active.begin(), n.active.end(),
                    [](const Json& p) { return types::Pod(p).IsReady(); })) {
      ++ready;
    }
    if (std::any_of(n.active.begin(), n.active.end(), is_new)) ++updated;
    bool any = false;
    for (const Json& pod : n.active) {
      TimeMs at = 0;
      if (IsPodAvailable(pod, view.min_ready_seconds(), now, &at)) {
        any = true;
      } else if (at > 0 && (next_due == 0 || at < next_due)) {
        next_due = at;
      }
    }
    if (any) ++available_count;
  }
  if (next_due > 0) queue().AddAt(key, next_due);
  Json status = {{"desiredNumberScheduled", desired},
                 {"currentNumberScheduled", current},
                 {"numberMisscheduled", misscheduled},
                 {"numberReady", ready},
                 {"updatedNumberScheduled", updated},
                 {"numberAvailable", available_count},
                 {"numberUnavailable", std::max<int64_t>(0, desired - available_count)},
                 {"observedGeneration", view.generation()}};
  if (types::Object(ds, {"status"}) == status) return Status::Ok();
  auto patched =
      rest().MergePatch(client::Path("daemonsets", ns, name), {{"status", status}}, "status");
  if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) return patched.status();
  return Status::Ok();
}

}  // namespace etna::controllers
