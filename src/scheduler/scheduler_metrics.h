// SchedulerMetrics: the scheduler's metrics under Volcano's names (docs/monitoring.md): cycle,
// action and plugin latency, task and job scheduling latency, schedule attempts, preemptions,
// unschedulable jobs and tasks, and per queue the allocated / request / deserved / capacity /
// real capacity gauges, share, weight and overused, plus etna's pending-job gauges per queue and
// fair share over time: the decayed GPU-seconds and, when a plugin keeps it, the factor; and
// accounting's etna_gpu_seconds_total{queue,namespace,model}: the GPU-seconds pods held, counted
// at most every kGpuSecondsPeriodMs for the time since the last count with what they hold then
// (a MIG instance under "<model> MIG <profile>", a share as the part of the device it holds:
// api/types/pod_run.h).
// Scalar resources are reported in milli-units as Volcano does (one GPU is 1000).
// Thread-safety: ObserveCycle from the scheduler's loop (one cycle at a time); the registry is
// rendered from any thread.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/metrics.h"
#include "sched/framework/decision.h"
#include "sched/model/snapshot.h"

namespace etna::scheduler {

class SchedulerMetrics {
 public:
  // Declares the families in `registry`, which must outlive this object.
  explicit SchedulerMetrics(metrics::Registry* registry);

  // One cycle: `before` holds the snapshot's jobs, queues and tasks (uid, job, request,
  // creation time, status) as the cycle started; `e2e_ms` is the whole cycle's time.
  void ObserveCycle(const sched::Snapshot& before, const sched::Decision& decision, double e2e_ms,
                    TimeMs now_ms);

  // The scrape interval Prometheus is usually given: counting more often would not show.
  static constexpr TimeMs kGpuSecondsPeriodMs = 15'000;
  // Adds what the tasks of the whole snapshot `snap` (with nodes and devices, before the cycle)
  // that hold devices held since the last count, when kGpuSecondsPeriodMs have passed. The first
  // call only starts the count.
  void CountGpuSeconds(const sched::Snapshot& snap, TimeMs now_ms);

 private:
  // `waiting`: per job of `before`, its pods still waiting after the cycle's binds.
  void ObserveQueues(const sched::Snapshot& before, const sched::Decision& decision,
                     const std::vector<int>& waiting, TimeMs now_ms);

  metrics::HistogramFamily& e2e_;
  metrics::HistogramFamily& action_;
  metrics::HistogramFamily& plugin_;
  metrics::HistogramFamily& task_latency_;
  metrics::HistogramFamily& job_latency_;
  metrics::CounterFamily& attempts_;
  metrics::CounterFamily& preemption_attempts_;
  metrics::GaugeFamily& preemption_victims_;
  metrics::GaugeFamily& unschedulable_jobs_;
  metrics::GaugeFamily& unschedulable_tasks_;
  metrics::GaugeFamily& share_;
  metrics::GaugeFamily& weight_;
  metrics::GaugeFamily& overused_;
  metrics::GaugeFamily& pending_jobs_;
  metrics::GaugeFamily& oldest_pending_;
  metrics::CounterFamily& gpu_seconds_;
  TimeMs gpu_seconds_at_ = -1;  // when CountGpuSeconds last counted
  metrics::GaugeFamily& usage_gpu_seconds_;
  metrics::GaugeFamily& fairshare_factor_;
  // By quantity ("allocated", "request", ...) the milli_cpu, memory_bytes and scalar families.
  struct QuantityFamilies {
    metrics::GaugeFamily* milli_cpu;
    metrics::GaugeFamily* memory_bytes;
    metrics::GaugeFamily* scalar;
  };
  std::map<std::string, QuantityFamilies> quantities_;
  // Jobs the last cycles left unschedulable: uid → ("namespace/name", pending tasks).
  std::map<std::string, std::pair<std::string, int>> unschedulable_;
};

}  // namespace etna::scheduler
