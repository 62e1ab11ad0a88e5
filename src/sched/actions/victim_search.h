// Victim search: the one algorithm behind `preempt` and `reclaim`, parameterised by an
// eligibility policy (who may evict, which running tasks are candidates, which plugins vote).
//
// For each starving preemptor job (queue order, then job order), all inside one Statement:
// every pending task, in task order, is placed without eviction when a node has (future) room;
// otherwise each schedulable node that passes the task's predicates is planned: candidate
// victims are taken in victim order, re-voted by the plugins after every pick (state changes,
// e.g. a gang's spare members), within the per-cycle limits of the PreemptionPolicy, until the
// task fits the node's future idle resources; surplus picks are dropped again. The node with the
// least important, then fewest, victims wins; its victims are evicted and the task is pipelined
// there (nodes known to hold no plan for the task's class are skipped: actions/no_plan_memo.h).
// Limits: the cluster's share counts every eviction of the cycle (preempt and reclaim
// together); a job's share counts what it lost in its current run (Job::evicted_in_run) too.
// With `wholeGang` (the default), a lower-priority gang is evicted whole when nothing else makes
// room: gangs in the seed's order (same queue, lowest priority; other queues, lowest queue
// priority; then longest-running or least-work-lost, as the cycle began: the order is built once
// per search), every member at once, beyond the per-job limit but within the cluster's. The
// statement is committed only when the preemptor job is then pipelined (its gang is satisfied, and
// its PodGroup minZoneUsage holds: actions/zone_usage.h), otherwise everything is discarded, so no
// eviction outlives a failed attempt.
//
// Thread-safety: none; runs on the session's thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sched/framework/session.h"
#include "sched/placement/placer.h"

namespace etna::sched {

struct EligibilityPolicy {
  std::string_view action;  // "preempt" | "reclaim"
  std::string_view reason;  // eviction condition reason: "Preempted" | "Reclaimed"
  // Also admit Pending-phase jobs of open queues (Volcano #4679: a job blocked at enqueue must
  // still be able to reclaim; and allocate returns an admitted job it could not place to Pending
  // (Volcano #5006), so preempt must take Pending jobs too or it never runs for a new job).
  bool admit_pending_jobs = false;
  // ... only when their queue is not overused (reclaim: taking from other queues needs room
  // in the preemptor's share; preempt stays inside one queue, so its use does not change).
  bool pending_needs_share = false;
  // Skip preemptors whose queue is overused.
  bool skip_overused_queues = false;
  // Victims come only from the preemptor's own queue (preempt); otherwise from other queues,
  // whose shares the votes read (reclaim).
  bool victims_in_own_queue = false;
  // Whether the preemptor task may evict at all (reclaim: its queue is entitled).
  std::function<bool(const Session&, const Task& preemptor)> entitled;
  // Whether a running task is a candidate victim before the plugins vote.
  std::function<bool(const Session&, const PreemptionPolicy&, const Task& preemptor,
                     const Task& victim)>
      candidate;
  // The plugins' vote (Session::Preemptable or Session::Reclaimable); nullopt: none allowed.
  std::function<std::optional<std::vector<TaskIdx>>(const Session&, const Task& preemptor,
                                                    const std::vector<TaskIdx>& candidates,
                                                    EvictionScope scope)>
      vote;
  // The rule an eviction applies, for its message.
  std::function<std::string(const Session&, const Task& preemptor, const Task& victim)> rule;
};

// Same queue: other jobs of lower priority, and lower-priority tasks of the same job.
EligibilityPolicy PreemptEligibility();
// Other, reclaimable queues, for preemptors whose queue is entitled (Session::Preemptive).
EligibilityPolicy ReclaimEligibility();

void RunVictimSearch(Session& session, const EligibilityPolicy& eligibility,
                     const PlacerOptions& placer_options);

}  // namespace etna::sched
