// enqueue: admits Pending PodGroups (Pending → Inqueue), Volcano's enqueue.
//
// Queues are visited round-robin in QueueOrder (re-evaluated after each job, since admission
// changes their share), jobs inside a queue in JobOrder. Only Open queues admit, and only inside
// their time windows (framework/time_windows.h). A job must pass
// JobValid; a job in backoff waits. A job moves when its minResources are empty or every
// JobEnqueueable voter permits; JobEnqueued then lets plugins count it. A job left Pending gets
// a reason naming its minResources and its queue.
//
// Thread-safety: none; runs on the session's thread.
#pragma once

#include "sched/framework/plugin.h"

namespace etna::sched {

class EnqueueAction : public Action {
 public:
  static Result<std::unique_ptr<Action>> Create(Arguments& args);
  std::string_view name() const override { return "enqueue"; }
  void Execute(Session& session) override;
};

}  // namespace etna::sched
