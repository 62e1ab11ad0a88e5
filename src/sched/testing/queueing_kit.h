// Test kit for the queueing actions: a minimal queue-quota plugin (so enqueue's admission can
// be tested without the fairness plugins), running a cycle with a custom registry, feeding a
// decision back into the snapshot to simulate several cycles, and a byte-exact rendering of a
// decision for determinism checks.
//
// Thread-safety: none; test code.
#pragma once

#include <string>
#include <string_view>

#include "sched/framework/decision.h"
#include "sched/framework/registry.h"
#include "sched/model/snapshot.h"

namespace etna::sched::testkit {

// The built-ins plus plugin `test-quota`: a queue admits (JobEnqueueable) a job while its
// allocated resources plus the minResources of its admitted-but-not-running jobs stay within
// the queue's capability, and allocates (Allocatable) within the capability.
const Registry& QuotaRegistry();

// Applies a decision as the cluster would: binds start running at snapshot.now_ms on the named
// devices, evicted tasks end (their pods come back pending), job phases, backoff and what
// evictions took in the job's run are written back, reservations carried.
void ApplyDecision(const Decision& d, Snapshot& s);

// Every field of the decision, in order, as text.
std::string DecisionString(const Decision& d);

}  // namespace etna::sched::testkit
