#include "scheduler/apply.h"

#include <fmt/format.h>

#include <cstdio>
#include <set>

#include "api/types/well_known.h"
#include "common/time.h"
#include "scheduler/convert.h"

namespace etna::scheduler {
namespace {

ObjectRef PodRef(const std::string& ns, const std::string& name, const std::string& uid) {
  return {"Pod", "v1", ns, name, uid};
}

ObjectRef PodGroupRef(const sched::Job& job) {
  return {"PodGroup", "scheduling.volcano.sh/v1beta1", job.ns, job.name, job.uid};
}

std::string PhaseName(sched::PodGroupPhase p) {
  switch (p) {
    case sched::PodGroupPhase::kPending:
      return "Pending";
    case sched::PodGroupPhase::kInqueue:
      return "Inqueue";
    case sched::PodGroupPhase::kRunning:
      return "Running";
    case sched::PodGroupPhase::kUnknown:
      return "Unknown";
    case sched::PodGroupPhase::kCompleted:
      return "Completed";
  }
  return "Unknown";
}

// The PodGroup's status.evictedInRun for `u`; null (a merge patch removes it) once the job is
// whole again.
json EvictedInRunStatus(const sched::JobUpdate& u) {
  if (u.evicted_in_run.IsZero()) return nullptr;
  return {{"since", FormatRfc3339(u.evicted_since_ms)},
          {"resources", EncodeResourceList(u.evicted_in_run)}};
}

}  // namespace

DecisionApplier::DecisionApplier(client::RestClient* rest, Cache* cache, EventRecorder* events,
                                 int bind_workers)
    : rest_(rest), cache_(cache), events_(events) {
  for (int i = 0; i < std::max(1, bind_workers); ++i) {
    workers_.emplace_back([this] { Worker(); });
  }
}

DecisionApplier::~DecisionApplier() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  stop_cv_.notify_all();
  for (auto& w : workers_) w.join();
}

void DecisionApplier::Apply(const Assembled& view, const std::vector<sched::Node>& nodes,
                            const sched::Decision& decision, QueueUsage& usage, TimeMs now) {
  std::unordered_map<std::string_view, const sched::Node*> by_name;
  for (const auto& n : nodes) by_name[n.name] = &n;
  std::vector<BindJob> jobs;
  jobs.reserve(decision.binds.size());
  for (const auto& b : decision.binds) {
    if (b.task < 0 || b.task >= static_cast<sched::TaskIdx>(view.task_keys.size())) continue;
    auto n = by_name.find(b.node);
    if (n == by_name.end()) continue;
    const std::string& key = view.task_keys[b.task];
    cache_->MarkBinding(key, b.node, b.devices);
    jobs.push_back(
        {key, b.ns, b.pod_name, b.node, b.task_uid, EncodeBindAnnotations(b, *n->second)});
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& j : jobs) {
      work_.push_back([this, job = std::move(j)] { Bind(job); });
    }
  }
  cv_.notify_all();
  for (const auto& e : decision.evictions) Evict(e);
  UpdateJobs(view, decision);
  UpdateQueues(view, decision, usage, now);
}

void DecisionApplier::Post(std::function<void()> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    work_.push_back(std::move(work));
  }
  cv_.notify_one();
}

void DecisionApplier::Worker() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !work_.empty(); });
    if (work_.empty()) return;  // stopping
    std::function<void()> work = std::move(work_.front());
    work_.pop_front();
    ++active_;
    lock.unlock();
    work();
    lock.lock();
    --active_;
    cv_.notify_all();
  }
}

std::string DecisionApplier::NodeAfterLostAnswer(const BindJob& job) {
  std::chrono::milliseconds pause{100};
  while (true) {
    auto pod = rest_->Get(client::Path("pods", job.ns, job.pod));
    if (pod.ok()) {
      if (pod->value("/metadata/uid"_json_pointer, std::string()) != job.pod_uid) return "";
      return pod->value("/spec/nodeName"_json_pointer, std::string());
    }
    if (pod.status().code() == StatusCode::kNotFound) return "";
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (stop_cv_.wait_for(lock, pause, [&] { return stop_; })) return job.node;
    }
    pause = std::min(pause * 2, std::chrono::milliseconds(2000));
  }
}

void DecisionApplier::Bind(const BindJob& job) {
  Status s = rest_->Bind(job.ns, job.pod, job.node, job.annotations);
  const StatusCode code = s.code();
  if (!s.ok() && (code == StatusCode::kUnavailable || code == StatusCode::kInternal) &&
      NodeAfterLostAnswer(job) == job.node) {
    s = Status::Ok();  // applied: the watch confirms it; its GPUs stayed reserved meanwhile
  }
  if (!s.ok()) {
    cache_->ForgetBinding(job.key);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.bind_failures;
    }
    std::fprintf(stderr, "scheduler: bind %s to %s: %s\n", job.key.c_str(), job.node.c_str(),
                 s.message().c_str());
    events_->Record(PodRef(job.ns, job.pod, job.pod_uid), "Warning", "FailedScheduling",
                    fmt::format("Binding rejected: {}", s.message()));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.binds;
  }
  events_->Record(PodRef(job.ns, job.pod, job.pod_uid), "Normal", "Scheduled",
                  fmt::format("Successfully assigned {}/{} to {}", job.ns, job.pod, job.node));
}

void DecisionApplier::WaitForBinds() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return work_.empty() && active_ == 0; });
}

ApplyStats DecisionApplier::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void DecisionApplier::Evict(const sched::EvictDecision& e) {
  std::string path = client::Path("pods", e.ns, e.pod_name);
  auto pod = rest_->Get(path);
  if (!pod.ok()) return;  // gone already
  json conditions = json::array();
  if (pod->contains("status") && (*pod)["status"].contains("conditions")) {
    for (const auto& c : (*pod)["status"]["conditions"]) {
      if (c.value("type", "") != api::types::kDisruptionTargetCondition) conditions.push_back(c);
    }
  }
  conditions.push_back({{"type", api::types::kDisruptionTargetCondition},
                        {"status", "True"},
                        {"reason", e.reason},
                        {"message", e.message}});
  auto patched = rest_->MergePatch(path, {{"status", {{"conditions", conditions}}}}, "status");
  if (!patched.ok()) {
    std::fprintf(stderr, "scheduler: marking victim %s/%s: %s\n", e.ns.c_str(), e.pod_name.c_str(),
                 patched.status().message().c_str());
    return;  // never evict unmarked
  }
  Status s = rest_->Evict(e.ns, e.pod_name);
  if (!s.ok() && s.code() != StatusCode::kNotFound) {
    std::fprintf(stderr, "scheduler: evicting %s/%s: %s\n", e.ns.c_str(), e.pod_name.c_str(),
                 s.message().c_str());
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.evictions;
  }
  events_->Record(PodRef(e.ns, e.pod_name, e.task_uid), "Warning",
                  e.reason == "Preempted" ? "Preempted" : "Evict", e.message);
}

void DecisionApplier::UpdateJobs(const Assembled& view, const sched::Decision& decision) {
  const auto& jobs = view.snapshot.jobs;
  {
    // Forget jobs that are gone, so the map does not grow without bound.
    std::lock_guard<std::mutex> lock(mu_);
    if (job_status_.size() > 2 * jobs.size() + 1024) {
      std::set<std::string> live;
      for (size_t j = 0; j < jobs.size(); ++j) {
        live.insert(view.job_keys[j].empty() ? fmt::format("pod:{}", jobs[j].uid)
                                             : view.job_keys[j]);
      }
      std::erase_if(job_status_, [&](const auto& e) { return !live.count(e.first); });
    }
  }
  for (const auto& u : decision.jobs) {
    if (u.job < 0 || u.job >= static_cast<sched::JobIdx>(jobs.size())) continue;
    const sched::Job& job = jobs[u.job];
    const std::string& key = view.job_keys[u.job];
    JobStatus next{PhaseName(u.phase), u.condition, u.reason, u.message, u.backoff.failures, {}};
    bool failed_again, changed;
    std::string status_key = key.empty() ? fmt::format("pod:{}", job.uid) : key;
    {
      std::lock_guard<std::mutex> lock(mu_);
      JobStatus& last = job_status_[status_key];
      next.evicted_in_run =
          u.evicted_in_run_changed ? EvictedInRunStatus(u).dump() : last.evicted_in_run;
      failed_again = u.condition == "Unschedulable" &&
                     (next.message != last.message || next.reason != last.reason ||
                      next.failures > last.failures);
      changed = next.phase != last.phase || next.condition != last.condition ||
                next.reason != last.reason || next.message != last.message ||
                u.evicted_in_run_changed;
      last = next;
    }
    if (failed_again) {
      ObjectRef ref = key.empty() ? PodRef(job.ns, job.name, job.uid) : PodGroupRef(job);
      events_->Record(ref, "Warning", "FailedScheduling", u.message.empty() ? u.reason : u.message);
    }
    if (key.empty() || !changed) continue;
    json status = {{"phase", next.phase}};
    if (u.evicted_in_run_changed) {
      status[api::types::kEvictedInRunStatusField] = EvictedInRunStatus(u);
    }
    if (!u.condition.empty()) {
      status["conditions"] = json::array({{{"type", u.condition},
                                           {"status", "True"},
                                           {"reason", u.reason.empty() ? u.condition : u.reason},
                                           {"message", u.message}}});
    }
    Post([this, key, ns = job.ns, name = job.name, status = std::move(status)] {
      PatchPodGroup(key, ns, name, status);
    });
  }
}

void DecisionApplier::PatchPodGroup(const std::string& key, const std::string& ns,
                                    const std::string& name, const json& status) {
  auto r = rest_->MergePatch(client::Path("podgroups", ns, name), {{"status", status}}, "status");
  std::lock_guard<std::mutex> lock(mu_);
  if (!r.ok() && r.status().code() != StatusCode::kNotFound) {
    std::fprintf(stderr, "scheduler: podgroup %s status: %s\n", key.c_str(),
                 r.status().message().c_str());
    job_status_.erase(key);  // written again after the next cycle
    return;
  }
  ++stats_.podgroup_patches;
}

namespace {

// status.timeWindow: {open, nextOpen} for a queue with time policies; null (none) without.
json QueueWindowJson(const QueueWindowStatus& w) {
  if (!w.has_policies) return nullptr;
  json out = {{"open", w.open}};
  out["nextOpen"] = w.next_open.empty() ? json(nullptr) : json(w.next_open);
  return out;
}

}  // namespace

void DecisionApplier::UpdateQueues(const Assembled& view, const sched::Decision& decision,
                                   QueueUsage& usage, TimeMs now) {
  const auto& s = view.snapshot;
  std::vector<ResourceVector> allocated = view.queue_allocated;
  for (const auto& b : decision.binds) {
    if (b.task < 0 || b.task >= static_cast<sched::TaskIdx>(s.tasks.size())) continue;
    const sched::Task& t = s.tasks[b.task];
    if (t.job >= 0 && s.jobs[t.job].queue >= 0) allocated[s.jobs[t.job].queue] += t.request;
  }
  for (size_t q = 0; q < s.queues.size(); ++q) {
    std::map<std::string, std::string> next;
    for (ResourceId id : {kCpu, kMemory, kGpu}) {
      next[ResourceNames::Global().Name(id)] = FormatQuantity(id, 0);
    }
    for (int d = 0; d < allocated[q].dims(); ++d) {
      int64_t v = allocated[q].Get(static_cast<ResourceId>(d));
      if (v != 0 || next.count(ResourceNames::Global().Name(d))) {
        next[ResourceNames::Global().Name(d)] = FormatQuantity(static_cast<ResourceId>(d), v);
      }
    }
    auto& last = queue_allocated_[s.queues[q].name];
    json window = QueueWindowJson(view.queue_windows[q]);
    auto& last_window = queue_window_[s.queues[q].name];
    const sched::QueueReport* report =  // the session reports queues in snapshot order
        q < decision.queues.size() && decision.queues[q].name == s.queues[q].name
            ? &decision.queues[q]
            : nullptr;
    json usage_status = usage.DueStatus(s.queues[q].name, now, report);
    if (next == last && window == last_window && usage_status.is_null()) continue;
    json status = json::object();
    if (next != last) {
      json list = json::object();
      for (const auto& [k, _] : last) list[k] = nullptr;  // dropped resources
      for (const auto& [k, v] : next) list[k] = v;
      status["allocated"] = list;
    }
    // A merge patch replaces the whole object (nextOpen goes when the window is open).
    if (window != last_window) status["timeWindow"] = window;
    if (!usage_status.is_null()) status["usage"] = usage_status;
    auto r = rest_->MergePatch(client::Path("queues", "", s.queues[q].name), {{"status", status}},
                               "status");
    if (!r.ok()) {
      std::fprintf(stderr, "scheduler: queue %s status: %s\n", s.queues[q].name.c_str(),
                   r.status().message().c_str());
      continue;
    }
    last = std::move(next);
    last_window = std::move(window);
    if (!usage_status.is_null()) usage.Written(s.queues[q].name, now);
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.queue_patches;
  }
}

}  // namespace etna::scheduler
