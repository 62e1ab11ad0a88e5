// Queue time windows in the core (time_windows.h): the OutsideTimeWindow reason and Suspend.
#include "sched/framework/time_windows.h"

#include <vector>

#include "sched/framework/statement.h"

namespace etna::sched {

void SuspendOutsideTimeWindows(Session& s) {
  for (JobIdx j = 0; j < static_cast<JobIdx>(s.jobs().size()); ++j) {
    const Job& job = s.job(j);
    if (job.queue == kNone) continue;
    const Queue& q = s.queue(job.queue);
    if (!q.window.outside || !q.window.suspend) continue;
    Statement stmt(s);  // the whole job or nothing
    bool all = true;
    std::vector<TaskIdx> evicted;
    for (TaskIdx t : job.tasks) {
      TaskStatus status = s.task(t).status;
      if (!HoldsNode(status) || status == TaskStatus::kReleasing) continue;
      all &= stmt.Evict(t, kOutsideTimeWindow, OutsideWindowMessage(q), "").ok();
      evicted.push_back(t);
    }
    if (!all) continue;
    stmt.Commit();
    for (TaskIdx t : evicted) s.ExcludeFromPreemptionLimits(t);
  }
}

}  // namespace etna::sched
