// preempt: evicts lower-priority work of the same queue (other jobs of lower priority, then
// lower-priority tasks of the same job) for starving jobs, through the shared victim search.
// The seed's limits and victim order come from the session's PreemptionPolicy (the
// `preemption` plugin). Takes no arguments. Thread-safety: none; runs on the session's thread.
#pragma once

#include "sched/framework/plugin.h"

namespace etna::sched {

class PreemptAction : public Action {
 public:
  static Result<std::unique_ptr<Action>> Create(Arguments& args);
  std::string_view name() const override { return "preempt"; }
  void Execute(Session& session) override;
};

}  // namespace etna::sched
