// Reservations in a session: the capacity the previous cycle reserved on nodes for starving
// jobs, marked on the nodes when the session opens, and the Slurm-style backfill rule for who
// else may use it (Volcano's reservation handling of session.go).
//
// Thread-safety: pure functions over the caller's snapshot.
#pragma once

#include "sched/model/snapshot.h"

namespace etna::sched {

// Marks `snap.reservations` on the nodes (reserved, reserved_for, reserved_start_ms), after
// the nodes' accounting is in place. The first claim on a node wins; the expected start is
// when every reserved node has room once the tasks that must leave it are gone (earliest
// expected end first); a task with no estimate never counts as leaving, and then the start is
// unknown (-1).
void MarkReservedNodes(Snapshot& snap);

// Whether `t` may use the capacity reserved on `n` for another job: its job has a running
// estimate and ends before the reservation's expected start.
bool MayUseReserved(const Snapshot& snap, const Task& t, const Node& n);

}  // namespace etna::sched
