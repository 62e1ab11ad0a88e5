// allocate: gang-aware placement of pending tasks of admitted jobs (Volcano's allocate).
//
// Queues are visited in QueueOrder (an overused queue is skipped), jobs inside a queue in
// JobOrder; each job's tasks are placed by PlaceTasks and settled by the gang rule. A job that
// became ready with tasks left is pushed back so that jobs interleave by fair share. Jobs in
// backoff are skipped until their delay passes or capacity grows. When `enqueue` is not
// configured, pending jobs are admitted here.
//
// Arguments (under `configurations: - name: allocate`):
//   feasibleNodes     candidates scored per task (default 100; 0 = all)
//   backoff.initial   first retry delay (default 1s)      backoff.max   cap (default 5m)
//   reservation.enable, reservation.starvingAfter (5m), reservation.minTasks (2),
//   reservation.maxJobs (8: how many starving jobs may hold reservations at once)
#pragma once

#include "sched/framework/plugin.h"
#include "sched/placement/placer.h"

namespace etna::sched {

class AllocateAction : public Action {
 public:
  static Result<std::unique_ptr<Action>> Create(Arguments& args);
  std::string_view name() const override { return "allocate"; }
  void Execute(Session& session) override;

 private:
  PlacerOptions placer_options_;
  BackoffPolicy backoff_;
  ReservationPolicy reservation_;
};

}  // namespace etna::sched
