#include "sched/framework/session_accounting.h"

#include <algorithm>
#include <utility>

#include "sched/framework/session_reservations.h"

namespace etna::sched {
namespace {

int FreeWholeGpus(const Node& n) {
  if (n.gpus.empty()) return static_cast<int>((n.allocatable.Get(kGpu) - n.used.Get(kGpu)) / 1000);
  int free = 0;
  for (const auto& g : n.gpus) free += g.WholeFree();
  return free;
}

// Adds (sign 1) or removes (sign -1) a task's device allocations to its node's devices.
void AccountDevices(Node& n, const std::vector<DeviceAllocation>& devices, int sign) {
  for (const auto& d : devices) {
    if (d.gpu < 0 || d.gpu >= static_cast<int32_t>(n.gpus.size())) continue;
    GpuDevice& g = n.gpus[d.gpu];
    g.used_milli += sign * d.milli;
    g.used_memory_mib += sign * d.memory_mib;
    if (d.mig_instance >= 0 && d.mig_instance < static_cast<int32_t>(g.mig.size())) {
      g.mig[d.mig_instance].used = sign > 0;
    }
  }
}

}  // namespace

SessionAccounting::SessionAccounting(Snapshot snapshot, const PluginDispatch& events)
    : snap_(std::move(snapshot)), events_(events) {
  job_evicted_.resize(snap_.jobs.size());
  RecomputeAccounting();
  MarkReservedNodes(snap_);
}

bool SessionAccounting::MayUseReserved(const Task& t, const Node& n) const {
  return etna::sched::MayUseReserved(snap_, t, n);
}

void SessionAccounting::RecomputeAccounting() {
  cluster_total_ = ResourceVector();
  total_releasing_ = ResourceVector();
  for (auto& n : snap_.nodes) {
    n.used = n.external_used;
    n.releasing = ResourceVector();
    n.pipelined = ResourceVector();
    n.tasks.clear();
    for (auto& g : n.gpus) {
      g.used_milli = 0;
      g.used_memory_mib = 0;
      for (auto& m : g.mig) m.used = false;
    }
    AccountDevices(n, n.external_devices, 1);
    if (n.ready) cluster_total_ += n.allocatable;
  }
  for (auto& q : snap_.queues) q.allocated = ResourceVector();
  for (auto& j : snap_.jobs) {
    j.allocated = ResourceVector();
    j.total_request = ResourceVector();
    j.occupied = j.pipelined = j.succeeded = j.pending = 0;
  }
  for (auto& t : snap_.tasks) {
    Job* job = t.job == kNone ? nullptr : &snap_.jobs[t.job];
    if (t.status == TaskStatus::kSucceeded) {
      if (job) ++job->succeeded;
      continue;
    }
    if (t.status == TaskStatus::kFailed || t.status == TaskStatus::kUnknown) continue;
    if (job) job->total_request += t.request;
    if (t.status == TaskStatus::kPending) {
      if (job) ++job->pending;
      continue;
    }
    if (t.node == kNone) continue;
    Node& n = snap_.nodes[t.node];
    n.tasks.push_back(IndexOf(t));
    if (t.status == TaskStatus::kPipelined) {
      n.pipelined += t.request;
    } else {
      n.used += t.request;
      if (t.status == TaskStatus::kReleasing) {
        n.releasing += t.request;
        total_releasing_ += t.request;
      }
      AccountDevices(n, t.devices, 1);
    }
    if (job && CountsForGang(t.status)) {
      ++job->occupied;
      if (t.status == TaskStatus::kPipelined) ++job->pipelined;
      job->allocated += t.request;
      if (job->queue != kNone) snap_.queues[job->queue].allocated += t.request;
    }
  }
  gpu_index_.Reset(static_cast<int>(snap_.nodes.size()));
  for (size_t i = 0; i < snap_.nodes.size(); ++i) {
    const Node& n = snap_.nodes[i];
    gpu_index_.Update(static_cast<int32_t>(i), FreeWholeGpus(n), Schedulable(n));
  }
}

void SessionAccounting::AccountAdd(Task& t, bool pipelined) {
  Node& n = snap_.nodes[t.node];
  n.tasks.push_back(IndexOf(t));
  if (pipelined) {
    n.pipelined += t.request;
  } else {
    n.used += t.request;
    AccountDevices(n, t.devices, 1);
  }
  if (t.job != kNone) {
    Job& j = snap_.jobs[t.job];
    ++j.occupied;
    if (pipelined) ++j.pipelined;
    --j.pending;
    j.allocated += t.request;
    if (j.queue != kNone) snap_.queues[j.queue].allocated += t.request;
  }
  gpu_index_.Update(t.node, FreeWholeGpus(n), Schedulable(n));
  node_change_log_.push_back(t.node);
  events_.FireAllocate(t);
}

void SessionAccounting::AccountRemove(Task& t, bool pipelined) {
  Node& n = snap_.nodes[t.node];
  auto it = std::find(n.tasks.begin(), n.tasks.end(), IndexOf(t));
  if (it != n.tasks.end()) n.tasks.erase(it);
  if (pipelined) {
    n.pipelined -= t.request;
  } else {
    n.used -= t.request;
    AccountDevices(n, t.devices, -1);
  }
  if (t.job != kNone) {
    Job& j = snap_.jobs[t.job];
    --j.occupied;
    if (pipelined) --j.pipelined;
    ++j.pending;
    j.allocated -= t.request;
    if (j.queue != kNone) snap_.queues[j.queue].allocated -= t.request;
  }
  gpu_index_.Update(t.node, FreeWholeGpus(n), Schedulable(n));
  node_change_log_.push_back(t.node);
  events_.FireDeallocate(t);
}

void SessionAccounting::ApplyAllocate(TaskIdx ti, NodeIdx ni,
                                      std::vector<DeviceAllocation> devices) {
  Task& t = snap_.tasks[ti];
  t.status = TaskStatus::kAllocated;
  t.node = ni;
  t.devices = std::move(devices);
  AccountAdd(t, /*pipelined=*/false);
}

void SessionAccounting::UndoAllocate(TaskIdx ti) {
  Task& t = snap_.tasks[ti];
  AccountRemove(t, /*pipelined=*/false);
  t.status = TaskStatus::kPending;
  t.node = kNone;
  t.devices.clear();
}

void SessionAccounting::ApplyPipeline(TaskIdx ti, NodeIdx ni) {
  Task& t = snap_.tasks[ti];
  t.status = TaskStatus::kPipelined;
  t.node = ni;
  AccountAdd(t, /*pipelined=*/true);
}

void SessionAccounting::UndoPipeline(TaskIdx ti) {
  Task& t = snap_.tasks[ti];
  AccountRemove(t, /*pipelined=*/true);
  t.status = TaskStatus::kPending;
  t.node = kNone;
}

// An evicted task keeps holding its node (used) until it is gone, but its resources count as
// releasing and it no longer counts toward its job or queue.
void SessionAccounting::ApplyEvict(TaskIdx ti) {
  Task& t = snap_.tasks[ti];
  Node& n = snap_.nodes[t.node];
  n.releasing += t.request;
  total_releasing_ += t.request;
  node_change_log_.push_back(t.node);
  t.status = TaskStatus::kReleasing;
  evicted_ += t.request;
  if (t.job != kNone) {
    job_evicted_[t.job] += t.request;
    Job& j = snap_.jobs[t.job];
    --j.occupied;
    j.allocated -= t.request;
    if (j.queue != kNone) snap_.queues[j.queue].allocated -= t.request;
  }
  events_.FireDeallocate(t);
}

void SessionAccounting::ExcludeFromPreemptionLimits(TaskIdx ti) {
  const Task& t = snap_.tasks[ti];
  evicted_ -= t.request;
  if (t.job != kNone) job_evicted_[t.job] -= t.request;
}

void SessionAccounting::UndoEvict(TaskIdx ti, TaskStatus previous) {
  Task& t = snap_.tasks[ti];
  Node& n = snap_.nodes[t.node];
  n.releasing -= t.request;
  total_releasing_ -= t.request;
  node_change_log_.push_back(t.node);
  t.status = previous;
  evicted_ -= t.request;
  if (t.job != kNone) {
    job_evicted_[t.job] -= t.request;
    Job& j = snap_.jobs[t.job];
    ++j.occupied;
    j.allocated += t.request;
    if (j.queue != kNone) snap_.queues[j.queue].allocated += t.request;
  }
  events_.FireAllocate(t);
}

TaskIdx SessionAccounting::AppendTask(Task task) {
  task.status = TaskStatus::kPending;
  task.node = kNone;
  task.devices.clear();
  TaskIdx ti = static_cast<TaskIdx>(snap_.tasks.size());
  if (task.job != kNone) {
    Job& j = snap_.jobs[task.job];
    j.tasks.push_back(ti);
    ++j.pending;
    j.total_request += task.request;
  }
  snap_.tasks.push_back(std::move(task));
  return ti;
}

void SessionAccounting::AbandonTask(TaskIdx ti) {
  Task& t = snap_.tasks[ti];
  if (t.status != TaskStatus::kPending) return;
  t.status = TaskStatus::kFailed;
  if (t.job != kNone) {
    Job& j = snap_.jobs[t.job];
    --j.pending;
    j.total_request -= t.request;
  }
}

JobIdx SessionAccounting::AppendJob(Job job) {
  job.allocated = ResourceVector();
  job.total_request = ResourceVector();
  job.occupied = job.pipelined = job.succeeded = job.pending = 0;
  job.tasks.clear();
  snap_.jobs.push_back(std::move(job));
  job_evicted_.emplace_back();
  return static_cast<JobIdx>(snap_.jobs.size() - 1);
}

}  // namespace etna::sched
