// Queue time windows in the core. The caller resolves each queue's spec.timePolicies against
// its clock and zone (Queue::window); the core only acts on the result:
//
// - A queue outside its windows starts no new work: enqueue admits none of its jobs, and
//   allocate, backfill, preempt, reclaim and reservations take none of its pending tasks (not
//   even those of its running elastic jobs). Its jobs get reason OutsideTimeWindow and the
//   message OutsideWindowMessage writes ("queue dev-test is outside its time windows (next
//   opens Mon 09:00)").
// - What runs keeps running, unless the queue asks to be suspended (spec.timePolicyAction
//   Suspend): then, before the actions, every task holding a node in its jobs is evicted
//   through the normal eviction path with that message, a whole job at a time, and the job is
//   requeued by its controller as after any eviction.
//
// Thread-safety: none; runs on the session's thread.
#pragma once

#include "sched/framework/session.h"

namespace etna::sched {

inline constexpr char kOutsideTimeWindow[] = "OutsideTimeWindow";

// Evicts the running jobs of suspended queues outside their windows (see above).
void SuspendOutsideTimeWindows(Session& session);

}  // namespace etna::sched
