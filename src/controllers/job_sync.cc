// The job controller's per-phase work: the PodGroup, pod creation and killing, the status,
// and the TTL of finished jobs.
#include "controllers/job_sync.h"

#include <fmt/format.h>

#include "client/well_known.h"
#include "common/time.h"
#include "controllers/job_controller.h"
#include "controllers/job_plugins.h"

namespace etna::controllers {

bool IsFinished(const std::string& phase) {
  return phase == "Completed" || phase == "Failed" || phase == "Terminated";
}

bool IsTerminating(const Json& pod) {
  return pod.contains(Json::json_pointer("/metadata/deletionTimestamp"));
}

bool IsAlive(const Json& pod) {
  std::string phase = StringAt(pod, "/status/phase");
  return phase != "Succeeded" && phase != "Failed";
}

bool HasDisruption(const Json& pod) {
  for (const Json& cond : ArrayAt(pod, "/status/conditions")) {
    if (StringAt(cond, "/type") == client::kDisruptionTargetCondition &&
        StringAt(cond, "/status") == "True") {
      return true;
    }
  }
  return false;
}

std::vector<TaskCounts> CountTasks(const Json& job, const std::vector<Json>& pods) {
  std::vector<TaskCounts> out;
  for (const Json& t : ArrayAt(job, "/spec/tasks")) {
    TaskCounts c;
    c.name = StringAt(t, "/name");
    c.replicas = t.value("replicas", int64_t{0});
    c.min_available = t.value("minAvailable", c.replicas);
    out.push_back(c);
  }
  std::string version = std::to_string(IntAt(job, "/status/version", 0));
  for (const Json& pod : pods) {
    std::string task = StringAt(pod, "/metadata/labels/volcano.sh~1task-spec");
    auto it =
        std::find_if(out.begin(), out.end(), [&](const TaskCounts& c) { return c.name == task; });
    if (it == out.end()) continue;
    if (IsTerminating(pod)) {
      ++it->terminating;
      continue;
    }
    if (StringAt(pod, "/metadata/labels/volcano.sh~1job-version") != version) continue;
    std::string phase = StringAt(pod, "/status/phase", "Pending");
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

std::optional<int64_t> JobController::PriorityOf(const Json& job) {
  std::string pc = StringAt(job, "/spec/priorityClassName");
  if (!pc.empty()) {
    auto got = rest().Get(client::Path("priorityclasses", "", pc));
    if (got.ok() && got->contains("value") && (*got)["value"].is_number_integer()) {
      return (*got)["value"].get<int64_t>();
    }
  }
  if (job.contains(Json::json_pointer("/spec/priority"))) return IntAt(job, "/spec/priority", 0);
  return std::nullopt;
}

Status JobController::EnsureGroup(JobContext& c) {
  std::string ns = JobNamespace(c.job);
  if (!podgroups_->Get(ns, PodGroupNameForJob(c.job))) {
    auto made = rest().Create(client::Path("podgroups", ns), BuildJobPodGroup(c.job));
    if (!made.ok() && made.status().code() != StatusCode::kAlreadyExists) {
      return made.status().WithContext("creating the PodGroup");
    }
  }
  std::string uid = StringAt(c.job, "/metadata/uid");
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
  std::lock_guard lock(mu_);
  made_config_maps_.insert(uid);
  return Status::Ok();
}

Status JobController::KillPods(JobContext& c, bool keep_finished, bool only_old_versions) {
  std::string version = std::to_string(IntAt(c.job, "/status/version", 0));
  for (const Json& pod : c.pods) {
    if (IsTerminating(pod)) continue;
    if (only_old_versions && StringAt(pod, "/metadata/labels/volcano.sh~1job-version") == version) {
      continue;
    }
    if (keep_finished && !IsAlive(pod)) continue;
    ETNA_RETURN_IF_ERROR(DeletePod(pod));
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
  for (const Json& pod : c.pods) existing.insert(StringAt(pod, "/metadata/name"));
  std::vector<TaskCounts> counts = CountTasks(c.job, c.pods);
  std::optional<std::optional<int64_t>> priority;
  const Json tasks = ArrayAt(c.job, "/spec/tasks");
  std::string ns = JobNamespace(c.job), name = JobName(c.job);
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!DependenciesReady(tasks[i], counts)) continue;
    std::string task = tasks[i].value("name", "");
    for (int k = 0; k < tasks[i].value("replicas", 0); ++k) {
      if (existing.count(JobPodName(name, task, k))) continue;
      if (!priority) priority = PriorityOf(c.job);
      auto made = rest().Create(client::Path("pods", ns), BuildJobPod(c.job, i, k, *priority));
      if (!made.ok() && made.status().code() != StatusCode::kAlreadyExists) {
        return made.status().WithContext(fmt::format("creating pod {}", JobPodName(name, task, k)));
      }
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
  for (const Json& pod : c.pods) {
    if (IsTerminating(pod)) ++terminating;
    if (IsAlive(pod)) ++alive;
  }
  int64_t min_available = IntAt(c.job, "/spec/minAvailable", replicas);
  if (c.phase == "Pending" || c.phase == "Running") {
    if (auto pg = podgroups_->Get(JobNamespace(c.job), PodGroupNameForJob(c.job))) {
      for (const Json& cond : ArrayAt(*pg, "/status/conditions")) {
        if (StringAt(cond, "/reason") == "WaitTimeout") {
          SetPhase(c, "Failed", "WaitTimeout", StringAt(cond, "/message"));
          return KillPods(c, true, false);
        }
      }
    }
    ETNA_RETURN_IF_ERROR(SyncPods(c));
    auto min_success = c.job.contains(Json::json_pointer("/spec/minSuccess"))
                           ? std::optional<int64_t>(IntAt(c.job, "/spec/minSuccess", 1))
                           : std::nullopt;
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
    int64_t max_retry = IntAt(c.job, "/spec/maxRetry", 3);
    if (IntAt(c.job, "/status/retryCount", 0) >= max_retry) {
      SetPhase(c, "Failed", "MaxRetryExceeded",
               fmt::format("the job was restarted {} times (maxRetry {})", max_retry, max_retry));
      return KillPods(c, true, false);
    }
    ETNA_RETURN_IF_ERROR(KillPods(c, false, true));
    std::string version = std::to_string(IntAt(c.job, "/status/version", 0));
    bool old_left = std::any_of(c.pods.begin(), c.pods.end(), [&](const Json& p) {
      return StringAt(p, "/metadata/labels/volcano.sh~1job-version") != version;
    });
    if (!old_left && terminating == 0) SetPhase(c, "Pending");
    return Status::Ok();
  }
  static const std::map<std::string, std::string> kDraining = {
      {"Aborting", "Aborted"}, {"Completing", "Completed"}, {"Terminating", "Terminated"}};
  ETNA_RETURN_IF_ERROR(KillPods(c, /*keep_finished=*/true, false));
  if (auto it = kDraining.find(c.phase); it != kDraining.end() && alive == 0) {
    SetPhase(c, it->second, StringAt(c.job, "/status/state/reason"),
             StringAt(c.job, "/status/state/message"));
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
  s["minAvailable"] = IntAt(c.job, "/spec/minAvailable", 0);
  s["version"] = IntAt(c.job, "/status/version", 0);
  s["retryCount"] = IntAt(c.job, "/status/retryCount", 0);
}

Status JobController::WriteStatus(JobContext& c) {
  if (c.job["status"] == c.original_status) return Status::Ok();
  auto written =
      rest().UpdateStatus(client::Path("jobs", JobNamespace(c.job), JobName(c.job)), c.job);
  if (!written.ok()) return written.status();
  std::string phase = StringAt(c.job, "/status/state/phase");
  if (phase != StringAt(c.original_status, "/state/phase")) metrics().JobPhaseEntered(phase);
  if (IntAt(c.job, "/status/retryCount", 0) > IntAt(c.original_status, "/retryCount", 0)) {
    metrics().JobRestarted(StringAt(c.job, "/spec/queue", "default"));
  }
  // Later writes in this reconcile build on this one.
  c.job["metadata"]["resourceVersion"] = StringAt(*written, "/metadata/resourceVersion");
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
  auto finished = ParseRfc3339(StringAt(c.job, "/status/state/lastTransitionTime"));
  if (!finished) return Status::Ok();
  TimeMs due = *finished + IntAt(c.job, "/spec/ttlSecondsAfterFinished", 0) * 1000;
  if (c.now < due) {
    queue().AddAt(c.key, due);
    return Status::Ok();
  }
  Status s =
      rest().Delete(client::Path("jobs", JobNamespace(c.job), JobName(c.job)), -1, "Background");
  return s.code() == StatusCode::kNotFound ? Status::Ok() : s;
}

}  // namespace etna::controllers
