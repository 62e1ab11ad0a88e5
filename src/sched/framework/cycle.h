// RunCycle: one scheduling cycle, the whole public face of the core: a snapshot and a
// configuration in, a Decision out. Pure: no I/O, no clock but the snapshot's, deterministic.
// `monotonic_ms`, when given, is read only to fill Decision::timings (never to decide).
#pragma once

#include <functional>

#include "sched/framework/conf.h"
#include "sched/framework/decision.h"
#include "sched/framework/registry.h"
#include "sched/model/snapshot.h"

namespace etna::sched {

// `nodes_after`, when given, receives the snapshot's nodes as the cycle leaves them (names and
// devices as given, the session's accounting added), for a caller that needs them to act on the
// Decision without copying them first.
Result<Decision> RunCycle(Snapshot snapshot, const SchedulerConf& conf,
                          const Registry& registry = BuiltinRegistry(),
                          std::function<double()> monotonic_ms = {},
                          std::vector<Node>* nodes_after = nullptr);

}  // namespace etna::sched
