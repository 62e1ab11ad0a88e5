// backfill: places BestEffort (zero-request) pending tasks of admitted jobs, Volcano's backfill.
//
// Each BestEffort task goes to the best-scoring schedulable node whose predicates pass (through
// the Placer); there is no gang check and each task is committed on its own. Placement of
// requesting tasks onto capacity reserved for a starving job (Slurm-style backfill) is decided
// by Session::MayUseReserved, which every placement (allocate, and this action) goes through.
//
// Thread-safety: none; runs on the session's thread.
#pragma once

#include "sched/framework/plugin.h"
#include "sched/placement/placer.h"

namespace etna::sched {

class BackfillAction : public Action {
 public:
  static Result<std::unique_ptr<Action>> Create(Arguments& args);
  std::string_view name() const override { return "backfill"; }
  void Execute(Session& session) override;

 private:
  PlacerOptions placer_options_;
};

}  // namespace etna::sched
