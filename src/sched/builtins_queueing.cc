// Built-in queueing actions and plugins.
#include "sched/actions/backfill.h"
#include "sched/actions/enqueue.h"
#include "sched/builtins.h"

namespace etna::sched {

void RegisterQueueingPlugins(Registry& r) {
  r.AddAction("enqueue", EnqueueAction::Create);
  r.AddAction("backfill", BackfillAction::Create);
}

}  // namespace etna::sched
