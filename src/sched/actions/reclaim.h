// reclaim: evicts work of other, reclaimable queues for starving jobs whose queue is entitled
// (Session::Preemptive), including jobs still Pending at enqueue, through the shared victim search.
// The seed's limits and victim order come from the session's PreemptionPolicy (the
// `preemption` plugin). Takes no arguments. Thread-safety: none; runs on the session's thread.
#pragma once

#include "sched/framework/plugin.h"

namespace etna::sched {

class ReclaimAction : public Action {
 public:
  static Result<std::unique_ptr<Action>> Create(Arguments& args);
  std::string_view name() const override { return "reclaim"; }
  void Execute(Session& session) override;
};

}  // namespace etna::sched
