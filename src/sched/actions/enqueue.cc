#include "sched/actions/enqueue.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "sched/framework/session.h"

namespace etna::sched {
namespace {

const char* QueueStateName(QueueState s) {
  switch (s) {
    case QueueState::kOpen:
      return "Open";
    case QueueState::kClosing:
      return "Closing";
    case QueueState::kClosed:
      return "Closed";
  }
  return "Unknown";
}

}  // namespace

Result<std::unique_ptr<Action>> EnqueueAction::Create(Arguments& /*args*/) {
  return std::unique_ptr<Action>(new EnqueueAction());
}

void EnqueueAction::Execute(Session& s) {
  std::vector<std::vector<JobIdx>> per_queue(s.queues().size());
  for (JobIdx j = 0; j < static_cast<JobIdx>(s.jobs().size()); ++j) {
    const Job& job = s.job(j);
    if (job.phase != PodGroupPhase::kPending || job.queue == kNone) continue;
    const Queue& q = s.queue(job.queue);
    if (q.state != QueueState::kOpen) {
      s.RecordUnschedulable(
          j, "QueueNotOpen",
          fmt::format("queue {} is {} and admits no new jobs", q.name, QueueStateName(q.state)));
      continue;
    }
    if (auto invalid = s.JobValid(job)) {
      s.RecordUnschedulable(j, "NotEnoughTasks", *invalid);
      continue;
    }
    if (s.backoff_policy().Waiting(job.backoff, s.now(), s.capacity_generation())) continue;
    per_queue[job.queue].push_back(j);
  }

  auto job_after = [&](JobIdx a, JobIdx b) { return s.CompareJobs(s.job(a), s.job(b)) > 0; };
  for (auto& heap : per_queue) std::make_heap(heap.begin(), heap.end(), job_after);

  while (true) {
    QueueIdx q = kNone;
    for (QueueIdx i = 0; i < static_cast<QueueIdx>(per_queue.size()); ++i) {
      if (per_queue[i].empty()) continue;
      if (q == kNone || s.CompareQueues(s.queue(i), s.queue(q)) < 0) q = i;
    }
    if (q == kNone) break;
    auto& heap = per_queue[q];
    std::pop_heap(heap.begin(), heap.end(), job_after);
    JobIdx j = heap.back();
    heap.pop_back();

    const Job& job = s.job(j);
    if (job.min_resources.IsZero() || s.JobEnqueueable(job)) {
      s.JobEnqueued(job);
      s.SetJobPhase(j, PodGroupPhase::kInqueue);
      continue;
    }
    const Queue& queue = s.queue(q);
    s.RecordUnschedulable(
        j, "NotEnqueued",
        fmt::format("job {} (minResources {}) was not admitted to queue {}: the queue has no "
                    "room for it (allocated {}); it stays Pending until resources free up",
                    job.name, job.min_resources.ToString(), queue.name,
                    queue.allocated.ToString()));
  }
}

}  // namespace etna::sched
