#include "controllers/deployment_controller.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/types/deployment.h"
#include "api/types/pod.h"
#include "common/time.h"
#include "controllers/deployment_rollout.h"
#include "controllers/replica_set_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;

namespace {

const Json* FindCondition(const Json& object, std::string_view type) {
  for (const Json& c : types::Array(object, {"status", "conditions"})) {
    if (types::String(c, {"type"}) == type) return &c;
  }
  return nullptr;
}

// A condition as Kubernetes' SetDeploymentCondition writes it: the same status and reason as
// `old` keeps `old` (no write, so no loop); a new one keeps old's transition time when the
// status is unchanged.
Json Condition(const Json* old, const std::string& type, const std::string& status,
               const std::string& reason, const std::string& message, TimeMs now,
               bool touch = false) {
  if (old && types::String(*old, {"status"}) == status &&
      types::String(*old, {"reason"}) == reason && !touch) {
    return *old;
  }
  std::string at = FormatRfc3339(now);
  std::string transition = old && types::String(*old, {"status"}) == status
                               ? types::String(*old, {"lastTransitionTime"})
                               : at;
  return {{"type", type},       {"status", status},     {"reason", reason},
          {"message", message}, {"lastUpdateTime", at}, {"lastTransitionTime", transition}};
}

}  // namespace

DeploymentController::DeploymentController(ControllerOptions options)
    : Controller("deployment-controller", std::move(options)) {
  deployments_ = Watch(client::Path("deployments"));
  replica_sets_ = Watch(client::Path("replicasets"),
                        [this](const std::string&, const Json& rs) { OnReplicaSet(rs); });
  pods_ = Watch(client::Path("pods"), [this](const std::string& type, const Json& pod) {
    // Recreate waits for the old pods to end: their ends wake the Deployment.
    if (type != "DELETED" && !types::Pod(pod).IsTerminal()) return;
    std::string rs_name = types::ObjectView(pod).ControllerName("ReplicaSet");
    if (rs_name.empty()) return;
    auto rs = replica_sets_->Get(types::ObjectView(pod).ns(), rs_name);
    if (!rs) return;
    std::string deployment = types::ObjectView(*rs).ControllerName("Deployment");
    if (!deployment.empty()) queue().Add(types::ObjectView(pod).ns() + "/" + deployment);
  });
}

void DeploymentController::OnReplicaSet(const Json& rs) {
  types::ObjectView view(rs);
  if (view.ControllerUid()) {
    std::string deployment = types::ObjectView(rs).ControllerName("Deployment");
    if (!deployment.empty()) queue().Add(view.ns() + "/" + deployment);
    return;
  }
  deployments_->ForEachInNamespace(view.ns(), [&](const Json& d) {
    if (SelectedBy(d, rs)) queue().Add(KeyOf(d));
  });
}

Result<std::vector<Json>> DeploymentController::OwnedReplicaSets(const Json& deployment) {
  types::Deployment d(deployment);
  std::vector<Json> owned, orphans;
  replica_sets_->ForEachInNamespace(d.ns(), [&](const Json& rs) {
    auto controller = types::ObjectView(rs).ControllerUid();
    if (controller) {
      if (*controller == d.uid()) owned.push_back(rs);
    } else if (SelectedBy(deployment, rs) && !types::ObjectView(rs).IsDeleting()) {
      orphans.push_back(rs);
    }
  });
  for (const Json& rs : orphans) {
    Json refs = types::ObjectView(rs).owner_references();
    refs.push_back(AppsControllerRef(deployment, "Deployment"));
    auto patched =
        rest().MergePatch(client::Path("replicasets", d.ns(), types::ObjectView(rs).name()),
                          {{"metadata", {{"ownerReferences", refs}}}});
    if (patched.ok()) owned.push_back(std::move(patched).value());
  }
  std::sort(owned.begin(), owned.end(), [](const Json& a, const Json& b) {
    auto ta = ParseRfc3339(types::ObjectView(a).creation_timestamp()).value_or(0);
    auto tb = ParseRfc3339(types::ObjectView(b).creation_timestamp()).value_or(0);
    if (ta != tb) return ta < tb;
    return types::ObjectView(a).name() < types::ObjectView(b).name();
  });
  return owned;
}

Result<Json> DeploymentController::ScaleReplicaSet(const Json& deployment, const Json& rs,
                                                   int64_t replicas) {
  types::Deployment d(deployment);
  Json patch = {
      {"metadata",
       {{"annotations",
         {{kDesiredReplicasAnnotation, std::to_string(d.replicas())},
          {kMaxReplicasAnnotation, std::to_string(d.replicas() + d.rolling_limits().max_surge)}}}}},
      {"spec", {{"replicas", replicas}}}};
  const int64_t before = types::ReplicaSet(rs).replicas();
  auto written =
      rest().MergePatch(client::Path("replicasets", d.ns(), types::ObjectView(rs).name()), patch);
  if (written.ok() && before != replicas) RecordScaling(deployment, rs, before, replicas);
  return written;
}

void DeploymentController::RecordScaling(const Json& deployment, const Json& rs, int64_t from,
                                         int64_t to) {
  types::ObjectView d(deployment);
  events().Record({"Deployment", "apps/v1", d.ns(), d.name(), d.uid()}, "Normal",
                  "ScalingReplicaSet",
                  fmt::format("Scaled {} replica set {} from {} to {}", to > from ? "up" : "down",
                              types::ObjectView(rs).name(), from, to));
}

Result<Json> DeploymentController::CreateNewReplicaSet(const Json& deployment,
                                                       const std::vector<const Json*>& old,
                                                       int64_t revision) {
  types::Deployment d(deployment);
  std::string hash = PodTemplateHash(d.pod_template(), d.collision_count());
  Json tmpl = d.pod_template();
  tmpl["metadata"]["labels"][types::kPodTemplateHashLabel] = hash;
  Json selector = d.selector() ? *d.selector() : Json::object();
  selector["matchLabels"][types::kPodTemplateHashLabel] = hash;
  Json annotations = {
      {types::kRevisionAnnotation, std::to_string(revision)},
      {kDesiredReplicasAnnotation, std::to_string(d.replicas())},
      {kMaxReplicasAnnotation, std::to_string(d.replicas() + d.rolling_limits().max_surge)}};
  if (std::string cause = d.Annotation(kChangeCauseAnnotation); !cause.empty()) {
    annotations[kChangeCauseAnnotation] = cause;
  }
  // A new ReplicaSet starts at what the rollout allows with the old ones' pods counted.
  Json empty_new = {{"spec", {{"replicas", 0}}}};
  int64_t replicas = NewReplicaSetReplicas(deployment, old, empty_new);
  if (d.strategy() == "Recreate" && SpecReplicas(old) > 0) replicas = 0;
  Json rs = {{"apiVersion", "apps/v1"},
             {"kind", "ReplicaSet"},
             {"metadata",
              {{"name", d.name() + "-" + hash},
               {"namespace", d.ns()},
               {"labels", tmpl["metadata"]["labels"]},
               {"annotations", annotations},
               {"ownerReferences", Json::array({AppsControllerRef(deployment, "Deployment")})}}},
             {"spec",
              {{"replicas", std::max<int64_t>(0, replicas)},
               {"minReadySeconds", d.min_ready_seconds()},
               {"selector", selector},
               {"template", tmpl}}}};
  auto made = rest().Create(client::Path("replicasets", d.ns()), rs);
  if (made.ok() && replicas > 0) RecordScaling(deployment, *made, 0, replicas);
  if (made.ok() || made.status().code() != StatusCode::kAlreadyExists) return made;
  auto existing = rest().Get(client::Path("replicasets", d.ns(), d.name() + "-" + hash));
  if (!existing.ok()) return existing.status();
  types::ReplicaSet found(*existing);
  if (found.ControllerUid() == d.uid() &&
      EqualIgnoringHash(found.pod_template(), d.pod_template())) {
    return existing;  // ours, not yet in the cache
  }
  // A hash collision: the next collisionCount gives another name.
  auto bumped =
      rest().MergePatch(client::Path("deployments", d.ns(), d.name()),
                        {{"status", {{"collisionCount", d.collision_count() + 1}}}}, "status");
  if (!bumped.ok()) return bumped.status();
  return Status::Unavailable(
      fmt::format("replicaset {} exists with another template; collisionCount is now {}",
                  d.name() + "-" + hash, d.collision_count() + 1));
}

bool DeploymentController::OldPodsRunning(const std::vector<const Json*>& old) {
  for (const Json* rs : old) {
    types::ReplicaSet view(*rs);
    if (view.status_replicas() > 0) return true;
    bool running = false;
    std::string uid = view.uid();
    pods_->ForEachInNamespace(view.ns(), [&](const Json& pod) {
      if (!running && types::ObjectView(pod).ControllerUid() == uid &&
          !types::Pod(pod).IsTerminal()) {
        running = true;
      }
    });
    if (running) return true;
  }
  return false;
}

Status DeploymentController::Reconcile(const std::string& key) {
  auto [ns, name] = SplitKey(key);
  auto found = deployments_->Get(ns, name);
  if (!found || types::ObjectView(*found).IsDeleting()) return Status::Ok();
  const Json& deployment = *found;
  types::Deployment d(deployment);
  ETNA_ASSIGN_OR_RETURN(std::vector<Json> owned, OwnedReplicaSets(deployment));
  owned.reserve(owned.size() + 1);  // a new ReplicaSet joins without moving the others
  Json* new_rs = nullptr;
  for (Json& rs : owned) {
    if (EqualIgnoringHash(types::ReplicaSet(rs).pod_template(), d.pod_template())) {
      new_rs = &rs;
      break;
    }
  }
  std::vector<Json*> old;
  int64_t max_old_revision = 0;
  for (Json& rs : owned) {
    if (&rs == new_rs) continue;
    old.push_back(&rs);
    max_old_revision = std::max(max_old_revision, types::ReplicaSet(rs).revision());
  }
  // An old template brought back (rollout undo) is the next revision again.
  if (new_rs) {
    types::ReplicaSet view(*new_rs);
    Json patch = Json::object();
    if (view.revision() <= max_old_revision || view.revision() == 0) {
      patch["metadata"]["annotations"][types::kRevisionAnnotation] =
          std::to_string(max_old_revision + 1);
    }
    std::string cause = d.Annotation(kChangeCauseAnnotation);
    if (!cause.empty() && view.Annotation(kChangeCauseAnnotation) != cause) {
      patch["metadata"]["annotations"][kChangeCauseAnnotation] = cause;
    }
    if (view.min_ready_seconds() != d.min_ready_seconds()) {
      patch["spec"]["minReadySeconds"] = d.min_ready_seconds();
    }
    if (!patch.empty()) {
      ETNA_ASSIGN_OR_RETURN(*new_rs,
                            rest().MergePatch(client::Path("replicasets", ns, view.name()), patch));
    }
  }
  std::vector<const Json*> old_c(old.begin(), old.end());
  auto all = [&] {
    std::vector<const Json*> out = old_c;
    if (new_rs) out.push_back(new_rs);
    return out;
  };
  auto scale = [&](Json& rs, int64_t replicas) -> Status {
    ETNA_ASSIGN_OR_RETURN(rs, ScaleReplicaSet(deployment, rs, replicas));
    return Status::Ok();
  };
  bool created = false;
  bool rolling = d.strategy() == "RollingUpdate";
  std::vector<Json*> active;
  for (Json& rs : owned) {
    if (types::ReplicaSet(rs).replicas() > 0) active.push_back(&rs);
  }
  bool scaling_event = false;
  for (Json* rs : active) {
    std::string desired = types::ReplicaSet(*rs).Annotation(kDesiredReplicasAnnotation);
    if (!desired.empty() && desired != std::to_string(d.replicas())) scaling_event = true;
  }
  if (!rolling && active.size() > 1) scaling_event = false;  // Recreate scales old ones to 0
  Status done = Status::Ok();
  if (d.paused() || scaling_event) {
    // Only sizes change: the one active ReplicaSet (or the latest) takes the new size; during
    // a rollout the change is shared out.
    if (active.size() <= 1) {
      Json* target = active.empty() ? (new_rs ? new_rs : (old.empty() ? nullptr : old.back()))
                                    : active.front();
      if (target) {
        types::ReplicaSet t(*target);
        if (t.replicas() != d.replicas() ||
            t.Annotation(kDesiredReplicasAnnotation) != std::to_string(d.replicas())) {
          done = scale(*target, d.replicas());
        }
      }
    } else if (new_rs && types::ReplicaSet(*new_rs).replicas() == d.replicas() &&
               types::ReplicaSet(*new_rs).available_replicas() == d.replicas()) {
      for (Json* rs : active) {
        if (rs != new_rs && done.ok()) done = scale(*rs, 0);
      }
    } else {
      std::sort(active.begin(), active.end(), [&](const Json* a, const Json* b) {
        if (a == new_rs) return b != new_rs;
        if (b == new_rs) return false;
        return types::ReplicaSet(*a).revision() > types::ReplicaSet(*b).revision();
      });
      std::vector<const Json*> view(active.begin(), active.end());
      std::vector<int64_t> sizes = ProportionalScale(deployment, view);
      for (size_t i = 0; i < active.size() && done.ok(); ++i) done = scale(*active[i], sizes[i]);
    }
  } else if (!rolling) {
    bool scaled_down = false;
    for (Json* rs : old) {
      if (types::ReplicaSet(*rs).replicas() > 0 && done.ok()) {
        done = scale(*rs, 0);
        scaled_down = true;
      }
    }
    if (done.ok() && !scaled_down && !OldPodsRunning(old_c)) {
      if (!new_rs) {
        ETNA_ASSIGN_OR_RETURN(Json made,
                              CreateNewReplicaSet(deployment, old_c, max_old_revision + 1));
        owned.push_back(std::move(made));
        new_rs = &owned.back();
        created = true;
      }
      if (types::ReplicaSet(*new_rs).replicas() != d.replicas()) {
        done = scale(*new_rs, d.replicas());
      }
    }
  } else if (!new_rs) {
    ETNA_ASSIGN_OR_RETURN(Json made, CreateNewReplicaSet(deployment, old_c, max_old_revision + 1));
    owned.push_back(std::move(made));
    new_rs = &owned.back();
    created = true;
  } else {
    types::ReplicaSet n(*new_rs);
    int64_t want = n.replicas() > d.replicas() ? d.replicas()
                                               : NewReplicaSetReplicas(deployment, all(), *new_rs);
    if (want != n.replicas()) {
      done = scale(*new_rs, want);
    } else {
      std::vector<int64_t> sizes = ScaleDownOldReplicaSets(deployment, old_c, new_rs);
      for (size_t i = 0; i < old.size() && done.ok(); ++i) {
        if (sizes[i] != types::ReplicaSet(*old[i]).replicas()) done = scale(*old[i], sizes[i]);
      }
    }
  }
  if (!done.ok()) return done;
  bool settled =
      new_rs && SpecReplicas(old_c) == 0 && types::ReplicaSet(*new_rs).replicas() == d.replicas();
  if (settled || d.paused()) {
    for (const Json* rs : HistoryToDelete(deployment, old_c)) {
      Status s = rest().Delete(client::Path("replicasets", ns, types::ObjectView(*rs).name()));
      if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
    }
  }
  if (new_rs) {
    std::string revision = types::ReplicaSet(*new_rs).Annotation(types::kRevisionAnnotation);
    if (!revision.empty() && d.Annotation(types::kRevisionAnnotation) != revision) {
      auto patched = rest().MergePatch(
          client::Path("deployments", ns, name),
          {{"metadata", {{"annotations", {{types::kRevisionAnnotation, revision}}}}}});
      if (!patched.ok()) return patched.status();
    }
  }
  return WriteStatus(deployment, new_rs, all(), created);
}

Status DeploymentController::WriteStatus(const Json& deployment, const Json* new_rs,
                                         const std::vector<const Json*>& all, bool created_new) {
  types::Deployment d(deployment);
  TimeMs now = clock().NowMs();
  int64_t replicas = 0, ready = 0, available = 0;
  for (const Json* rs : all) {
    types::ReplicaSet view(*rs);
    replicas += view.status_replicas();
    ready += view.ready_replicas();
    available += view.available_replicas();
  }
  int64_t updated = new_rs ? types::ReplicaSet(*new_rs).status_replicas() : 0;
  std::string rs_name = new_rs ? types::ObjectView(*new_rs).name() : "";
  const Json* old_available = FindCondition(deployment, "Available");
  const Json* old_progressing = FindCondition(deployment, "Progressing");
  Json available_cond =
      available >= d.replicas() - d.rolling_limits().max_unavailable
          ? Condition(old_available, "Available", "True", "MinimumReplicasAvailable",
                      "Deployment has minimum availability.", now)
          : Condition(old_available, "Available", "False", "MinimumReplicasUnavailable",
                      "Deployment does not have minimum availability.", now);
  bool complete =
      new_rs && updated == d.replicas() && replicas == d.replicas() && available == d.replicas();
  Json progressing;
  if (d.paused()) {
    progressing = Condition(old_progressing, "Progressing", "Unknown", "DeploymentPaused",
                            "Deployment is paused", now);
  } else if (complete) {
    progressing =
        Condition(old_progressing, "Progressing", "True", "NewReplicaSetAvailable",
                  fmt::format("ReplicaSet \"{}\" has successfully progressed.", rs_name), now);
  } else if (created_new) {
    progressing = Condition(old_progressing, "Progressing", "True", "NewReplicaSetCreated",
                            fmt::format("Created new replica set \"{}\"", rs_name), now, true);
  } else {
    int64_t old_updated = types::Integer(deployment, {"status", "updatedReplicas"});
    int64_t old_replicas = d.status_replicas();
    bool progressed =
        updated > old_updated || (old_replicas - old_updated) > (replicas - updated) ||
        ready > d.ready_replicas() || available > d.available_replicas() || !old_progressing ||
        types::String(*old_progressing, {"reason"}) == "DeploymentPaused";
    std::string old_reason = old_progressing ? types::String(*old_progressing, {"reason"}) : "";
    TimeMs last =
        old_progressing
            ? ParseRfc3339(types::String(*old_progressing, {"lastUpdateTime"})).value_or(now)
            : now;
    TimeMs deadline = last + d.progress_deadline_seconds() * 1000;
    if (progressed) {
      progressing = Condition(old_progressing, "Progressing", "True", "ReplicaSetUpdated",
                              fmt::format("ReplicaSet \"{}\" is progressing.", rs_name), now, true);
      if (old_reason == "DeploymentPaused") {
        progressing["reason"] = "DeploymentResumed";
        progressing["message"] = "Deployment is resumed";
      }
      queue().AddAt(KeyOf(deployment), now + d.progress_deadline_seconds() * 1000 + 1);
    } else if (old_reason != "ProgressDeadlineExceeded" && now > deadline) {
      progressing =
          Condition(old_progressing, "Progressing", "False", "ProgressDeadlineExceeded",
                    fmt::format("ReplicaSet \"{}\" has timed out progressing.", rs_name), now);
    } else {
      progressing = *old_progressing;
      if (old_reason != "ProgressDeadlineExceeded") queue().AddAt(KeyOf(deployment), deadline + 1);
    }
  }
  Json status = {{"observedGeneration", d.generation()},
                 {"replicas", replicas},
                 {"updatedReplicas", updated},
                 {"readyReplicas", ready},
                 {"availableReplicas", available},
                 {"unavailableReplicas", std::max<int64_t>(0, d.replicas() - available)},
                 {"conditions", Json::array({available_cond, progressing})}};
  if (d.collision_count() > 0) status["collisionCount"] = d.collision_count();
  if (types::Object(deployment, {"status"}) == status) return Status::Ok();
  auto patched = rest().MergePatch(client::Path("deployments", d.ns(), d.name()),
                                   {{"status", status}}, "status");
  if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) return patched.status();
  return Status::Ok();
}

}  // namespace etna::controllers
