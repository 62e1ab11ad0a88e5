// Reservation for starving large jobs (Slurm's backfill with reservation), used by allocate.
//
// After allocate has placed what it can, UpdateReservations decides which reservations carry
// into the next cycle: a reservation is kept while its job is still starving (its gang is not
// ready) and its nodes are schedulable; a large job (at least ReservationPolicy::min_tasks
// tasks) pending longer than starving_after_ms since creation and not placed this cycle gets
// new ones. Nodes are chosen deterministically: schedulable, not reserved for another job, with
// the most idle+releasing resources first (ties: node order), until their allocatable holds
// the members the gang still needs. At most ReservationPolicy::max_jobs jobs hold reservations,
// the first in job order, so the cost stays bounded however many jobs starve. The session marks
// reserved capacity on the nodes at open (Node::reserved); other jobs may use it only when
// Session::MayUseReserved allows.
//
// Thread-safety: none; runs on the session's thread.
#pragma once

#include <vector>

#include "sched/framework/policies.h"
#include "sched/framework/session.h"
#include "sched/placement/placer.h"

namespace etna::sched {

// Nodes (and amounts) that could hold the members `job` still needs, or empty when they
// cannot. `order` lists candidate nodes, most room first; `available[n]` false: skip node n.
std::vector<std::pair<NodeIdx, ResourceVector>> ChooseReservedNodes(
    Session& session, Placer& placer, JobIdx job, const std::vector<NodeIdx>& order,
    const std::vector<bool>& available);

// Computes the next cycle's reservations and hands them to Session::SetReservations.
void UpdateReservations(Session& session, const ReservationPolicy& policy, Placer& placer);

}  // namespace etna::sched
