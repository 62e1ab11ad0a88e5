#include "sim/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <unordered_map>

#include "sched/fairness/fairshare.h"
#include "sched/framework/cycle.h"

namespace etna::sim {
namespace {

constexpr TimeMs kNever = std::numeric_limits<TimeMs>::max();

enum class JobState : uint8_t { kFuture, kWaiting, kRunning, kDone };

// Where one task of a job runs (nothing while the job waits).
struct TaskState {
  sched::NodeIdx node = sched::kNone;
  std::vector<sched::DeviceAllocation> devices;
};

// One trace job as the replay goes: waiting, running or done, its tasks' places, what the
// daemon would carry in its PodGroup (phase, backoff, what evictions took) and its outcome.
struct JobRun {
  const SimJob* job = nullptr;
  sched::QueueIdx queue = sched::kNone;
  JobState state = JobState::kFuture;
  std::shared_ptr<const sched::PodSpec> spec;
  std::vector<TaskState> tasks;
  TimeMs remaining_ms = 0;            // work left, from the last checkpoint
  TimeMs checkpoint_interval_ms = 0;  // the job's, else SimOptions' default; 0: none
  TimeMs run_start_ms = 0;
  int64_t run_generation = 0;  // tells a stale end (of a run that was preempted) apart
  sched::PodGroupPhase phase = sched::PodGroupPhase::kPending;
  sched::Backoff backoff;
  ResourceVector evicted_in_run;
  TimeMs evicted_since_ms = 0;
  JobOutcome outcome;
  // The work of the current run saved by its last checkpoint, at `now`.
  TimeMs CheckpointedMs(TimeMs now) const {
    if (checkpoint_interval_ms <= 0) return 0;
    return (now - run_start_ms) / checkpoint_interval_ms * checkpoint_interval_ms;
  }
  int32_t BoundTasks() const {
    int32_t n = 0;
    for (const TaskState& t : tasks) n += t.node != sched::kNone ? 1 : 0;
    return n;
  }
};

// A running job's end; stale once the run it ends was preempted (another generation).
struct End {
  TimeMs at;
  size_t job;
  int64_t generation;
  bool operator>(const End& o) const { return at != o.at ? at > o.at : job > o.job; }
};

// One replay: the event loop over arrivals, ends and cycles (see timeline.h). Single use.
class Simulation {
 public:
  Simulation(const std::vector<sched::Node>& nodes, const std::vector<sched::Queue>& queues,
             const sched::SchedulerConf& conf, const SimOptions& options)
      : nodes_(nodes), queues_(queues), conf_(conf), options_(options) {}

  Result<SimResult> Run(const std::vector<SimJob>& jobs);

 private:
  Status Prepare(const std::vector<SimJob>& jobs);
  // Accrues the queues' usage and takes the samples due up to `t`.
  void AdvanceTo(TimeMs t);
  void WantCycle(TimeMs t) { next_cycle_ms_ = std::min(next_cycle_ms_, std::max(t, earliest_)); }
  Status Cycle(TimeMs now);
  // `task_owner[t]`: the job and task index of snapshot task t; `job_owner[j]`: the job of
  // snapshot job j.
  sched::Snapshot BuildSnapshot(TimeMs now, std::vector<std::pair<size_t, int32_t>>* task_owner,
                                std::vector<size_t>* job_owner);
  void Start(size_t j, TimeMs now);
  void Stop(size_t j, TimeMs now);  // preempted: back to waiting
  void Free(JobRun& r);
  Sample TakeSample(TimeMs t) const;
  bool AnyWaiting() const { return waiting_ > 0; }

  const std::vector<sched::Node>& nodes_;
  const std::vector<sched::Queue>& queues_;
  const sched::SchedulerConf& conf_;
  SimOptions options_;
  TimeMs half_life_ms_ = sched::kDefaultUsageHalfLifeMs;
  std::unordered_map<std::string, sched::NodeIdx> node_index_;
  std::vector<JobRun> runs_;
  std::vector<size_t> arrivals_;  // job indices by submit time
  size_t next_arrival_ = 0;
  std::priority_queue<End, std::vector<End>, std::greater<>> ends_;
  std::vector<sched::DecayedUsage> usage_;
  std::vector<ResourceVector> held_;  // per queue, by running and bound tasks
  std::vector<double> deserved_gpu_milli_;
  TimeMs accrued_to_ = 0;
  TimeMs next_sample_ms_ = 0;
  TimeMs next_cycle_ms_ = kNever;
  TimeMs earliest_ = 0;  // no cycle before this (the last cycle + the period)
  uint64_t capacity_generation_ = 1;
  int32_t waiting_ = 0;
  int64_t cluster_gpu_milli_ = 0;
  SimResult result_;
};

Status Simulation::Prepare(const std::vector<SimJob>& jobs) {
  auto fairshare = sched::fairness::FairshareOf(conf_);
  if (!fairshare.ok()) return fairshare.status();
  half_life_ms_ = fairshare->half_life_ms;  // usage is kept (and reported) even when off
  std::unordered_map<std::string, sched::QueueIdx> queue_index;
  for (size_t q = 0; q < queues_.size(); ++q) {
    queue_index[queues_[q].name] = static_cast<sched::QueueIdx>(q);
    result_.queue_names.push_back(queues_[q].name);
  }
  for (size_t n = 0; n < nodes_.size(); ++n) {
    node_index_[nodes_[n].name] = static_cast<sched::NodeIdx>(n);
    cluster_gpu_milli_ += nodes_[n].allocatable.Get(kGpu);
  }
  usage_.assign(queues_.size(), {});
  held_.assign(queues_.size(), {});
  deserved_gpu_milli_.assign(queues_.size(), 0);
  runs_.resize(jobs.size());
  std::unordered_map<std::string, size_t> names;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const SimJob& job = jobs[j];
    if (!names.emplace(job.name, j).second) {
      return Status::InvalidArgument(fmt::format("job {}: the name appears twice", job.name));
    }
    auto q = queue_index.find(job.queue);
    if (q == queue_index.end()) {
      return Status::InvalidArgument(
          fmt::format("job {}: queue \"{}\" is not among the queues", job.name, job.queue));
    }
    if (job.tasks < 1) {
      return Status::InvalidArgument(fmt::format("job {}: tasks must be at least 1", job.name));
    }
    if (job.duration_ms < 0 || job.submit_ms < 0) {
      return Status::InvalidArgument(
          fmt::format("job {}: submit and duration must not be negative", job.name));
    }
    JobRun& r = runs_[j];
    r.job = &job;
    r.queue = q->second;
    r.tasks.resize(static_cast<size_t>(job.tasks));
    r.remaining_ms = job.duration_ms;
    r.checkpoint_interval_ms = job.checkpoint_interval_ms > 0
                                   ? job.checkpoint_interval_ms
                                   : options_.default_checkpoint_interval_ms;
    if (!job.gpu_models.empty()) {
      auto spec = std::make_shared<sched::PodSpec>();
      spec->gpu_models = job.gpu_models;
      r.spec = std::move(spec);
    }
    r.outcome.name = job.name;
    r.outcome.queue = job.queue;
    r.outcome.gpus_milli = static_cast<int32_t>(job.request.Get(kGpu) * job.tasks);
    r.outcome.submit_ms = job.submit_ms;
    arrivals_.push_back(j);
  }
  std::stable_sort(arrivals_.begin(), arrivals_.end(),
                   [&](size_t a, size_t b) { return jobs[a].submit_ms < jobs[b].submit_ms; });
  return Status::Ok();
}

void Simulation::AdvanceTo(TimeMs t) {
  while (next_sample_ms_ <= t) {
    result_.samples.push_back(TakeSample(next_sample_ms_));
    next_sample_ms_ += options_.sample_period_ms;
  }
  if (t > accrued_to_) {
    for (size_t q = 0; q < usage_.size(); ++q) {
      usage_[q].Accrue(held_[q], t - accrued_to_, half_life_ms_);
    }
    accrued_to_ = t;
  }
}

Sample Simulation::TakeSample(TimeMs t) const {
  Sample s;
  s.time_ms = t;
  s.cluster_gpu_milli = cluster_gpu_milli_;
  s.queues.resize(queues_.size());
  for (size_t q = 0; q < queues_.size(); ++q) {
    s.queues[q].allocated_gpu_milli = held_[q].Get(kGpu);
    s.queues[q].deserved_gpu_milli = deserved_gpu_milli_[q];
    s.allocated_gpu_milli += held_[q].Get(kGpu);
  }
  for (const JobRun& r : runs_) {
    if (r.state == JobState::kWaiting) ++s.queues[r.queue].pending_jobs;
    if (r.state == JobState::kRunning) ++s.queues[r.queue].running_jobs;
  }
  return s;
}

sched::Snapshot Simulation::BuildSnapshot(TimeMs now,
                                          std::vector<std::pair<size_t, int32_t>>* task_owner,
                                          std::vector<size_t>* job_owner) {
  sched::Snapshot snap;
  snap.now_ms = now;
  snap.capacity_generation = capacity_generation_;
  snap.nodes = nodes_;
  snap.queues = queues_;
  for (size_t q = 0; q < queues_.size(); ++q) snap.queues[q].usage = usage_[q];
  for (size_t j = 0; j < runs_.size(); ++j) {
    JobRun& r = runs_[j];
    if (r.state != JobState::kWaiting && r.state != JobState::kRunning) continue;
    const SimJob& job = *r.job;
    sched::Job sj;
    sj.uid = sj.name = job.name;
    sj.ns = "sim";
    sj.queue = r.queue;
    sj.min_available = job.tasks;
    sj.priority = job.priority;
    sj.creation_ms = job.submit_ms;
    sj.phase = r.phase;
    sj.backoff = r.backoff;
    sj.evicted_in_run = r.evicted_in_run;
    sj.evicted_since_ms = r.evicted_since_ms;
    const auto ji = static_cast<sched::JobIdx>(snap.jobs.size());
    for (int32_t i = 0; i < job.tasks; ++i) {
      const TaskState& ts = r.tasks[static_cast<size_t>(i)];
      sched::Task t;
      t.uid = t.name = fmt::format("{}-{}", job.name, i);
      t.ns = "sim";
      t.job = ji;
      t.request = job.request;
      t.spec = r.spec;
      t.priority = job.priority;
      t.creation_ms = job.submit_ms;
      if (ts.node != sched::kNone) {
        t.status = sched::TaskStatus::kRunning;
        t.node = ts.node;
        t.devices = ts.devices;
        t.start_ms = r.run_start_ms;
        if (r.checkpoint_interval_ms > 0 && r.state == JobState::kRunning) {
          t.last_checkpoint_ms = r.run_start_ms + r.CheckpointedMs(now);
        }
      }
      sj.tasks.push_back(static_cast<sched::TaskIdx>(snap.tasks.size()));
      task_owner->push_back({j, i});
      snap.tasks.push_back(std::move(t));
    }
    snap.jobs.push_back(std::move(sj));
    job_owner->push_back(j);
  }
  return snap;
}

void Simulation::Start(size_t j, TimeMs now) {
  JobRun& r = runs_[j];
  r.state = JobState::kRunning;
  --waiting_;
  r.run_start_ms = now;
  ++r.run_generation;
  if (r.outcome.first_start_ms < 0) r.outcome.first_start_ms = now;
  ends_.push({now + r.remaining_ms, j, r.run_generation});
  ++result_.events;
}

void Simulation::Free(JobRun& r) {
  for (TaskState& t : r.tasks) {
    if (t.node != sched::kNone) held_[r.queue] -= r.job->request;
    t = TaskState{};
  }
  ++capacity_generation_;
}

void Simulation::Stop(size_t j, TimeMs now) {
  JobRun& r = runs_[j];
  if (r.state == JobState::kRunning) {
    const TimeMs kept = r.CheckpointedMs(now);
    r.outcome.lost_work_ms += now - r.run_start_ms - kept;
    r.remaining_ms -= kept;
    ++r.run_generation;  // its pending end is stale now
    r.state = JobState::kWaiting;
    ++waiting_;
  }
  ++r.outcome.preemptions;
  r.phase = sched::PodGroupPhase::kPending;
  Free(r);
  ++result_.events;
}

Status Simulation::Cycle(TimeMs now) {
  ++result_.cycles;
  next_cycle_ms_ = kNever;
  earliest_ = now + options_.cycle_period_ms;
  std::vector<std::pair<size_t, int32_t>> owner;
  std::vector<size_t> job_owner;
  sched::Snapshot snap = BuildSnapshot(now, &owner, &job_owner);
  auto decision = sched::RunCycle(std::move(snap), conf_, sched::BuiltinRegistry());
  if (!decision.ok()) return decision.status().WithContext(fmt::format("cycle at {} ms", now));
  // One report per snapshot queue, in order: the snapshot's queues are queues_.
  for (size_t i = 0; i < decision->queues.size() && i < queues_.size(); ++i) {
    const ResourceLimit& deserved = decision->queues[i].deserved;
    deserved_gpu_milli_[i] =
        static_cast<double>(deserved.Has(kGpu) ? deserved.value().Get(kGpu) : cluster_gpu_milli_);
  }
  for (const sched::JobUpdate& u : decision->jobs) {
    if (u.job < 0 || static_cast<size_t>(u.job) >= job_owner.size()) continue;
    size_t j = job_owner[static_cast<size_t>(u.job)];
    JobRun& r = runs_[j];
    r.phase = u.phase;
    r.backoff = u.backoff;
    if (u.evicted_in_run_changed) {
      r.evicted_in_run = u.evicted_in_run;
      r.evicted_since_ms = u.evicted_since_ms;
    }
  }
  std::vector<bool> stopped(runs_.size(), false);
  for (const sched::EvictDecision& e : decision->evictions) {
    if (e.task < 0 || static_cast<size_t>(e.task) >= owner.size()) continue;
    size_t j = owner[static_cast<size_t>(e.task)].first;
    if (!stopped[j]) Stop(j, now);
    stopped[j] = true;
  }
  std::vector<size_t> touched;
  for (const sched::BindDecision& b : decision->binds) {
    if (b.task < 0 || static_cast<size_t>(b.task) >= owner.size()) continue;
    auto [j, i] = owner[static_cast<size_t>(b.task)];
    if (stopped[j]) continue;
    auto n = node_index_.find(b.node);
    if (n == node_index_.end()) continue;
    JobRun& r = runs_[j];
    TaskState& ts = r.tasks[static_cast<size_t>(i)];
    if (ts.node != sched::kNone) continue;
    ts.node = n->second;
    ts.devices = b.devices;
    held_[r.queue] += r.job->request;
    touched.push_back(j);
  }
  bool half_bound = false;
  for (size_t j : touched) {
    JobRun& r = runs_[j];
    if (r.state != JobState::kWaiting) continue;
    if (r.BoundTasks() == r.job->tasks) {
      Start(j, now);
    } else {
      half_bound = true;
    }
  }
  // Another cycle soon when this one made progress that a later one completes: evictions whose
  // preemptors bind next, or binds that left a gang (or a pipelined task) waiting. A cycle that
  // changed nothing waits for the next event, so the replay always ends.
  const bool progress_pending =
      !decision->evictions.empty() ||
      (!touched.empty() && (half_bound || !decision->nominations.empty()));
  if (progress_pending) WantCycle(earliest_);
  return Status::Ok();
}

Result<SimResult> Simulation::Run(const std::vector<SimJob>& jobs) {
  ETNA_RETURN_IF_ERROR(Prepare(jobs));
  if (arrivals_.empty()) return result_;
  const TimeMs start = jobs[arrivals_.front()].submit_ms;
  result_.start_ms = start;
  accrued_to_ = start;
  next_sample_ms_ = start;
  earliest_ = start;
  for (;;) {
    TimeMs t_arrival =
        next_arrival_ < arrivals_.size() ? jobs[arrivals_[next_arrival_]].submit_ms : kNever;
    while (!ends_.empty() && runs_[ends_.top().job].run_generation != ends_.top().generation) {
      ends_.pop();  // the run it ended was preempted
    }
    TimeMs t_end = ends_.empty() ? kNever : ends_.top().at;
    TimeMs t = std::min({t_arrival, t_end, next_cycle_ms_});
    if (t == kNever) break;
    AdvanceTo(t);
    while (!ends_.empty() && ends_.top().at <= t) {
      End e = ends_.top();
      ends_.pop();
      JobRun& r = runs_[e.job];
      if (r.run_generation != e.generation) continue;
      r.state = JobState::kDone;
      r.outcome.end_ms = t;
      r.remaining_ms = 0;
      Free(r);
      ++result_.events;
      if (AnyWaiting()) WantCycle(t);
    }
    while (next_arrival_ < arrivals_.size() && jobs[arrivals_[next_arrival_]].submit_ms <= t) {
      runs_[arrivals_[next_arrival_++]].state = JobState::kWaiting;
      ++waiting_;
      ++result_.events;
      WantCycle(t);
    }
    if (next_cycle_ms_ <= t) ETNA_RETURN_IF_ERROR(Cycle(t));
    result_.end_ms = t;
  }
  AdvanceTo(result_.end_ms);
  result_.samples.push_back(TakeSample(result_.end_ms));
  for (JobRun& r : runs_) result_.jobs.push_back(r.outcome);
  return std::move(result_);
}

}  // namespace

std::string SecondsText(TimeMs ms) {
  if (ms % 1000 == 0) return std::to_string(ms / 1000);
  return fmt::format("{:.3f}", static_cast<double>(ms) / 1000);
}

Result<SimResult> Simulate(const std::vector<sched::Node>& nodes,
                           const std::vector<sched::Queue>& queues,
                           const sched::SchedulerConf& conf, const std::vector<SimJob>& jobs,
                           const SimOptions& options) {
  if (options.cycle_period_ms <= 0 || options.sample_period_ms <= 0) {
    return Status::InvalidArgument("the cycle and sample periods must be positive");
  }
  Simulation sim(nodes, queues, conf, options);
  return sim.Run(jobs);
}

std::string JobsCsv(const SimResult& result) {
  std::string out = "name,queue,gpus,submit_s,start_s,end_s,wait_s,jct_s,preemptions,lost_work_s\n";
  auto rel = [&](TimeMs t) { return t < 0 ? std::string() : SecondsText(t - result.start_ms); };
  auto span = [](TimeMs d) { return d < 0 ? std::string() : SecondsText(d); };
  for (const JobOutcome& j : result.jobs) {
    out += fmt::format("{},{},{:g},{},{},{},{},{},{},{}\n", j.name, j.queue, j.gpus_milli / 1000.0,
                       rel(j.submit_ms), rel(j.first_start_ms), rel(j.end_ms), span(j.WaitMs()),
                       span(j.JctMs()), j.preemptions, SecondsText(j.lost_work_ms));
  }
  return out;
}

std::string SeriesCsv(const SimResult& result) {
  std::string out = "time_s,queue,allocated_gpus,deserved_gpus,pending_jobs,running_jobs\n";
  for (const Sample& s : result.samples) {
    const std::string t = SecondsText(s.time_ms - result.start_ms);
    for (size_t q = 0; q < s.queues.size(); ++q) {
      const Sample::QueueState& qs = s.queues[q];
      out += fmt::format("{},{},{:g},{:g},{},{}\n", t, result.queue_names[q],
                         qs.allocated_gpu_milli / 1000.0, qs.deserved_gpu_milli / 1000.0,
                         qs.pending_jobs, qs.running_jobs);
    }
    int pending = 0, running = 0;
    for (const auto& qs : s.queues) {
      pending += qs.pending_jobs;
      running += qs.running_jobs;
    }
    out += fmt::format("{},*,{:g},{:g},{},{}\n", t, s.allocated_gpu_milli / 1000.0,
                       s.cluster_gpu_milli / 1000.0, pending, running);
  }
  return out;
}

}  // namespace etna::sim
