// The time-aware replay: a job trace run in virtual time through the same scheduling core
// (sched::RunCycle) and the same configuration the daemon reads. Jobs arrive at their submit
// time, wait, start when the cycle binds their whole gang, run for their duration and end;
// a job whose task is evicted (preempted or reclaimed) stops whole, goes back to waiting and
// loses the work done since its last checkpoint (none without a checkpoint interval).
//
// Cycles run at the events — arrivals and ends, those within `cycle_period_ms` of each other
// sharing one cycle — and every `cycle_period_ms` after an eviction until the preemptors start
// (the core evicts in one cycle and binds in a later one). Between events nothing in the cluster
// changes but the queues' decayed usage, which is accrued over virtual time with
// DecayedUsage::Accrue (the daemon's function) and read at the next cycle. No wall-clock waits:
// the whole run is a loop over events.
//
// Deterministic: the same inputs give the same outputs, byte for byte.
// Thread-safety: Simulate is reentrant.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "sched/framework/conf.h"
#include "sched/model/snapshot.h"

namespace etna::sim {

// One job of a trace: `tasks` identical tasks started together (a gang).
struct SimJob {
  std::string name;
  std::string queue = "default";
  TimeMs submit_ms = 0;
  TimeMs duration_ms = 0;  // the work: how long it runs uninterrupted
  int32_t tasks = 1;
  ResourceVector request;               // per task (GPUs in milli: one GPU is 1000)
  std::vector<std::string> gpu_models;  // allowed models; empty: any
  int32_t priority = 0;
  TimeMs checkpoint_interval_ms = 0;  // 0: a preempted job starts over
};

struct SimOptions {
  TimeMs cycle_period_ms = 10'000;
  TimeMs default_checkpoint_interval_ms = 0;  // for jobs whose checkpoint_interval_ms is 0
  // The time series' period: a sample of the state at the start and every period after, and one
  // at the end.
  TimeMs sample_period_ms = 3'600'000;
};

// What happened to one job.
struct JobOutcome {
  std::string name;
  std::string queue;
  int32_t gpus_milli = 0;  // per job (all tasks)
  TimeMs submit_ms = 0;
  TimeMs first_start_ms = -1;  // -1: never started
  TimeMs end_ms = -1;          // -1: never finished
  int32_t preemptions = 0;
  TimeMs lost_work_ms = 0;  // work redone after preemptions
  TimeMs WaitMs() const { return first_start_ms < 0 ? -1 : first_start_ms - submit_ms; }
  TimeMs JctMs() const { return end_ms < 0 ? -1 : end_ms - submit_ms; }
};

// The state of the cluster at one moment.
struct Sample {
  TimeMs time_ms = 0;
  int64_t cluster_gpu_milli = 0;
  int64_t allocated_gpu_milli = 0;
  struct QueueState {
    int64_t allocated_gpu_milli = 0;
    // From the last cycle's fair-share plugin; the cluster's GPUs when it bounds none, 0 before
    // the first cycle.
    double deserved_gpu_milli = 0;
    int32_t pending_jobs = 0;
    int32_t running_jobs = 0;
  };
  std::vector<QueueState> queues;  // in SimResult::queue_names order
};

struct SimResult {
  std::vector<JobOutcome> jobs;  // in trace order
  std::vector<std::string> queue_names;
  std::vector<Sample> samples;
  int64_t cycles = 0;
  int64_t events = 0;  // arrivals, starts, ends and evictions
  TimeMs start_ms = 0, end_ms = 0;
};

// Runs `jobs` on `nodes` (their allocatable and GPU devices) with `queues` (weights, limits,
// hierarchy; every job's queue must be among them) under `conf`. Jobs that can never start
// (nothing left to wait for) are reported with first_start_ms -1.
Result<SimResult> Simulate(const std::vector<sched::Node>& nodes,
                           const std::vector<sched::Queue>& queues,
                           const sched::SchedulerConf& conf, const std::vector<SimJob>& jobs,
                           const SimOptions& options = {});

// Milliseconds as the CSVs write seconds: "12" when whole, else "12.345".
std::string SecondsText(TimeMs ms);

// Per-job CSV: name,queue,gpus,submit_s,start_s,end_s,wait_s,jct_s,preemptions,lost_work_s
// (times in seconds from the first submit; empty when it never started or ended).
std::string JobsCsv(const SimResult& result);
// Time series CSV: time_s,queue,allocated_gpus,deserved_gpus,pending_jobs,running_jobs, one row
// per sample and queue, then rows of queue "*" with the cluster's GPUs in deserved_gpus.
std::string SeriesCsv(const SimResult& result);

}  // namespace etna::sim
