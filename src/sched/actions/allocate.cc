#include "sched/actions/allocate.h"

#include <fmt/format.h>

#include <algorithm>

#include "sched/actions/gang_placement.h"
#include "sched/actions/queue_job_order.h"
#include "sched/actions/reservation.h"
#include "sched/actions/topology_placement.h"
#include "sched/actions/zone_usage.h"
#include "sched/framework/session.h"
#include "sched/framework/statement.h"
#include "sched/framework/time_windows.h"

namespace etna::sched {

Result<std::unique_ptr<Action>> AllocateAction::Create(Arguments& args) {
  auto action = std::make_unique<AllocateAction>();
  int64_t feasible = action->placer_options_.feasible_nodes;
  ETNA_RETURN_IF_ERROR(args.GetInt("feasibleNodes", &feasible));
  if (feasible < 0) return Status::InvalidArgument("argument feasibleNodes: must be >= 0");
  action->placer_options_.feasible_nodes = static_cast<int>(feasible);
  ETNA_RETURN_IF_ERROR(args.GetDurationMs("backoff.initial", &action->backoff_.initial_ms));
  ETNA_RETURN_IF_ERROR(args.GetDurationMs("backoff.max", &action->backoff_.max_ms));
  if (action->backoff_.initial_ms <= 0 || action->backoff_.max_ms < action->backoff_.initial_ms) {
    return Status::InvalidArgument(
        "arguments backoff.initial and backoff.max: need 0 < initial <= max");
  }
  ETNA_RETURN_IF_ERROR(args.GetBool("reservation.enable", &action->reservation_.enabled));
  ETNA_RETURN_IF_ERROR(
      args.GetDurationMs("reservation.starvingAfter", &action->reservation_.starving_after_ms));
  int64_t min_tasks = action->reservation_.min_tasks;
  ETNA_RETURN_IF_ERROR(args.GetInt("reservation.minTasks", &min_tasks));
  action->reservation_.min_tasks = static_cast<int32_t>(min_tasks);
  int64_t max_jobs = action->reservation_.max_jobs;
  ETNA_RETURN_IF_ERROR(args.GetInt("reservation.maxJobs", &max_jobs));
  if (max_jobs < 0) return Status::InvalidArgument("argument reservation.maxJobs: must be >= 0");
  action->reservation_.max_jobs = static_cast<int32_t>(max_jobs);
  return std::unique_ptr<Action>(std::move(action));
}

void AllocateAction::Execute(Session& s) {
  s.backoff_policy() = backoff_;
  s.reservation_policy() = reservation_;
  const auto& actions = s.conf().actions;
  bool has_enqueue = std::find(actions.begin(), actions.end(), "enqueue") != actions.end();

  QueueJobOrder order(s);
  for (JobIdx j = 0; j < static_cast<JobIdx>(s.jobs().size()); ++j) {
    const Job& job = s.job(j);
    if (job.pending == 0 || job.queue == kNone || job.phase == PodGroupPhase::kCompleted) continue;
    if (job.phase == PodGroupPhase::kPending && has_enqueue) continue;
    if (const Queue& q = s.queue(job.queue); q.window.outside) {
      s.RecordUnschedulable(j, kOutsideTimeWindow, OutsideWindowMessage(q));
      continue;
    }
    if (job.phase == PodGroupPhase::kPending) {
      if (s.queue(job.queue).state != QueueState::kOpen) continue;
      s.SetJobPhase(j, PodGroupPhase::kInqueue);
    }
    if (auto invalid = s.JobValid(job)) {
      s.RecordUnschedulable(j, "NotEnoughTasks", *invalid);
      continue;
    }
    if (s.backoff_policy().Waiting(job.backoff, s.now(), s.capacity_generation())) continue;
    // Only BestEffort tasks left: backfill's work, not an attempt (Volcano skips such jobs).
    bool requesting = false;
    for (TaskIdx t : job.tasks) {
      requesting |= s.task(t).status == TaskStatus::kPending && !s.task(t).BestEffort();
    }
    if (!requesting) continue;
    order.Add(j);
  }

  order.Build();

  Placer placer(s, placer_options_);
  TopologyPlacement topology(s);  // jobs in hard network-topology mode
  ZoneUsage zones(s);             // jobs with minZoneUsage
  for (QueueIdx q = order.NextQueue(); q != kNone; q = order.NextQueue()) {
    if (s.Overused(s.queue(q))) {
      for (JobIdx j : order.Jobs(q)) {
        s.RecordUnschedulable(j, "QueueOverused",
                              fmt::format("queue {} is using its whole share ({})", s.queue(q).name,
                                          s.queue(q).allocated.ToString()));
      }
      order.Clear(q);
      continue;
    }
    JobIdx j = order.PopJob(q);

    Statement stmt(s);
    const bool hard = TopologyPlacement::Hard(s.job(j));
    auto place = [&](Statement& st) {
      return hard ? topology.Place(placer, st, j, PlaceOptions{})
                  : PlaceTasks(s, placer, st, j, PlaceOptions{});
    };
    PlaceResult r = ZoneUsage::Applies(s.job(j))
                        ? zones.Place(placer, stmt, j, /*zone_fill=*/!hard, place)
                        : place(stmt);
    GangOutcome outcome = Settle(s, stmt, j);
    if (outcome == GangOutcome::kDiscarded) {
      s.RecordAttempt(j, false);
      s.RecordUnschedulable(j, r.reason.empty() ? "NotEnoughResources" : r.reason,
                            r.message.empty() ? "no task could be placed" : r.message);
      continue;
    }
    s.RecordAttempt(j, true);
    if (outcome == GangOutcome::kCommitted && !r.blocked && r.unplaced > 0) {
      order.Push(j);
    }
  }

  // Admitted jobs that could not be placed give back their admission (Volcano #5006): they
  // return to Pending and enqueue re-admits them in priority order when room appears.
  if (has_enqueue) {
    for (JobIdx j = 0; j < static_cast<JobIdx>(s.jobs().size()); ++j) {
      const Job& job = s.job(j);
      if (job.phase == PodGroupPhase::kInqueue && s.Attempted(j) && job.occupied == 0 &&
          job.succeeded == 0 && !s.JobReady(job)) {
        bool placed_any = false;
        for (TaskIdx t : job.tasks) placed_any |= s.task(t).status != TaskStatus::kPending;
        if (!placed_any) s.SetJobPhase(j, PodGroupPhase::kPending);
      }
    }
  }

  // ---- Reservation for starving large jobs (actions/reservation.h) ----
  UpdateReservations(s, reservation_, placer);
}

}  // namespace etna::sched
