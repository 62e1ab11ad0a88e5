#include "scheduler/scheduler_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "api/types/pod_run.h"

namespace etna::scheduler {
namespace {

using metrics::LabelValues;

// The gauge value of a resource dimension: cpu in millicores, memory in bytes, the others in
// Volcano's milli-units (whatever the fixed-point storage of the dimension).
double Milli(ResourceId id, int64_t amount) {
  return ResourceNames::Global().Unit(id) == ResourceUnit::kMilli ? static_cast<double>(amount)
                                                                  : amount * 1000.0;
}

}  // namespace

SchedulerMetrics::SchedulerMetrics(metrics::Registry* r)
    : e2e_(r->Histogram("volcano_e2e_scheduling_latency_milliseconds",
                        "E2e scheduling latency in milliseconds (scheduling algorithm + binding)",
                        {}, metrics::ExponentialBuckets(5, 2, 15))),
      action_(r->Histogram("volcano_action_scheduling_latency_milliseconds",
                           "Action scheduling latency in milliseconds", {"action"},
                           metrics::ExponentialBuckets(5, 2, 15))),
      plugin_(r->Histogram("volcano_plugin_scheduling_latency_milliseconds",
                           "Plugin scheduling latency in milliseconds", {"plugin", "OnSession"},
                           metrics::ExponentialBuckets(5, 2, 15))),
      task_latency_(r->Histogram("volcano_task_scheduling_latency_milliseconds",
                                 "Task scheduling latency in milliseconds (pod created to bound)",
                                 {}, metrics::ExponentialBuckets(5, 2, 15))),
      job_latency_(r->Histogram("volcano_e2e_job_scheduling_latency_milliseconds",
                                "E2e job scheduling latency in milliseconds (created to running)",
                                {}, metrics::ExponentialBuckets(32, 2, 10))),
      attempts_(r->Counter("volcano_schedule_attempts_total",
                           "Number of attempts to schedule jobs, by the result", {"result"})),
      preemption_attempts_(r->Counter("volcano_total_preemption_attempts",
                                      "Total preemption attempts in the cluster till now")),
      preemption_victims_(r->Gauge("volcano_pod_preemption_victims",
                                   "Number of selected preemption victims in the last cycle")),
      unschedulable_jobs_(
          r->Gauge("volcano_unschedule_job_count", "Number of jobs could not be scheduled")),
      unschedulable_tasks_(r->Gauge("volcano_unschedule_task_count",
                                    "Number of tasks could not be scheduled", {"job_id"})),
      share_(r->Gauge("volcano_queue_share", "Share for one queue", {"queue_name"})),
      weight_(r->Gauge("volcano_queue_weight", "Weight for one queue", {"queue_name"})),
      overused_(r->Gauge("volcano_queue_overused", "If one queue is overused", {"queue_name"})),
      pending_jobs_(r->Gauge("etna_queue_pending_jobs",
                             "Jobs of the queue that are not running yet and have pods waiting",
                             {"queue_name"})),
      oldest_pending_(r->Gauge("etna_queue_oldest_pending_job_seconds",
                               "Age of the queue's longest-waiting pending job (0: none)",
                               {"queue_name"})),
      gpu_seconds_(r->Counter("etna_gpu_seconds_total",
                              "GPU-seconds held by pods, by queue, namespace and GPU model (a MIG "
                              "instance as \"<model> MIG <profile>\", a share as its fraction)",
                              {"queue", "namespace", "model"})),
      usage_gpu_seconds_(r->Gauge("etna_queue_usage_gpu_seconds",
                                  "GPU-seconds the queue held, each second weighted by "
                                  "2^(-age/half-life) (fair share over time)",
                                  {"queue_name"})),
      fairshare_factor_(r->Gauge("etna_queue_fairshare_factor",
                                 "2^(-usage/share): 1 for a queue that used nothing, 0.5 for one "
                                 "that used exactly its share (when fair share is on)",
                                 {"queue_name"})) {
  for (const char* q : {"allocated", "request", "deserved", "capacity", "real_capacity"}) {
    std::string what = q;
    std::replace(what.begin(), what.end(), '_', ' ');
    quantities_[q] = {
        &r->Gauge(fmt::format("volcano_queue_{}_milli_cpu", q),
                  fmt::format("CPU {} for one queue, in millicores", what), {"queue_name"}),
        &r->Gauge(fmt::format("volcano_queue_{}_memory_bytes", q),
                  fmt::format("Memory {} for one queue, in bytes", what), {"queue_name"}),
        &r->Gauge(fmt::format("volcano_queue_{}_scalar_resources", q),
                  fmt::format("Scalar resources {} for one queue, in milli-units", what),
                  {"queue_name", "resource"})};
  }
}

void SchedulerMetrics::ObserveCycle(const sched::Snapshot& before, const sched::Decision& decision,
                                    double e2e_ms, TimeMs now_ms) {
  e2e_.Observe({}, e2e_ms);
  for (const auto& step : decision.timings.actions) action_.Observe({step.name}, step.ms);
  for (const auto& step : decision.timings.plugins) {
    plugin_.Observe({step.name, step.phase}, step.ms);
  }
  // Per job, its pods still waiting after this cycle's binds.
  std::vector<int> waiting(before.jobs.size(), 0);
  for (const sched::Task& t : before.tasks) {
    if (t.status == sched::TaskStatus::kPending && t.job >= 0 &&
        t.job < static_cast<sched::JobIdx>(waiting.size())) {
      ++waiting[t.job];
    }
  }
  for (const auto& bind : decision.binds) {
    if (bind.task < 0 || bind.task >= static_cast<sched::TaskIdx>(before.tasks.size())) continue;
    const sched::Task& t = before.tasks[bind.task];
    if (t.job >= 0 && t.job < static_cast<sched::JobIdx>(waiting.size())) --waiting[t.job];
    if (t.creation_ms > 0) {
      task_latency_.Observe({}, static_cast<double>(std::max<TimeMs>(0, now_ms - t.creation_ms)));
    }
  }
  std::set<std::string> preemptors;
  for (const auto& e : decision.evictions) {
    if (e.reason == "Preempted") preemptors.insert(e.preemptor_job_uid);
  }
  preemption_attempts_.Add({}, static_cast<double>(preemptors.size()));
  preemption_victims_.Set({}, static_cast<double>(decision.evictions.size()));

  for (const auto& u : decision.jobs) {
    if (u.job < 0 || u.job >= static_cast<sched::JobIdx>(before.jobs.size())) continue;
    const sched::Job& job = before.jobs[u.job];
    if (u.phase_changed && u.phase == sched::PodGroupPhase::kRunning && job.creation_ms > 0) {
      job_latency_.Observe({}, static_cast<double>(std::max<TimeMs>(0, now_ms - job.creation_ms)));
    }
    if (u.condition == "Scheduled") {
      attempts_.Add({"scheduled"});
      unschedulable_.erase(job.uid);
    } else if (u.condition == "Unschedulable") {
      attempts_.Add({"unschedulable"});
      unschedulable_[job.uid] = {job.ns + "/" + job.name, waiting[u.job]};
    }
  }
  std::set<std::string> present;
  for (const auto& job : before.jobs) present.insert(job.uid);
  std::map<LabelValues, double> tasks;
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
    if (!present.count(it->first) || it->second.second <= 0) {
      it = unschedulable_.erase(it);
      continue;
    }
    tasks[{it->second.first}] = it->second.second;
    ++it;
  }
  unschedulable_jobs_.Set({}, static_cast<double>(unschedulable_.size()));
  unschedulable_tasks_.ReplaceAll(std::move(tasks));
  ObserveQueues(before, decision, waiting, now_ms);
}

void SchedulerMetrics::ObserveQueues(const sched::Snapshot& before, const sched::Decision& decision,
                                     const std::vector<int>& waiting, TimeMs now_ms) {
  std::map<std::string, std::map<LabelValues, double>> cpu, memory, scalar;
  std::map<LabelValues, double> share, weight, overused, pending, oldest, usage, factor;
  int dims = ResourceNames::Global().size();
  for (const sched::QueueReport& q : decision.queues) {
    // A dimension without a limit is reported as the cluster's whole (real capability).
    auto bounded = [&](const ResourceLimit& limit) {
      ResourceVector v = q.real_capability;
      for (int d = 0; d < dims; ++d) {
        if (limit.Has(static_cast<ResourceId>(d))) v.Set(d, limit.value().Get(d));
      }
      return v;
    };
    const std::pair<const char*, ResourceVector> values[] = {
        {"allocated", q.allocated},
        {"request", q.request},
        {"deserved", q.deserved.empty() ? q.real_capability : bounded(q.deserved)},
        {"capacity", bounded(q.capability)},
        {"real_capacity", q.real_capability}};
    for (const auto& [name, v] : values) {
      cpu[name][{q.name}] = static_cast<double>(v.Get(kCpu));
      memory[name][{q.name}] = static_cast<double>(v.Get(kMemory));
      for (int d = 0; d < dims; ++d) {
        auto id = static_cast<ResourceId>(d);
        if (id == kCpu || id == kMemory || id == kPods) continue;
        scalar[name][{q.name, ResourceNames::Global().Name(id)}] = Milli(id, v.Get(id));
      }
    }
    share[{q.name}] = q.share;
    weight[{q.name}] = q.weight;
    overused[{q.name}] = q.overused ? 1 : 0;
    if (q.fairshare) factor[{q.name}] = q.fairshare_factor;
    pending[{q.name}] = 0;
    oldest[{q.name}] = 0;
  }
  for (const sched::Queue& q : before.queues) usage[{q.name}] = q.usage.UnitSeconds(kGpu);
  std::unordered_map<sched::JobIdx, sched::PodGroupPhase> phase_now;
  for (const auto& u : decision.jobs) phase_now[u.job] = u.phase;
  for (size_t j = 0; j < before.jobs.size(); ++j) {
    const sched::Job& job = before.jobs[j];
    if (job.queue == sched::kNone ||
        job.queue >= static_cast<sched::QueueIdx>(before.queues.size()))
      continue;
    auto it = phase_now.find(static_cast<sched::JobIdx>(j));
    sched::PodGroupPhase phase = it != phase_now.end() ? it->second : job.phase;
    if (phase != sched::PodGroupPhase::kPending && phase != sched::PodGroupPhase::kInqueue)
      continue;
    if (waiting[j] <= 0) continue;
    LabelValues queue = {before.queues[job.queue].name};
    pending[queue] += 1;
    double age = job.creation_ms > 0 ? std::max<TimeMs>(0, now_ms - job.creation_ms) / 1000.0 : 0;
    oldest[queue] = std::max(oldest[queue], age);
  }
  for (auto& [name, families] : quantities_) {
    families.milli_cpu->ReplaceAll(std::move(cpu[name]));
    families.memory_bytes->ReplaceAll(std::move(memory[name]));
    families.scalar->ReplaceAll(std::move(scalar[name]));
  }
  share_.ReplaceAll(std::move(share));
  weight_.ReplaceAll(std::move(weight));
  overused_.ReplaceAll(std::move(overused));
  pending_jobs_.ReplaceAll(std::move(pending));
  oldest_pending_.ReplaceAll(std::move(oldest));
  usage_gpu_seconds_.ReplaceAll(std::move(usage));
  fairshare_factor_.ReplaceAll(std::move(factor));
}

void SchedulerMetrics::CountGpuSeconds(const sched::Snapshot& snap, TimeMs now_ms) {
  if (gpu_seconds_at_ >= 0 && now_ms - gpu_seconds_at_ < kGpuSecondsPeriodMs) return;
  const TimeMs since = gpu_seconds_at_;
  gpu_seconds_at_ = now_ms;
  if (since < 0) return;
  // Summed under cheap keys first (the strings stay in the snapshot), labelled once at the end.
  struct Key {
    sched::QueueIdx queue;
    std::string_view ns;
    const std::string* model;
    const std::string* mig_profile;  // null: a whole GPU or a share
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<std::string_view>()(k.ns) ^ (std::hash<const void*>()(k.model) * 31) ^
             (std::hash<const void*>()(k.mig_profile) * 17) ^ static_cast<size_t>(k.queue);
    }
  };
  std::unordered_map<Key, double, KeyHash> held;
  for (const sched::Task& t : snap.tasks) {
    if (t.devices.empty() || t.node == sched::kNone || t.job == sched::kNone) continue;
    const bool holds =
        t.status == sched::TaskStatus::kBinding || t.status == sched::TaskStatus::kBound ||
        t.status == sched::TaskStatus::kRunning || t.status == sched::TaskStatus::kReleasing;
    const sched::QueueIdx queue = snap.jobs[t.job].queue;
    if (!holds || queue == sched::kNone) continue;
    const sched::Node& node = snap.nodes[t.node];
    for (const sched::DeviceAllocation& d : t.devices) {
      if (d.gpu < 0 || d.gpu >= static_cast<int32_t>(node.gpus.size())) continue;
      const sched::GpuDevice& gpu = node.gpus[d.gpu];
      if (d.mig_instance >= 0 && d.mig_instance < static_cast<int32_t>(gpu.mig.size())) {
        held[{queue, t.ns, &gpu.model, &gpu.mig[d.mig_instance].profile}] += 1;
      } else if (d.milli < 1000 || d.memory_mib > 0) {
        // As the bind annotations state it (bind_annotations.cc), so records and counter agree.
        const int32_t cores = d.cores_percent > 0 ? d.cores_percent : d.milli / 10;
        held[{queue, t.ns, &gpu.model, nullptr}] +=
            api::types::GpuShareFraction(cores, d.memory_mib, gpu.memory_mib);
      } else {
        held[{queue, t.ns, &gpu.model, nullptr}] += 1;
      }
    }
  }
  const double seconds = static_cast<double>(now_ms - since) / 1000.0;
  std::map<metrics::LabelValues, double> labelled;
  for (const auto& [k, gpus] : held) {
    labelled[{snap.queues[k.queue].name, std::string(k.ns),
              api::types::AccountedGpuModel(*k.model, k.mig_profile ? *k.mig_profile : "")}] +=
        gpus * seconds;
  }
  for (const auto& [labels, amount] : labelled) gpu_seconds_.Add(labels, amount);
}

}  // namespace etna::scheduler
