#include "sched/actions/gang_placement.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace etna::sched {

PlaceResult PlaceTasks(Session& session, Placer& placer, Statement& stmt, JobIdx ji,
                       const PlaceOptions& options) {
  PlaceResult result;
  const Job& job = session.job(ji);
  const Queue& queue = session.queue(job.queue);
  std::vector<TaskIdx> pending = session.PendingTasks(job);
  for (size_t i = 0; i < pending.size(); ++i) {
    TaskIdx ti = pending[i];
    const Task& t = session.task(ti);
    if (t.BestEffort()) continue;  // backfill's work
    if (!options.skip_queue_check) {
      PredicateResult allowed = session.Allocatable(queue, t);
      if (!allowed.ok) {
        result.blocked = true;
        result.reason = "QueueLimit";
        result.message = allowed.reason;
        result.unplaced = static_cast<int>(pending.size() - i);
        break;
      }
    }
    FitErrors errors;  // filled only when no node is found
    Placer::Choice choice = options.find_node
                                ? options.find_node(ti, options.allow_pipeline, &errors)
                                : placer.FindNode(ti, options.allow_pipeline, &errors);
    if (!choice) {
      result.blocked = true;
      result.reason = "NotEnoughResources";
      result.unplaced = static_cast<int>(pending.size() - i);
      int ready = job.occupied + job.succeeded;
      result.message = fmt::format("{}/{} tasks in gang unschedulable: {}",
                                   std::max(0, job.min_available - ready),
                                   std::max(job.min_available, 1), errors.ToString());
      break;
    }
    Status s = choice.pipeline ? stmt.Pipeline(ti, choice.node) : stmt.Allocate(ti, choice.node);
    if (!s.ok()) {  // the placer and the statement disagree: treat as no room
      result.blocked = true;
      result.reason = "NotEnoughResources";
      result.message = s.message();
      result.unplaced = static_cast<int>(pending.size() - i);
      break;
    }
    ++result.placed;
    if (options.stop_when_ready && session.JobReady(job) && i + 1 < pending.size()) {
      result.unplaced = static_cast<int>(pending.size() - i - 1);
      break;
    }
  }
  return result;
}

GangOutcome Settle(Session& session, Statement& stmt, JobIdx ji) {
  const Job& job = session.job(ji);
  if (session.JobReady(job)) {
    stmt.Commit();
    return GangOutcome::kCommitted;
  }
  if (!stmt.empty() && session.JobPipelined(job)) {
    // Enough members fit once releasing resources are gone: nominate all of them, bind none.
    std::vector<std::pair<TaskIdx, NodeIdx>> placed;
    for (TaskIdx ti : job.tasks) {
      const Task& t = session.task(ti);
      if (t.status == TaskStatus::kAllocated || t.status == TaskStatus::kPipelined) {
        placed.emplace_back(ti, t.node);
      }
    }
    // Only the statement's own operations are undone; earlier holdings stay.
    stmt.Discard();
    Statement nominations(session);
    for (auto [ti, ni] : placed) {
      if (session.task(ti).status == TaskStatus::kPending) (void)nominations.Pipeline(ti, ni);
    }
    nominations.Commit();
    return GangOutcome::kPipelined;
  }
  stmt.Discard();
  return GangOutcome::kDiscarded;
}

}  // namespace etna::sched
