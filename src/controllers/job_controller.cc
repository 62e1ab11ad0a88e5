// JobController: the informers, the events and policies that pick an action, and the actions.
// The per-phase pod work and the status are in job_sync.cc.
#include "controllers/job_controller.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/types/podgroup.h"
#include "api/types/well_known.h"
#include "common/time.h"
#include "controllers/job_policies.h"
#include "controllers/job_sync.h"

namespace etna::controllers {

namespace wk = etna::api::types;

JobController::JobController(ControllerOptions options)
    : Controller("job-controller", std::move(options)) {
  jobs_ = Watch(client::Path("jobs.batch.volcano.sh"));
  pods_ = Watch(client::Path("pods"),
                [this](const std::string& type, const Json& pod) { OnPod(type, pod); });
  podgroups_ = Watch(client::Path("podgroups"), [this](const std::string&, const Json& pg) {
    for (const Json& ref : types::PodGroup(pg).owner_references()) {
      if (types::String(ref, {"kind"}) == "Job") {
        queue().Add(types::String(pg, {"metadata", "namespace"}) + "/" +
                    types::String(ref, {"name"}));
      }
    }
  });
  commands_ = Watch(client::Path("commands"), [this](const std::string& type, const Json& cmd) {
    if (type == "DELETED") {
      std::lock_guard lock(mu_);
      done_commands_.erase(types::String(cmd, {"metadata", "uid"}));
    } else if (types::String(cmd, {"target", "kind"}) == "Job") {
      queue().Add(types::String(cmd, {"metadata", "namespace"}) + "/" +
                  types::String(cmd, {"target", "name"}));
    }
  });
}

void JobController::OnPod(const std::string& type, const Json& pod) {
  std::string job = types::Pod(pod).JobName();
  if (job.empty()) return;
  std::string ns = types::Pod(pod).ns();
  std::string key = ns + "/" + job;
  {
    std::lock_guard lock(mu_);
    if (type == "DELETED") {
      auto it = pods_by_job_.find(key);
      if (it != pods_by_job_.end()) {
        it->second.erase(types::Pod(pod).name());
        if (it->second.empty()) pods_by_job_.erase(it);
      }
    } else {
      pods_by_job_[key].insert(types::Pod(pod).name());
    }
  }
  if (type == "DELETED") {
    std::string uid = types::Pod(pod).uid();
    std::lock_guard lock(mu_);
    bool handled = handled_disruptions_.erase(uid) > 0;
    if (self_deleted_.erase(uid) == 0 && !handled) {
      auto j = jobs_->Get(ns, job);
      std::string phase = j ? types::Job(*j).phase() : "";
      std::string version = j ? std::to_string(types::Job(*j).version()) : "";
      std::string phase_pod = types::Pod(pod).phase();
      if ((phase == "Pending" || phase == "Running") && types::Pod(pod).JobVersion() == version &&
          phase_pod != "Succeeded") {
        // A pod that failed before it went (a lost node's pods) is PodFailed, else PodEvicted.
        events_[key].push_back({phase_pod == "Failed" ? "PodFailed" : "PodEvicted",
                                types::Pod(pod).TaskName(), types::Pod(pod).name(),
                                PodExitCode(pod), version});
      }
    }
  }
  queue().Add(key);
}

std::vector<Json> JobController::PodsOf(const Json& job) const {
  std::vector<Json> out;
  types::Job view(job);
  std::string ns = view.ns(), name = view.name(), uid = view.uid();
  std::vector<std::string> names;
  {
    std::lock_guard lock(mu_);
    auto it = pods_by_job_.find(ns + "/" + name);
    if (it != pods_by_job_.end()) names.assign(it->second.begin(), it->second.end());
  }
  std::set<std::string> deleted;
  {
    std::lock_guard lock(mu_);
    deleted = self_deleted_;
  }
  for (const std::string& pod_name : names) {
    auto found = pods_->Get(ns, pod_name);
    if (!found) continue;
    Json& pod = *found;
    if (types::Pod(pod).JobName() != name) continue;
    std::optional<std::string> controller = types::Pod(pod).ControllerUid();
    if (controller && *controller != uid) continue;
    // A pod this controller deleted whose deletion the cache has not seen yet counts as
    // terminating, so that a stale cache neither acts on it again nor ends a restart early.
    if (deleted.count(types::Pod(pod).uid()) && !types::Pod(pod).IsDeleting()) {
      pod["metadata"]["deletionTimestamp"] = "deleted";
    }
    out.push_back(std::move(pod));
  }
  return out;
}

Status JobController::Reconcile(const std::string& key) {
  JobContext c;
  Status s = ReconcileJob(key, c);
  if (!s.ok() && c.undo) c.undo();
  return s;
}

Status JobController::ReconcileJob(const std::string& key, JobContext& c) {
  auto [ns, name] = SplitKey(key);
  auto job = jobs_->Get(ns, name);
  if (!job) {
    std::lock_guard lock(mu_);
    events_.erase(key);
    seen_generation_.erase(key);
    return Status::Ok();
  }
  if (types::Job(*job).IsDeleting()) return Status::Ok();
  c.key = key;
  c.job = *job;
  if (!c.job.contains("status") || !c.job["status"].is_object()) c.job["status"] = Json::object();
  c.original_status = c.job["status"];
  c.pods = PodsOf(c.job);
  c.now = clock().NowMs();
  c.phase = types::Job(c.job).phase();
  if (c.phase.empty()) SetPhase(c, "Pending");
  if (!IsFinished(c.phase)) ETNA_RETURN_IF_ERROR(EnsureGroup(c));
  if (c.phase == "Pending" || c.phase == "Running" || c.phase == "Aborting" ||
      c.phase == "Aborted") {
    if (auto action = NextAction(c)) {
      ETNA_RETURN_IF_ERROR(ApplyAction(c, action->first, action->second));
      // The action's phase is on disk before RunPhase deletes any pod: a failed write then
      // leaves the pods that caused the action, and the next reconcile takes it again.
      ETNA_RETURN_IF_ERROR(WriteStatus(c));
    }
  }
  if (!c.pods_deleted) ETNA_RETURN_IF_ERROR(RunPhase(c));
  ComputeStatus(c);
  ETNA_RETURN_IF_ERROR(WriteStatus(c));
  if (!c.command_done.empty()) {
    // Applied and recorded in the status: a stale cache must not apply it again.
    {
      std::lock_guard lock(mu_);
      done_commands_.insert(c.command_uid);
    }
    Status s = rest().Delete(c.command_done);
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  if (c.wake_at) queue().AddAt(key, *c.wake_at);
  if (c.pods_deleted) queue().Add(key);
  return CheckTtl(c);
}

std::optional<std::pair<std::string, std::string>> JobController::NextAction(JobContext& c) {
  std::string ns = types::Job(c.job).ns(), name = types::Job(c.job).name();
  // Commands for this job, oldest first.
  std::vector<Json> commands;
  commands_->ForEach([&](const Json& cmd) {
    if (types::String(cmd, {"metadata", "namespace"}) == ns &&
        types::String(cmd, {"target", "kind"}) == "Job" &&
        types::String(cmd, {"target", "name"}) == name) {
      commands.push_back(cmd);
    }
  });
  {  // mu_ is not taken under the informer's lock
    std::lock_guard lock(mu_);
    std::erase_if(commands, [&](const Json& cmd) {
      return done_commands_.count(types::String(cmd, {"metadata", "uid"})) > 0;
    });
  }
  std::sort(commands.begin(), commands.end(), [](const Json& a, const Json& b) {
    return std::make_pair(types::String(a, {"metadata", "creationTimestamp"}),
                          types::String(a, {"metadata", "name"})) <
           std::make_pair(types::String(b, {"metadata", "creationTimestamp"}),
                          types::String(b, {"metadata", "name"}));
  });
  if (!commands.empty()) {
    const Json& cmd = commands.front();
    c.command_done = client::Path("commands", ns, types::String(cmd, {"metadata", "name"}));
    c.command_uid = types::String(cmd, {"metadata", "uid"});
    c.reason = "CommandIssued";
    c.message = fmt::format("command {} issued {}", types::String(cmd, {"metadata", "name"}),
                            types::String(cmd, {"action"}));
    return std::make_pair(types::String(cmd, {"action"}), std::string());
  }
  if (c.phase != "Pending" && c.phase != "Running") return std::nullopt;
  auto pick = [&](const std::string& event, const std::string& task, const std::string& pod,
                  int exit_code = 0) -> std::optional<std::pair<std::string, std::string>> {
    auto m = FindPolicy(c.job, task, event, exit_code);
    if (!m) return std::nullopt;
    c.reason = event;
    c.message = pod.empty() ? fmt::format("{} of task {}: {}", event, task, m->action)
                            : fmt::format("{} of pod {}: {}", event, pod, m->action);
    std::string target = m->action == "RestartTask" ? task : pod;
    return std::make_pair(m->action, target);
  };
  std::vector<PodEvent> recorded;
  {
    std::lock_guard lock(mu_);
    recorded.swap(events_[c.key]);
  }
  if (!recorded.empty()) {
    c.undo = [this, key = c.key, recorded] {
      std::lock_guard lock(mu_);
      auto& list = events_[key];
      list.insert(list.begin(), recorded.begin(), recorded.end());
    };
  }
  std::string version = std::to_string(types::Job(c.job).version());
  for (const PodEvent& e : recorded) {
    if (e.version != version) continue;
    if (auto a = pick(e.event, e.task, e.pod, e.exit_code)) return a;
  }
  for (const Json& json : c.pods) {
    types::Pod pod(json);
    if (pod.JobVersion() != version) continue;
    std::string task = pod.TaskName();
    std::string pod_name = pod.name();
    if (pod.IsDeleting()) continue;
    std::string phase = pod.phase();
    if (phase == "Failed") {
      if (auto a = pick("PodFailed", task, pod_name, PodExitCode(json))) return a;
    }
    if (pod.IsDisrupted()) {
      std::string uid = pod.uid();
      bool handled;
      {
        std::lock_guard lock(mu_);
        handled = handled_disruptions_.count(uid) > 0;
      }
      if (!handled) {
        // Handled once the action is in the status; a failed write tries again.
        c.on_success.push_back([this, uid] {
          std::lock_guard lock(mu_);
          handled_disruptions_.insert(uid);
        });
        if (auto a = pick("PodEvicted", task, pod_name)) return a;
      }
    }
    if (phase == "Pending") {
      auto m = FindPolicy(c.job, task, "PodPending");
      auto created = ParseRfc3339(pod.creation_timestamp());
      if (m && m->timeout_ms && created) {
        TimeMs due = *created + *m->timeout_ms;
        if (c.now >= due) return pick("PodPending", task, pod_name);
        c.wake_at = c.wake_at ? std::min(*c.wake_at, due) : due;
      }
    }
  }
  for (const TaskCounts& t : CountTasks(c.job, c.pods)) {
    if (t.replicas > 0 && t.succeeded >= t.replicas) {
      if (auto a = pick("TaskCompleted", t.name, "")) return a;
    }
    if (t.failed > 0 && t.failed > t.replicas - t.min_available) {
      if (auto a = pick("TaskFailed", t.name, "")) return a;
    }
  }
  if (auto pg = podgroups_->Get(types::Job(c.job).ns(), types::Job(c.job).PodGroupName())) {
    if (types::PodGroup(*pg).phase() == "Unknown") {
      if (auto a = pick("Unknown", "", "")) return a;
    }
  }
  int64_t generation = types::Job(c.job).generation();
  int64_t seen;
  {
    std::lock_guard lock(mu_);
    auto [it, inserted] = seen_generation_.emplace(c.key, generation);
    seen = inserted ? generation : it->second;
    it->second = generation;
  }
  if (generation > seen) {
    if (auto a = pick("JobUpdated", "", "")) return a;
  }
  return std::nullopt;
}

Status JobController::ApplyAction(JobContext& c, const std::string& action,
                                  const std::string& target) {
  Json& status = c.job["status"];
  bool live = c.phase == "Pending" || c.phase == "Running";
  bool stopped = c.phase == "Aborting" || c.phase == "Aborted";
  auto restart = [&](bool bump_version) {
    if (bump_version) status["version"] = types::Job(c.job).version() + 1;
    status["retryCount"] = types::Job(c.job).retry_count() + 1;
    SetPhase(c, "Restarting", c.reason, c.message);
  };
  if (action == "ResumeJob") {
    if (stopped) restart(true);
  } else if (!live) {
    // Other actions apply to a pending or running job only.
  } else if (action == "AbortJob") {
    SetPhase(c, "Aborting", c.reason, c.message);
  } else if (action == "RestartJob") {
    restart(true);
  } else if (action == "RestartTask" || action == "RestartPod") {
    // The restart is written first: a delete without its retryCount would look like an
    // eviction.
    restart(false);
    ETNA_RETURN_IF_ERROR(WriteStatus(c));
    for (const Json& pod : c.pods) {
      bool hit = action == "RestartPod" ? types::Pod(pod).name() == target
                                        : types::Pod(pod).TaskName() == target;
      if (hit && !types::Pod(pod).IsDeleting()) {
        ETNA_RETURN_IF_ERROR(DeletePod(pod));
        c.pods_deleted = true;
      }
    }
  } else if (action == "TerminateJob") {
    SetPhase(c, "Terminating", c.reason, c.message);
  } else if (action == "CompleteJob") {
    SetPhase(c, "Completing", c.reason, c.message);
  }
  return Status::Ok();
}

Status JobController::DeletePod(const Json& pod) {
  std::string uid = types::Pod(pod).uid();
  {
    std::lock_guard lock(mu_);
    self_deleted_.insert(uid);
  }
  Json options = {{"preconditions", {{"uid", uid}}}};
  auto reply = rest().transport()->Do(
      "DELETE", client::Path("pods", types::Pod(pod).ns(), types::Pod(pod).name()), options.dump());
  if (!reply.ok()) return reply.status();
  if (reply->status == 404 || reply->status == 409) return Status::Ok();  // gone, or replaced
  if (reply->status < 200 || reply->status >= 300) {
    return client::StatusFromReply(reply->status, reply->body);
  }
  return Status::Ok();
}

}  // namespace etna::controllers
