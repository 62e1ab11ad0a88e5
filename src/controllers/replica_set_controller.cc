#include "controllers/replica_set_controller.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/types/deployment.h"
#include "api/types/pod.h"
#include "common/time.h"
#include "controllers/replica_set_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;

namespace {

// Pods created or deleted in one pass at most (Kubernetes' burstReplicas).
constexpr int64_t kBurstReplicas = 500;

// Every label of the template is on the pod with its value.
bool FullyLabeled(const Json& pod, const Json& template_labels) {
  const Json& labels = types::ObjectView(pod).labels();
  for (const auto& [k, v] : template_labels.items()) {
    if (!labels.contains(k) || labels[k] != v) return false;
  }
  return true;
}

}  // namespace

ReplicaSetController::ReplicaSetController(ControllerOptions options)
    : Controller("replicaset-controller", std::move(options)) {
  replica_sets_ = Watch(client::Path("replicasets"));
  pods_ = Watch(client::Path("pods"), [this](const std::string&, const Json& pod) { OnPod(pod); });
}

void ReplicaSetController::OnPod(const Json& pod) {
  types::Pod view(pod);
  if (view.ControllerUid()) {
    std::string owner = view.ControllerName("ReplicaSet");
    if (!owner.empty()) queue().Add(view.ns() + "/" + owner);
    return;
  }
  if (!IsActivePod(pod)) return;
  replica_sets_->ForEachInNamespace(view.ns(), [&](const Json& rs) {
    if (SelectedBy(rs, pod)) queue().Add(KeyOf(rs));
  });
}

Status ReplicaSetController::Reconcile(const std::string& key) {
  auto [ns, name] = SplitKey(key);
  auto rs = replica_sets_->Get(ns, name);
  if (!rs) {
    expectations_.Forget(key);
    return Status::Ok();
  }
  types::ReplicaSet view(*rs);
  if (view.IsDeleting()) return Status::Ok();  // the API server's cascade deletes its pods
  const std::string uid = view.uid();
  std::vector<Json> owned, adopt, release;
  pods_->ForEachInNamespace(ns, [&](const Json& pod) {
    auto controller = types::ObjectView(pod).ControllerUid();
    bool matches = SelectedBy(*rs, pod);
    if (controller) {
      if (*controller != uid) return;
      if (!matches) {
        release.push_back(pod);
      } else if (IsActivePod(pod)) {
        owned.push_back(pod);
      }
    } else if (matches && IsActivePod(pod)) {
      adopt.push_back(pod);
    }
  });
  for (const Json& pod : adopt) {
    Json refs = types::ObjectView(pod).owner_references();
    refs.push_back(AppsControllerRef(*rs, "ReplicaSet"));
    auto patched = rest().MergePatch(
        client::Path("pods", ns, types::ObjectView(pod).name()),
        {{"metadata",
          {{"ownerReferences", refs},
           {"resourceVersion", types::String(pod, {"metadata", "resourceVersion"})}}}});
    if (patched.ok()) owned.push_back(std::move(patched).value());
  }
  for (const Json& pod : release) {
    Json refs = Json::array();
    for (const Json& ref : types::ObjectView(pod).owner_references()) {
      if (types::String(ref, {"uid"}) != uid) refs.push_back(ref);
    }
    auto patched = rest().MergePatch(client::Path("pods", ns, types::ObjectView(pod).name()),
                                     {{"metadata", {{"ownerReferences", refs}}}});
    if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) {
      return patched.status();
    }
  }
  std::string failure;
  int64_t diff = static_cast<int64_t>(owned.size()) - view.replicas();
  const client::ObjectRef ref{"ReplicaSet", "apps/v1", ns, view.name(), view.uid()};
  if (diff != 0 && expectations_.Met(key, ns, *pods_, clock().NowMs())) {
    std::vector<std::string> created, deleted;
    if (diff < 0) {
      for (int64_t i = 0; i < std::min(-diff, kBurstReplicas); ++i) {
        auto made = rest().Create(client::Path("pods", ns), BuildReplicaSetPod(*rs));
        if (!made.ok()) {
          failure = made.status().message();
          events().Record(ref, "Warning", "FailedCreate", "Error creating: " + failure);
          break;
        }
        created.push_back(types::ObjectView(*made).name());
        events().Record(ref, "Normal", "SuccessfulCreate", "Created pod: " + created.back());
      }
    } else {
      size_t count = static_cast<size_t>(std::min(diff, kBurstReplicas));
      for (const Json& pod : PodsToDelete(owned, count)) {
        std::string pod_name = types::ObjectView(pod).name();
        Status s = rest().Delete(client::Path("pods", ns, pod_name));
        if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
        deleted.push_back(pod_name);
        events().Record(ref, "Normal", "SuccessfulDelete", "Deleted pod: " + pod_name);
        owned.erase(
            std::remove_if(owned.begin(), owned.end(),
                           [&](const Json& p) { return types::ObjectView(p).name() == pod_name; }),
            owned.end());
      }
    }
    expectations_.Expect(key, std::move(created), std::move(deleted), clock().NowMs());
  }
  Status written = WriteStatus(*rs, owned, failure);
  if (!written.ok()) return written;
  if (!failure.empty()) return Status::Unavailable(failure);  // retried with backoff
  return Status::Ok();
}

Status ReplicaSetController::WriteStatus(const Json& rs, const std::vector<Json>& pods,
                                         const std::string& failure) {
  types::ReplicaSet view(rs);
  TimeMs now = clock().NowMs();
  const Json& template_labels = types::Object(view.pod_template(), {"metadata", "labels"});
  int64_t fully = 0, ready = 0, available = 0;
  TimeMs next_due = 0;
  for (const Json& pod : pods) {
    if (FullyLabeled(pod, template_labels)) ++fully;
    if (types::Pod(pod).IsReady()) ++ready;
    TimeMs at = 0;
    if (IsPodAvailable(pod, view.min_ready_seconds(), now, &at)) {
      ++available;
    } else if (at > 0 && (next_due == 0 || at < next_due)) {
      next_due = at;
    }
  }
  Json conditions = Json::array();
  for (const Json& c : types::Array(rs, {"status", "conditions"})) {
    if (types::String(c, {"type"}) != "ReplicaFailure") conditions.push_back(c);
  }
  if (!failure.empty()) {
    const Json* old = nullptr;
    for (const Json& c : types::Array(rs, {"status", "conditions"})) {
      if (types::String(c, {"type"}) == "ReplicaFailure") old = &c;
    }
    conditions.push_back({{"type", "ReplicaFailure"},
                          {"status", "True"},
                          {"reason", "FailedCreate"},
                          {"message", failure},
                          {"lastTransitionTime", old ? types::String(*old, {"lastTransitionTime"})
                                                     : FormatRfc3339(now)}});
  }
  Json status = {{"replicas", pods.size()},
                 {"fullyLabeledReplicas", fully},
                 {"readyReplicas", ready},
                 {"availableReplicas", available},
                 {"observedGeneration", view.generation()}};
  if (!conditions.empty()) status["conditions"] = conditions;
  if (next_due > 0) queue().AddAt(KeyOf(rs), next_due);
  const Json& current = types::Object(rs, {"status"});
  if (current == status) return Status::Ok();
  Json patch = status;
  if (conditions.empty() && current.contains("conditions")) patch["conditions"] = nullptr;
  auto patched = rest().MergePatch(client::Path("replicasets", view.ns(), view.name()),
                                   {{"status", patch}}, "status");
  if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) return patched.status();
  return Status::Ok();
}

}  // namespace etna::controllers
