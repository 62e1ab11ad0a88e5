// Cycle-wide policies that several actions share. Defaults are the seed's rules (docs/design.md);
// plugins (`preemption`) and action arguments (`allocate`) adjust them at session open.
#pragma once

#include <cstdint>

#include "common/clock.h"
#include "sched/model/snapshot.h"

namespace etna::sched {

// Exponential retry delay for jobs that could not be placed.
struct BackoffPolicy {
  TimeMs initial_ms = 1'000;
  TimeMs max_ms = 300'000;

  // True while the job must not be tried: inside its delay and nothing that could help it has
  // changed since its last failure.
  bool Waiting(const Backoff& b, TimeMs now, uint64_t generation) const {
    return b.failures > 0 && now < b.not_before_ms && generation == b.capacity_generation;
  }
  Backoff AfterFailure(const Backoff& b, TimeMs now, uint64_t generation) const {
    Backoff next;
    next.failures = b.failures + 1;
    next.delay_ms = b.delay_ms == 0 ? initial_ms : std::min(max_ms, b.delay_ms * 2);
    next.not_before_ms = now + next.delay_ms;
    next.capacity_generation = generation;
    return next;
  }
};

// Which running task goes first when several could make room.
enum class VictimOrder : uint8_t {
  kLongestRunning,  // the task that has run longest goes first (the seed's rule)
  kLeastWorkLost,   // the task with the most recent checkpoint goes first
};

struct PreemptionPolicy {
  bool require_higher_priority = true;  // victim job priority < preemptor job priority
  // Of each resource of the cluster, per cycle: preempt and reclaim of one cycle share it.
  double max_cluster_fraction = 0.30;
  // Of a victim job's requested resources, over its current run (Job::evicted_in_run: from its
  // first eviction until it is whole again), when members above minAvailable are taken.
  double max_job_fraction = 0.50;
  VictimOrder victim_order = VictimOrder::kLongestRunning;
  // When no member above minAvailable can make room, evict whole lower-priority gangs (the
  // job is stopped and waits Pending as a whole; beyond max_job_fraction, within the cluster
  // limit). A gang whose minAvailable equals its replicas can be preempted only this way.
  bool whole_gang = true;
};

// Reservation for starving large jobs (Slurm-style backfill with reservation).
struct ReservationPolicy {
  bool enabled = true;
  TimeMs starving_after_ms = 300'000;  // pending this long (and large) → reserve
  int32_t min_tasks = 2;               // only gangs at least this big are "large"
  int32_t max_jobs = 8;                // at most this many jobs hold reservations at once
};

}  // namespace etna::sched
