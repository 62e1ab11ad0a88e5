// Gang placement: the all-or-nothing step shared by allocate, backfill and the victim search.
//
// PlaceTasks puts a job's pending tasks, in task order, into a statement (allocating on idle
// resources or pipelining onto releasing ones) until the job is ready or a task finds no room.
// Settle then applies the gang rule to the whole statement: ready → commit; enough tasks only
// with pipelining → commit nominations only (no member binds before all can); otherwise discard,
// so a partial gang never holds resources past its attempt.
#pragma once

#include <functional>
#include <string>

#include "sched/framework/session.h"
#include "sched/framework/statement.h"
#include "sched/placement/placer.h"

namespace etna::sched {

struct PlaceResult {
  int placed = 0;        // tasks allocated or pipelined by this attempt
  int unplaced = 0;      // pending tasks left without a node
  bool blocked = false;  // stopped by a task that found no node or a queue limit
  std::string reason;    // condition reason when blocked
  std::string message;   // what a person can act on
};

struct PlaceOptions {
  bool allow_pipeline = true;
  // Stop as soon as the job is ready (the caller re-queues it to interleave jobs fairly).
  bool stop_when_ready = true;
  // Skip queue Allocatable checks (reclaim and preempt decide entitlement themselves).
  bool skip_queue_check = false;
  // The node search for one task; null: Placer::FindNode over the placer's current filter.
  // (minZoneUsage's zone-by-zone candidate chooses the zone first.)
  std::function<Placer::Choice(TaskIdx task, bool allow_pipeline, FitErrors* errors)> find_node;
};

PlaceResult PlaceTasks(Session& session, Placer& placer, Statement& stmt, JobIdx job,
                       const PlaceOptions& options);

enum class GangOutcome { kCommitted, kPipelined, kDiscarded };

// Commits, converts to nominations, or discards `stmt` by the gang rule for `job`.
GangOutcome Settle(Session& session, Statement& stmt, JobIdx job);

}  // namespace etna::sched
