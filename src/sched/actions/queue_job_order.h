// QueueJobOrder: the visiting order enqueue and allocate share. Jobs are grouped per queue;
// each step takes the first queue by Session::CompareQueues among those with jobs left, and
// that queue's first job by Session::CompareJobs. Queues are compared afresh at every step, so
// a queue that just got resources (and whose share grew) falls back, as in Volcano.
//
// Thread-safety: none; lives inside one action run.
#pragma once

#include <vector>

#include "sched/framework/session.h"

namespace etna::sched {

class QueueJobOrder {
 public:
  explicit QueueJobOrder(Session& s) : s_(s), per_queue_(s.queues().size()) {}

  void Add(JobIdx j) { per_queue_[s_.job(j).queue].push_back(j); }
  // Call once after the Adds.
  void Build();
  // The next queue to serve, or kNone when every queue is empty.
  QueueIdx NextQueue() const;
  // Removes and returns the first job of queue `q` (which must have jobs).
  JobIdx PopJob(QueueIdx q);
  // Puts a job back (its order is evaluated again).
  void Push(JobIdx j);
  // The jobs left in queue `q`; Clear drops them.
  const std::vector<JobIdx>& Jobs(QueueIdx q) const { return per_queue_[q]; }
  void Clear(QueueIdx q) { per_queue_[q].clear(); }

 private:
  bool After(JobIdx a, JobIdx b) const { return s_.CompareJobs(s_.job(a), s_.job(b)) > 0; }

  Session& s_;
  std::vector<std::vector<JobIdx>> per_queue_;  // heaps by job order
};

}  // namespace etna::sched
