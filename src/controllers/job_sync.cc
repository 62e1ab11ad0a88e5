// The job controller's per-phase work: the PodGroup, pod creation and killing, the status,
// and the TTL of finished jobs.
#include "controllers/job_sync.h"

#include <fmt/format.h>

#include "api/types/podgroup.h"
#include "api/types/well_known.h"
#include "common/time.h"
#include "controllers/job_controller.h"
#include "controllers/job_plugins.h"

namespace etna::controllers {

bool IsFinished(const std::string& phase) {
  return phase == "Completed" || phase == "Failed" || phase == "Terminated";
}

std::vector<TaskCounts> CountTasks(const Json& job, const std::vector<Json>& pods) {
  std::vector<TaskCounts> out;
  for (const Json& t : types::Job(job).tasks()) {
    types::JobTask task(t);
    TaskCounts c;
    c.name = task.name();
    c.replicas = task.replicas();
    c.min_available = task.MinAvailable();
    out.push_back(c);
  }
  std::string version = std::to_string(types::Job(job).version());
  for (const Json& json : pods) {
    types::Pod pod(json);
    std::string task = pod.TaskName();
    auto it =
        std::find_if(out.begin(), out.end(), [&](const TaskCounts& c) { return c.name == task; });
    if (it == out.end()) continue;
    if (pod.IsDeleting()) {
      ++it->terminating;
      continue;
    }
    if (pod.JobVersion() != version) continue;
    std::string phase = pod.phase();
    if (phase == "Pending")
      ++it->pending;
    else if (phase == "Running")
      ++it->running;
    else if (phase == "Succeeded")
      ++it->succeeded;
    else if (phase == "Failed")
      ++it->failed;
    else
      ++it->unknown;
  }
  return out;
}

void JobController::SetPhase(JobContext& c, const std::string& phase, const std::string& reason,
                             const std::string& message) {
  if (c.phase == phase && c.job["status"].contains("state")) return;
  c.phase = phase;
  std::string now = FormatRfc3339(c.now);
  Json state = {{"phase", phase}, {"lastTransitionTime", now}};
  if (!reason.empty()) state["reason"] = reason;
  if (!message.empty()) state["message"] = message;
  c.job["status"]["state"] = state;
  Json& conditions = c.job["status"]["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  conditions.push_back({{"status", phase}, {"lastTransitionTime", now}});
}

Status JobController::EnsureGroup(JobContext& c) {
  types::Job job(c.job);
  std::string ns = job.ns();
  if (!podgroups_->Get(ns, job.PodGroupName())) {
    auto made = rest().Create(client::Path("podgroups", ns), BuildJobPodGroup(c.job));
    if (!made.ok() && made.status().code() != StatusCode::kAlreadyExists) {
      return made.status().WithContext("creating the PodGroup");
    }
  }
  std::string uid = job.uid();
  {
    std::lock_guard lock(mu_);
    if (made_config_maps_.count(uid)) return Status::Ok();
  }
  if (auto cm = BuildSvcConfigMap(c.job)) {
    auto made = rest().Create(client::Path("configmaps", ns), *cm);
    if (!made.ok() && made.status().code() != StatusCode::kAlreadyExists) {
      return made.status().WithContext("creating the svc ConfigMap");
    }
  }
  if (auto service = BuildSvcService(c.job)) {
    auto made = rest().Create(client::Path("services", ns), *service);
    if (!made.ok() && made.status().code() != StatusCode::kAlreadyExists) {
      return made.status().WithContext("creating the svc Service");
    }
  }
  std::lock_guard lock(mu_);
  made_config_maps_.insert(uid);
  return Status::Ok();
}

Status JobController::KillPods(JobContext& c, bool keep_finished, bool only_old_versions) {
  std::string version = std::to_string(types::Job(c.job).version());
  for (const Json& json : c.pods) {
    types::Pod pod(json);
    if (pod.IsDeleting()) continue;
    if (only_old_versions && pod.JobVersion() == version) continue;
    if (keep_finished && pod.IsTerminal()) continue;
    ETNA_RETURN_IF_ERROR(DeletePod(json));
  }
  return Status::Ok();
}

namespace {

// Whether task `t`'s dependencies (dependsOn.name, iteration any|all) are running or done.
bool DependenciesReady(const Json& task, const std::vector<TaskCounts>& counts) {
  if (!task.contains("dependsOn")) return true;
  const Json& dep = task["dependsOn"];
  bool any = dep.value("iteration", "all") == "any";
  bool all_ready = true, any_ready = false;
  for (const Json& n : dep.value("name", Json::array())) {
    bool ready = false;
    for (const TaskCounts& c : counts) {
      if (c.name == n) {
        int64_t need = c.min_available > 0 ? c.min_available : c.replicas;
        ready = c.running + c.succeeded >= need;
      }
    }
    all_ready = all_ready && ready;
    any_ready = any_ready || ready;
  }
  return any ? any_ready : all_ready;
}

}  // namespace

Status JobController::SyncPods(JobContext& c) {
  ETNA_RETURN_IF_ERROR(KillPods(c, /*keep_finished=*/false, /*only_old_versions=*/true));
  std::set<std::string> existing;
  for (const Json& pod : c.pods) existing.insert(types::Pod(pod).name());
  std::vector<TaskCounts> counts = CountTasks(c.job, c.pods);
  types::Job job(c.job);
  const Json tasks = job.tasks();
  std::string ns = job.ns(), name = job.name();
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!DependenciesReady(tasks[i], counts)) continue;
    types::JobTask spec(tasks[i]);
    std::string task = spec.name();
    for (int k = 0; k < spec.replicas(); ++k) {
      if (existing.count(JobPodName(name, task, k))) continue;
      auto made = rest().Create(client::Path("pods", ns), BuildJobPod(c.job, i, k));
      if (!made.ok() && made.status().code() != StatusCode::kAlreadyExists) {
        return made.status().WithContext(fmt::format("creating pod {}", JobPodName(name, task, k)));
      }
      // Counted in this reconcile's status (Pending), so that the pod's arrival in the cache
      // does not cost a second status write.
      if (made.ok()) c.pods.push_back(std::move(made).value());
    }
  }
  return Status::Ok();
}

Status JobController::RunPhase(JobContext& c) {
  auto counts = CountTasks(c.job, c.pods);
  int64_t replicas = 0, pending = 0, running = 0, succeeded = 0, failed = 0, terminating = 0,
          alive = 0;
  for (const TaskCounts& t : counts) {
    replicas += t.replicas;
    pending += t.pending;
    running += t.running;
    succeeded += t.succeeded;
    failed += t.failed;
  }
  for (const Json& json : c.pods) {
    types::Pod pod(json);
    if (pod.IsDeleting()) ++terminating;
    if (!pod.IsTerminal()) ++alive;
  }
  types::Job job(c.job);
  int64_t min_available = job.MinAvailable();
  if (c.phase == "Pending" || c.phase == "Running") {
    if (auto pg = podgroups_->Get(job.ns(), job.PodGroupName())) {
      if (const Json* timeout = types::PodGroup(*pg).ConditionWithReason("WaitTimeout")) {
        SetPhase(c, "Failed", "WaitTimeout", types::String(*timeout, {"message"}));
        return KillPods(c, true, false);
      }
    }
    ETNA_RETURN_IF_ERROR(SyncPods(c));
    auto min_success = types::IntegerIfSet(c.job, {"spec", "minSuccess"});
    if (min_success && succeeded >= *min_success) {
      SetPhase(c, "Completed", "MinSuccess", "minSuccess pods succeeded");
    } else if (replicas > 0 && succeeded + failed >= replicas) {
      bool ok = min_success ? succeeded >= *min_success : succeeded >= min_available;
      for (const TaskCounts& t : counts) ok = ok && t.succeeded >= t.min_available;
      SetPhase(c, ok ? "Completed" : "Failed", ok ? "" : "PodFailed",
               ok ? "" : fmt::format("{} of {} pods failed", failed, replicas));
    } else if (c.phase == "Pending" && running + succeeded + failed >= min_available) {
      SetPhase(c, "Running");
    } else if (c.phase == "Running" && pending > replicas - min_available) {
      SetPhase(c, "Pending");
    }
    if (IsFinished(c.phase)) return KillPods(c, true, false);
    return Status::Ok();
  }
  if (c.phase == "Restarting") {
    int64_t max_retry = job.max_retry();
    if (job.retry_count() >= max_retry) {
      SetPhase(c, "Failed", "MaxRetryExceeded",
               fmt::format("the job was restarted {} times (maxRetry {})", max_retry, max_retry));
      return KillPods(c, true, false);
    }
    ETNA_RETURN_IF_ERROR(KillPods(c, false, true));
    std::string version = std::to_string(job.version());
    bool old_left = std::any_of(c.pods.begin(), c.pods.end(), [&](const Json& p) {
      return types::Pod(p).JobVersion() != version;
    });
    if (!old_left && terminating == 0) SetPhase(c, "Pending");
    return Status::Ok();
  }
  static const std::map<std::string, std::string> kDraining = {
      {"Aborting", "Aborted"}, {"Completing", "Completed"}, {"Terminating", "Terminated"}};
  ETNA_RETURN_IF_ERROR(KillPods(c, /*keep_finished=*/true, false));
  if (auto it = kDraining.find(c.phase); it != kDraining.end() && alive == 0) {
    SetPhase(c, it->second, types::String(c.job, {"status", "state", "reason"}),
             types::String(c.job, {"status", "state", "message"}));
  }
  return Status::Ok();
}

void JobController::ComputeStatus(JobContext& c) {
  Json& s = c.job["status"];
  int64_t pending = 0, running = 0, succeeded = 0, failed = 0, unknown = 0, terminating = 0;
  Json per_task = Json::object();
  for (const TaskCounts& t : CountTasks(c.job, c.pods)) {
    pending += t.pending;
    running += t.running;
    succeeded += t.succeeded;
    failed += t.failed;
    unknown += t.unknown;
    terminating += t.terminating;
    Json phases = Json::object();
    for (auto [k, v] : {std::pair<const char*, int64_t>{"Pending", t.pending},
                        {"Running", t.running},
                        {"Succeeded", t.succeeded},
                        {"Failed", t.failed},
                        {"Unknown", t.unknown}}) {
      if (v > 0) phases[k] = v;
    }
    per_task[t.name] = {{"phase", phases}};
  }
  s["pending"] = pending;
  s["running"] = running;
  s["succeeded"] = succeeded;
  s["failed"] = failed;
  s["unknown"] = unknown;
  s["terminating"] = terminating;
  s["taskStatusCount"] = per_task;
  types::Job job(c.job);
  s["minAvailable"] = job.MinAvailable();
  s["version"] = job.version();
  s["retryCount"] = job.retry_count();
}

Status JobController::WriteStatus(JobContext& c) {
  if (c.job["status"] == c.original_status) return Status::Ok();
  types::Job job(c.job);
  auto written =
      rest().UpdateStatus(client::Path("jobs.batch.volcano.sh", job.ns(), job.name()), c.job);
  if (!written.ok()) return written.status();
  std::string phase = job.phase();
  if (phase != types::String(c.original_status, {"state", "phase"}))
    metrics().JobPhaseEntered(phase);
  if (job.retry_count() > types::Integer(c.original_status, {"retryCount"})) {
    metrics().JobRestarted(job.queue());
  }
  // Later writes in this reconcile build on this one.
  c.job["metadata"]["resourceVersion"] = types::String(*written, {"metadata", "resourceVersion"});
  c.original_status = c.job["status"];
  for (auto& done : c.on_success) done();
  c.on_success.clear();
  return Status::Ok();
}

Status JobController::CheckTtl(JobContext& c) {
  if (!IsFinished(c.phase) ||
      !c.job.contains(Json::json_pointer("/spec/ttlSecondsAfterFinished"))) {
    return Status::Ok();
  }
  auto finished = ParseRfc3339(types::String(c.job, {"status", "state", "lastTransitionTime"}));
  if (!finished) return Status::Ok();
  TimeMs due = *finished + types::Integer(c.job, {"spec", "ttlSecondsAfterFinished"}, 0) * 1000;
  if (c.now < due) {
    queue().AddAt(c.key, due);
    return Status::Ok();
  }
  types::Job job(c.job);
  Status s =
      rest().Delete(client::Path("jobs.batch.volcano.sh", job.ns(), job.name()), -1, "Background");
  return s.code() == StatusCode::kNotFound ? Status::Ok() : s;
}

}  // namespace etna::controllers
