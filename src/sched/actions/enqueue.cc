#include "sched/actions/enqueue.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "sched/actions/queue_job_order.h"
#include "sched/framework/session.h"
#include "sched/framework/time_windows.h"

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
  QueueJobOrder order(s);
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
    if (q.window.outside) {
      s.RecordUnschedulable(j, kOutsideTimeWindow, OutsideWindowMessage(q));
      continue;
    }
    if (auto invalid = s.JobValid(job)) {
      s.RecordUnschedulable(j, "NotEnoughTasks", *invalid);
      continue;
    }
    if (s.backoff_policy().Waiting(job.backoff, s.now(), s.capacity_generation())) continue;
    order.Add(j);
  }

  order.Build();
  for (QueueIdx q = order.NextQueue(); q != kNone; q = order.NextQueue()) {
    JobIdx j = order.PopJob(q);
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
