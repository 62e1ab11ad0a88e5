#include "sched/actions/backfill.h"

#include "sched/framework/session.h"
#include "sched/framework/statement.h"

namespace etna::sched {

Result<std::unique_ptr<Action>> BackfillAction::Create(Arguments& args) {
  auto action = std::make_unique<BackfillAction>();
  int64_t feasible = action->placer_options_.feasible_nodes;
  ETNA_RETURN_IF_ERROR(args.GetInt("feasibleNodes", &feasible));
  if (feasible < 0) return Status::InvalidArgument("argument feasibleNodes: must be >= 0");
  action->placer_options_.feasible_nodes = static_cast<int>(feasible);
  return std::unique_ptr<Action>(std::move(action));
}

void BackfillAction::Execute(Session& s) {
  Placer placer(s, placer_options_);
  for (JobIdx j = 0; j < static_cast<JobIdx>(s.jobs().size()); ++j) {
    const Job& job = s.job(j);
    if (job.pending == 0 || job.queue == kNone) continue;
    if (s.queue(job.queue).window.outside) continue;  // allocate or enqueue already said why
    if (job.phase == PodGroupPhase::kPending || job.phase == PodGroupPhase::kCompleted) continue;
    if (s.JobValid(job)) continue;  // allocate or enqueue already said why
    bool only_best_effort = true;
    for (TaskIdx ti : job.tasks) only_best_effort &= s.task(ti).BestEffort();
    bool any_tried = false, all_placed = true;
    for (TaskIdx ti : s.PendingTasks(job)) {
      if (!s.task(ti).BestEffort()) continue;
      any_tried = true;
      FitErrors errors;  // filled only when no node is found
      Placer::Choice choice = placer.FindNode(ti, /*allow_pipeline=*/false, &errors);
      Statement stmt(s);
      if (choice && stmt.Allocate(ti, choice.node).ok()) {
        stmt.Commit();
        continue;
      }
      all_placed = false;
      s.RecordUnschedulable(j, "NotEnoughResources",
                            "best-effort task " + s.task(ti).name + ": " + errors.ToString());
    }
    if (any_tried && only_best_effort) s.RecordAttempt(j, all_placed);
  }
}

}  // namespace etna::sched
