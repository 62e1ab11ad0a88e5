// SessionAccounting: the session's working copy of the snapshot and the accounting derived from
// it (node used/releasing/pipelined, GPU devices in use, job and queue allocation, the free-GPU
// index, what was evicted this cycle, the node change log).
//
// Everyone reads it through const access. Only a Statement changes task placements (the
// mutation primitives are private, Statement is the friend), and every change keeps the
// accounting in step and fires the plugins' event handlers. The phase set by enqueue and the
// simulator's appends are the only other changes.
//
// Thread-safety: none. Lives on the session's thread for one cycle.
#pragma once

#include <vector>

#include "sched/framework/session_plugins.h"
#include "sched/model/snapshot.h"
#include "sched/placement/free_gpu_index.h"

namespace etna::sched {

class Statement;

class SessionAccounting {
 public:
  SessionAccounting(const SessionAccounting&) = delete;
  SessionAccounting& operator=(const SessionAccounting&) = delete;

  TimeMs now() const { return snap_.now_ms; }
  uint64_t capacity_generation() const { return snap_.capacity_generation; }
  const std::vector<Node>& nodes() const { return snap_.nodes; }
  const std::vector<Job>& jobs() const { return snap_.jobs; }
  const std::vector<Task>& tasks() const { return snap_.tasks; }
  const std::vector<Queue>& queues() const { return snap_.queues; }
  const std::vector<Reservation>& reservations() const { return snap_.reservations; }
  const std::vector<HyperNode>& hypernodes() const { return snap_.hypernodes; }
  const Node& node(NodeIdx i) const { return snap_.nodes[i]; }
  // Hands the nodes over once the session is closed (RunCycle's nodes_after); the session must
  // not be used again.
  std::vector<Node> ReleaseNodes() { return std::move(snap_.nodes); }
  const Job& job(JobIdx i) const { return snap_.jobs[i]; }
  const Task& task(TaskIdx i) const { return snap_.tasks[i]; }
  const Queue& queue(QueueIdx i) const { return snap_.queues[i]; }
  TaskIdx IndexOf(const Task& t) const { return static_cast<TaskIdx>(&t - snap_.tasks.data()); }
  JobIdx IndexOf(const Job& j) const { return static_cast<JobIdx>(&j - snap_.jobs.data()); }
  QueueIdx IndexOf(const Queue& q) const { return static_cast<QueueIdx>(&q - snap_.queues.data()); }
  NodeIdx IndexOf(const Node& n) const { return static_cast<NodeIdx>(&n - snap_.nodes.data()); }

  // Sum of allocatable over ready nodes.
  const ResourceVector& cluster_total() const { return cluster_total_; }
  // Nodes that can take new work (ready, not cordoned).
  static bool Schedulable(const Node& n) { return n.ready && !n.unschedulable; }
  const FreeGpuIndex& free_gpu_index() const { return gpu_index_; }
  // Resources of tasks being evicted or terminating, cluster-wide.
  const ResourceVector& total_releasing() const { return total_releasing_; }
  // Resources evicted so far this session (tentative or committed), cluster-wide and per job,
  // by every eviction action of the cycle together (preempt and reclaim share one budget); the
  // per-cycle cluster limit is measured against the first, the per-run job limit adds the job's
  // evicted_in_run to the second.
  const ResourceVector& evicted_this_cycle() const { return evicted_; }
  const ResourceVector& evicted_this_cycle(JobIdx j) const { return job_evicted_[j]; }
  // Takes a committed eviction out of those counts: a queue suspended outside its time windows
  // is not preemption, so it neither spends the cycle's budget nor counts as the job's loss.
  void ExcludeFromPreemptionLimits(TaskIdx ti);
  // Every node changed so far this session, in order (with repeats); placement caches replay
  // the part they have not seen.
  const std::vector<NodeIdx>& node_change_log() const { return node_change_log_; }
  // Whether `t` may use the capacity reserved on `n` for another job (session_reservations.h).
  bool MayUseReserved(const Task& t, const Node& n) const;

  // Phase set by enqueue (or demotion back to Pending).
  void SetJobPhase(JobIdx j, PodGroupPhase phase) { snap_.jobs[j].phase = phase; }

 protected:
  // Takes the snapshot, derives the accounting from it and marks its reservations on the nodes;
  // `events` receives every placement change.
  SessionAccounting(Snapshot snapshot, const PluginDispatch& events);
  ~SessionAccounting() = default;

  const Snapshot& snapshot() const { return snap_; }
  const std::vector<ResourceVector>& evicted_by_job() const { return job_evicted_; }

  // Incremental use (simulators): appends a job or a pending task, keeping the accounting in
  // step. The task's `job` must already exist. Indices stay valid; references into tasks() may
  // not.
  JobIdx AppendJob(Job job);
  TaskIdx AppendTask(Task task);
  // Gives up on a pending task that fits nowhere: it becomes Failed and leaves its job's
  // pending count and request.
  void AbandonTask(TaskIdx t);

 private:
  friend class Statement;
  // Mutation primitives, for Statement only.
  void ApplyAllocate(TaskIdx t, NodeIdx n, std::vector<DeviceAllocation> devices);
  void UndoAllocate(TaskIdx t);
  void ApplyPipeline(TaskIdx t, NodeIdx n);
  void UndoPipeline(TaskIdx t);
  void ApplyEvict(TaskIdx t);
  void UndoEvict(TaskIdx t, TaskStatus previous);

  void RecomputeAccounting();
  void AccountAdd(Task& t, bool pipelined);
  void AccountRemove(Task& t, bool pipelined);

  Snapshot snap_;
  const PluginDispatch& events_;
  ResourceVector cluster_total_;
  FreeGpuIndex gpu_index_;
  ResourceVector total_releasing_;
  ResourceVector evicted_;
  std::vector<ResourceVector> job_evicted_;
  std::vector<NodeIdx> node_change_log_;
};

}  // namespace etna::sched
