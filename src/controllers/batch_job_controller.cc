#include "controllers/batch_job_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "api/types/batch_job.h"
#include "api/types/pod.h"
#include "common/time.h"
#include "controllers/batch_job_pods.h"
#include "controllers/replica_set_pods.h"
#include "controllers/status_conditions.h"

namespace etna::controllers {

namespace types = etna::api::types;

namespace {

// Pods created or deleted in one pass at most (Kubernetes' burstReplicas).
constexpr size_t kBurstPods = 500;

// Whether a status.uncountedTerminatedPods holds any pod.
bool HasUncounted(const Json& uncounted) {
  return !types::Array(uncounted, {"succeeded"}).empty() ||
         !types::Array(uncounted, {"failed"}).empty();
}

std::set<std::string> StringSet(const Json& list) {
  std::set<std::string> out;
  for (const Json& v : list) {
    if (v.is_string()) out.insert(v.get<std::string>());
  }
  return out;
}

// Keys of pods to release from a Job that no longer counts them.
constexpr char kPodKeyPrefix[] = "pod/";

// Whether `pod`'s controlling Job is gone or being deleted (`job` as the cache has it).
bool OrphanedFrom(const Json& pod, const std::optional<Json>& job) {
  if (!job) return true;
  types::ObjectView view(*job);
  return view.IsDeleting() || types::ObjectView(pod).ControllerUid() != view.uid();
}

int64_t RestartsOf(const Json& pod) {
  int64_t n = 0;
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    for (const Json& cs : types::Array(pod, {"status", list})) {
      n += types::Integer(cs, {"restartCount"});
    }
  }
  return n;
}

}  // namespace

// What one reconcile of a Job has read and decided.
struct BatchJobController::Pass {
  std::string key, ns;
  Json job;  // the working copy; its resourceVersion follows each status write
  TimeMs now = 0;
  bool suspended = false;
  std::vector<Json> active;                         // neither finished nor being deleted
  std::vector<Json> newly_succeeded, newly_failed;  // finished, tracked, not yet in uncounted
  std::vector<std::string> release;  // finalizers to remove once uncounted is durable
  std::set<int64_t> completed;       // an Indexed Job's succeeded indexes
  int64_t restarts = 0;              // of active pods, under restartPolicy OnFailure
  // Finished pods: those the status counts, those it holds uncounted, and the newly finished.
  int64_t succeeded = 0, failed = 0;
  int64_t ready = 0;
  TimeMs last_failure = 0;
  std::string fail_job_message;  // a podFailurePolicy FailJob rule matched
  // The finish decided now ("Complete" or "Failed"); "" while the Job runs.
  std::string finish, finish_reason, finish_message;
  bool was_finished = false;
  std::vector<std::string> created, deleted;
  std::string create_failure;
};

BatchJobController::BatchJobController(ControllerOptions options)
    : Controller("job-controller", std::move(options)) {
  jobs_ = Watch(client::Path("jobs"));
  pods_ = Watch(client::Path("pods"), [this](const std::string&, const Json& pod) {
    types::Pod view(pod);
    for (const Json& ref : view.owner_references()) {
      if (types::String(ref, {"kind"}) != "Job" ||
          types::String(ref, {"apiVersion"}) != "batch/v1" || !types::Bool(ref, {"controller"})) {
        continue;
      }
      const std::string owner = types::String(ref, {"name"});
      queue().Add(view.ns() + "/" + owner);
      // A tracked pod whose Job is gone (or going) is let go, or it would never be deleted.
      if (HasTrackingFinalizer(pod) && (view.IsDeleting() || view.IsTerminal()) &&
          OrphanedFrom(pod, jobs_->Get(view.ns(), owner))) {
        queue().Add(kPodKeyPrefix + KeyOf(pod));
      }
    }
  });
}

void BatchJobController::ClassifyPods(Pass& p) {
  types::BatchJob job(p.job);
  const std::string uid = job.uid();
  std::set<std::string> uncounted =
      StringSet(types::Array(p.job, {"status", "uncountedTerminatedPods", "succeeded"}));
  for (const std::string& u :
       StringSet(types::Array(p.job, {"status", "uncountedTerminatedPods", "failed"}))) {
    uncounted.insert(u);
  }
  if (job.indexed()) {
    p.completed = types::ParseIndexIntervals(types::String(p.job, {"status", "completedIndexes"}))
                      .value_or(std::set<int64_t>());
  }
  const bool on_failure = job.restart_policy() == "OnFailure";
  const int64_t completions = job.completions().value_or(0);
  pods_->ForEachInNamespace(p.ns, [&](const Json& pod) {
    types::Pod view(pod);
    if (view.ControllerUid() != uid) return;
    const bool terminal = view.IsTerminal();
    const bool deleting = view.IsDeleting();
    if (view.phase() == "Failed") p.last_failure = std::max(p.last_failure, PodFinishedAt(pod));
    if (!terminal && !deleting) {
      p.active.push_back(pod);
      if (on_failure) p.restarts += RestartsOf(pod);
      if (view.IsReady()) ++p.ready;
      return;
    }
    // A pod being deleted that never reached a node, or whose agent has stopped it (its final
    // delete, grace 0), will not run again: finished as failed. One still running is waited for.
    if (!terminal && !view.node_name().empty() &&
        types::Integer(pod, {"metadata", "deletionGracePeriodSeconds"}, -1) != 0) {
      return;
    }
    if (!HasTrackingFinalizer(pod)) return;  // counted before
    if (uncounted.count(view.uid())) {
      p.release.push_back(view.name());
      return;
    }
    if (view.phase() == "Succeeded") {
      p.newly_succeeded.push_back(pod);
      auto index = CompletionIndexOf(pod);
      if (job.indexed() && index && *index < completions) p.completed.insert(*index);
      return;
    }
    FailureVerdict verdict = {"Count", ""};
    if (deleting && p.suspended) {
      verdict.action = "Ignore";  // deleted by the suspension, not a failure of its own
    } else {
      verdict = MatchPodFailurePolicy(job.pod_failure_rules(), pod);
    }
    if (verdict.action == "Ignore") {
      p.release.push_back(view.name());
      return;
    }
    if (verdict.action == "FailJob" && p.fail_job_message.empty()) {
      p.fail_job_message = verdict.message;
    }
    p.newly_failed.push_back(pod);
  });
  const Json& uncounted_pods = types::Object(p.job, {"status", "uncountedTerminatedPods"});
  p.succeeded = job.succeeded() + types::Array(uncounted_pods, {"succeeded"}).size() +
                p.newly_succeeded.size();
  p.failed = job.failed() + types::Array(uncounted_pods, {"failed"}).size() + p.newly_failed.size();
}

void BatchJobController::DecideFinish(Pass& p) {
  types::BatchJob job(p.job);
  if (p.was_finished) return;
  auto start = ParseRfc3339(types::String(p.job, {"status", "startTime"}));
  auto deadline = job.active_deadline_seconds();
  if (!p.fail_job_message.empty()) {
    p.finish = "Failed";
    p.finish_reason = "PodFailurePolicy";
    p.finish_message = p.fail_job_message;
  } else if (p.failed + p.restarts > job.backoff_limit()) {
    p.finish = "Failed";
    p.finish_reason = "BackoffLimitExceeded";
    p.finish_message = "Job has reached the specified backoff limit";
  } else if (!p.suspended && deadline && start && p.now >= *start + *deadline * 1000) {
    p.finish = "Failed";
    p.finish_reason = "DeadlineExceeded";
    p.finish_message = "Job was active longer than specified deadline";
  } else {
    auto completions = job.completions();
    bool complete = job.indexed()
                        ? static_cast<int64_t>(p.completed.size()) >= completions.value_or(0)
                    : completions ? p.succeeded >= *completions
                                  : p.succeeded > 0 && p.active.empty();
    if (complete) {
      p.finish = "Complete";
      p.finish_reason = "CompletionsReached";
      p.finish_message = "Reached expected number of succeeded pods";
    }
  }
  if (p.finish.empty() && !p.suspended && deadline && start) {
    queue().AddAt(p.key, *start + *deadline * 1000);
  }
}

Status BatchJobController::ManagePods(Pass& p) {
  types::BatchJob job(p.job);
  std::vector<Json> remove;
  std::vector<std::optional<int64_t>> make;
  if (p.was_finished || !p.finish.empty() || p.suspended) {
    remove = p.active;
  } else if (job.indexed()) {
    const int64_t completions = job.completions().value_or(0);
    std::map<int64_t, Json> by_index;
    for (const Json& pod : p.active) {
      auto index = CompletionIndexOf(pod);
      // One pod per index not yet completed; duplicates and strays go.
      if (!index || *index >= completions || p.completed.count(*index) ||
          !by_index.emplace(*index, pod).second) {
        remove.push_back(pod);
      }
    }
    int64_t room = job.parallelism() - static_cast<int64_t>(by_index.size());
    for (auto it = by_index.rbegin(); room < 0 && it != by_index.rend(); ++it, ++room) {
      remove.push_back(it->second);
    }
    for (int64_t i = 0; i < completions && room > 0; ++i) {
      if (p.completed.count(i) || by_index.count(i)) continue;
      make.push_back(i);
      --room;
    }
  } else {
    const int64_t active = p.active.size();
    int64_t want = job.parallelism();
    if (auto completions = job.completions()) {
      want = std::min(want, std::max<int64_t>(0, *completions - p.succeeded));
    } else if (p.succeeded > 0) {
      want = std::min(want, active);  // a work queue: no new pod once one succeeded
    }
    if (active > want) {
      remove = PodsToDelete(p.active, static_cast<size_t>(active - want));
    }
    for (int64_t i = active; i < want; ++i) make.push_back(std::nullopt);
  }
  const client::ObjectRef ref{"Job", "batch/v1", p.ns, job.name(), job.uid()};
  for (const Json& pod : remove) {
    if (p.deleted.size() >= kBurstPods) break;
    std::string name = types::ObjectView(pod).name();
    Status s = rest().Delete(client::Path("pods", p.ns, name));
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
    p.deleted.push_back(name);
    events().Record(ref, "Normal", "SuccessfulDelete", "Deleted pod: " + name);
  }
  if (make.empty()) return Status::Ok();
  if (p.failed > 0 && p.last_failure > 0) {
    TimeMs due = p.last_failure + FailureBackoffMs(p.failed);
    if (p.now < due) {
      queue().AddAt(p.key, due);
      return Status::Ok();
    }
  }
  for (const auto& index : make) {
    if (p.created.size() >= kBurstPods) break;
    auto made = rest().Create(client::Path("pods", p.ns), BuildBatchJobPod(p.job, index));
    if (!made.ok()) {
      p.create_failure = made.status().message();
      events().Record(ref, "Warning", "FailedCreate", "Error creating: " + p.create_failure);
      break;
    }
    p.created.push_back(types::ObjectView(*made).name());
    events().Record(ref, "Normal", "SuccessfulCreate", "Created pod: " + p.created.back());
  }
  return Status::Ok();
}

Json BatchJobController::BuildStatus(const Pass& p, bool flush_counted, bool with_finish) {
  types::BatchJob job(p.job);
  Json status = types::Object(p.job, {"status"});
  if (!status.is_object()) status = Json::object();
  Json uncounted = types::Object(p.job, {"status", "uncountedTerminatedPods"});
  if (!uncounted.is_object()) uncounted = Json::object();
  if (flush_counted) {
    status["succeeded"] = job.succeeded() + types::Array(uncounted, {"succeeded"}).size();
    status["failed"] = job.failed() + types::Array(uncounted, {"failed"}).size();
    uncounted = Json::object();
  } else {
    for (const auto& [list, pods] :
         {std::pair{"succeeded", &p.newly_succeeded}, std::pair{"failed", &p.newly_failed}}) {
      for (const Json& pod : *pods) {
        if (!uncounted[list].is_array()) uncounted[list] = Json::array();
        uncounted[list].push_back(types::ObjectView(pod).uid());
      }
    }
    if (!status.contains("succeeded")) status["succeeded"] = 0;
    if (!status.contains("failed")) status["failed"] = 0;
  }
  status["uncountedTerminatedPods"] = uncounted;
  const int64_t active = static_cast<int64_t>(p.active.size() + p.created.size()) -
                         static_cast<int64_t>(p.deleted.size());
  status["active"] = std::max<int64_t>(0, active);
  status["ready"] = p.ready;
  if (job.indexed()) {
    std::string text = types::FormatIndexIntervals(p.completed);
    if (text.empty()) {
      status.erase("completedIndexes");
    } else {
      status["completedIndexes"] = text;
    }
  }
  const Json old = types::Object(p.job, {"status"});
  Json conditions = Json::array();
  bool had_suspended = false;
  for (const Json& c : types::Array(p.job, {"status", "conditions"})) {
    if (types::String(c, {"type"}) == "Suspended" && !p.was_finished) {
      had_suspended = true;
      continue;
    }
    conditions.push_back(c);
  }
  if (p.suspended && !p.was_finished) {
    conditions.push_back(
        StatusCondition(old, "Suspended", true, "JobSuspended", "Job suspended", p.now));
    status.erase("startTime");  // reset when the Job resumes
  } else {
    if (had_suspended) {
      conditions.push_back(
          StatusCondition(old, "Suspended", false, "JobResumed", "Job resumed", p.now));
    }
    if (!status.contains("startTime")) status["startTime"] = FormatRfc3339(p.now);
  }
  if (with_finish && !p.finish.empty()) {
    conditions.push_back(
        StatusCondition(old, p.finish, true, p.finish_reason, p.finish_message, p.now));
    if (p.finish == "Complete") status["completionTime"] = FormatRfc3339(p.now);
  }
  if (conditions.empty()) {
    status.erase("conditions");
  } else {
    status["conditions"] = conditions;
  }
  return status;
}

Status BatchJobController::WriteStatus(Pass& p, const Json& status) {
  if (types::Object(p.job, {"status"}) == status) return Status::Ok();
  Json next = p.job;
  next["status"] = status;
  types::ObjectView view(p.job);
  auto written = rest().UpdateStatus(client::Path("jobs", p.ns, view.name()), next);
  if (!written.ok()) return written.status();  // a stale read conflicts and is retried
  p.job = std::move(written).value();
  return Status::Ok();
}

Status BatchJobController::RemoveFinalizers(Pass& p, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    auto pod = pods_->Get(p.ns, name);
    if (!pod) continue;
    Json kept = Json::array();
    for (const Json& f : types::Array(*pod, {"metadata", "finalizers"})) {
      if (!(f.is_string() && f.get<std::string>() == types::kJobTrackingFinalizer)) {
        kept.push_back(f);
      }
    }
    auto patched = rest().MergePatch(
        client::Path("pods", p.ns, name),
        {{"metadata",
          {{"finalizers", kept.empty() ? Json(nullptr) : kept},  // null: the field removed
           {"resourceVersion", types::String(*pod, {"metadata", "resourceVersion"})}}}});
    if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) {
      return patched.status();
    }
  }
  return Status::Ok();
}

Status BatchJobController::ApplyTtl(const Json& job) {
  types::BatchJob view(job);
  auto ttl = view.ttl_seconds_after_finished();
  const Json* finished = view.FinishedCondition();
  if (!ttl || finished == nullptr) return Status::Ok();
  auto at = ParseRfc3339(types::String(*finished, {"lastTransitionTime"}));
  if (!at) return Status::Ok();
  TimeMs due = *at + *ttl * 1000;
  if (clock().NowMs() < due) {
    queue().AddAt(KeyOf(job), due);
    return Status::Ok();
  }
  Status s = rest().Delete(client::Path("jobs", view.ns(), view.name()), -1, "Background");
  return s.code() == StatusCode::kNotFound ? Status::Ok() : s;
}

Status BatchJobController::ReleaseOrphan(const std::string& ns, const std::string& name) {
  auto pod = pods_->Get(ns, name);
  if (!pod || !HasTrackingFinalizer(*pod)) return Status::Ok();
  std::string owner = types::Pod(*pod).ControllerName("Job");
  if (!OrphanedFrom(*pod, jobs_->Get(ns, owner))) return Status::Ok();
  Pass p;
  p.ns = ns;
  return RemoveFinalizers(p, {name});
}

Status BatchJobController::Reconcile(const std::string& key) {
  if (key.rfind(kPodKeyPrefix, 0) == 0) {
    auto [ns, name] = SplitKey(key.substr(sizeof(kPodKeyPrefix) - 1));
    return ReleaseOrphan(ns, name);
  }
  auto [ns, name] = SplitKey(key);
  auto cached = jobs_->Get(ns, name);
  if (!cached) {
    expectations_.Forget(key);
    return Status::Ok();
  }
  if (types::ObjectView(*cached).IsDeleting()) {
    // Its finished and terminating pods let go (their events bring each here too).
    std::vector<std::string> tracked;
    pods_->ForEachInNamespace(ns, [&](const Json& pod) {
      if (HasTrackingFinalizer(pod) &&
          types::ObjectView(pod).ControllerUid() == types::ObjectView(*cached).uid()) {
        tracked.push_back(types::ObjectView(pod).name());
      }
    });
    Pass p;
    p.ns = ns;
    return RemoveFinalizers(p, tracked);
  }
  // Until the cache shows what the last pass did, its counts and pods are not to be trusted;
  // the pod events of those changes bring the key back.
  if (!expectations_.Met(key, ns, *pods_, clock().NowMs())) return Status::Ok();
  Pass p;
  p.key = key;
  p.ns = ns;
  p.job = *cached;
  p.now = clock().NowMs();
  types::BatchJob job(p.job);
  p.suspended = job.suspended();
  p.was_finished = job.FinishedCondition() != nullptr;
  const bool was_suspended = types::ConditionTrue(p.job, {"status", "conditions"}, "Suspended");
  ClassifyPods(p);
  DecideFinish(p);
  Status managed = ManagePods(p);
  // Recorded before any write can fail, so a retry never creates or deletes again.
  expectations_.Expect(key, p.created, p.deleted, p.now);
  ETNA_RETURN_IF_ERROR(managed);
  const client::ObjectRef ref{"Job", "batch/v1", ns, name, job.uid()};
  auto record_finish = [&] {
    if (p.finish.empty()) return;
    events().Record(ref, p.finish == "Complete" ? "Normal" : "Warning",
                    p.finish == "Complete" ? "Completed" : p.finish_reason,
                    p.finish == "Complete" ? "Job completed" : p.finish_message);
  };
  // 1. The newly finished pods' uids durable in uncountedTerminatedPods, with the decisions. The
  // finished condition waits until every finished pod is counted (3.), as in Kubernetes: whoever
  // sees Complete sees all its successes counted. A restart in between decides it again.
  const bool counting = !p.newly_succeeded.empty() || !p.newly_failed.empty() ||
                        HasUncounted(types::Object(p.job, {"status", "uncountedTerminatedPods"}));
  ETNA_RETURN_IF_ERROR(
      WriteStatus(p, BuildStatus(p, /*flush_counted=*/false, /*with_finish=*/!counting)));
  if (!counting) record_finish();
  if (!p.was_finished && p.suspended != was_suspended) {
    events().Record(ref, "Normal", p.suspended ? "Suspended" : "Resumed",
                    p.suspended ? "Job suspended" : "Job resumed");
  }
  // 2. Their finalizers removed; 3. then counted.
  std::vector<std::string> release = p.release;
  for (const auto* pods : {&p.newly_succeeded, &p.newly_failed}) {
    for (const Json& pod : *pods) release.push_back(types::ObjectView(pod).name());
  }
  Status released = RemoveFinalizers(p, release);
  PodExpectations::Changes changes{p.created, p.deleted, release, types::kJobTrackingFinalizer};
  expectations_.Expect(key, std::move(changes), p.now);
  ETNA_RETURN_IF_ERROR(released);
  if (counting) {  // step 1 left uncounted pods: count them, with the finished condition
    ETNA_RETURN_IF_ERROR(
        WriteStatus(p, BuildStatus(p, /*flush_counted=*/true, /*with_finish=*/true)));
    record_finish();
  }
  ETNA_RETURN_IF_ERROR(ApplyTtl(p.job));
  if (!p.create_failure.empty()) return Status::Unavailable(p.create_failure);
  return Status::Ok();
}

}  // namespace etna::controllers
