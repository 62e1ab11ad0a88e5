// Queue quota math shared by the proportion and capacity plugins: real capability, Volcano's
// iterative weighted water-filling of the cluster among queues, and the per-dimension checks
// behind Allocatable / Preemptive / Reclaimable. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/resource.h"
#include "sched/framework/session.h"

namespace etna::sched::fairness {

// min(capability, max(0, total − total_guarantee) + guarantee) per dimension; dimensions the
// capability does not name are bounded only by the second term. `total_guarantee` includes
// `guarantee` itself, so this is "total minus the other queues' guarantees".
ResourceVector RealCapability(const ResourceVector& total, const ResourceVector& total_guarantee,
                              const ResourceLimit& guarantee, const ResourceLimit& capability);

struct WaterFillQueue {
  int32_t weight = 1;              // <= 0 counts as 1
  ResourceVector request;          // allocated + pending
  ResourceVector real_capability;  // from RealCapability
  ResourceVector guarantee;        // unnamed dimensions 0
};

// Volcano proportion's deserved shares, run per dimension: each pass adds remaining × w / Σw
// (over queues not yet met) to every such queue, clamps to min(real capability, request), raises
// to the guarantee, and marks the queue met when it reached its clamp. Passes stop when nothing
// is left, every queue is met, or a pass hands out nothing (integer floors).
std::vector<ResourceVector> WaterFill(const ResourceVector& total,
                                      const std::vector<WaterFillQueue>& queues);

// Dimensions the request asks for (> 0) where used + request exceeds limit.
uint32_t ExceedOnRequest(const ResourceVector& used, const ResourceVector& request,
                         const ResourceVector& limit);
// Same against a limit that leaves some dimensions unbounded.
uint32_t ExceedOnRequest(const ResourceVector& used, const ResourceVector& request,
                         const ResourceLimit& limit);

// "queue q1: nvidia.com/gpu would exceed its deserved share (allocated 8, request 1, deserved 8)"
// for the first dimension in `mask`; `what` names the limit ("deserved share", "capability").
std::string DescribeExceed(std::string_view queue, std::string_view what, std::string_view label,
                           uint32_t mask, const ResourceVector& used, const ResourceVector& request,
                           const ResourceVector& limit);

// Whether a queue using `allocated` (victims chosen so far already removed) may give up `victim`
// to reclaim: in some dimension the victim uses and `deserved` bounds, the queue stays at or above
// its deserved amount after losing it (so it is above deserved now). Unbounded dimensions never
// qualify.
bool CanGiveUp(const ResourceVector& allocated, const ResourceLimit& deserved,
               const ResourceVector& victim);

// The reclaim vote of the queue-share plugins: the candidates (in order) that reclaimable queues
// can give up one after another by CanGiveUp, starting from `allocation(q)` and `deserved(q)`.
std::vector<sched::TaskIdx> ReclaimableVictims(
    const sched::Session& s, const std::vector<sched::TaskIdx>& candidates,
    const std::function<ResourceVector(sched::QueueIdx)>& allocation,
    const std::function<ResourceLimit(sched::QueueIdx)>& deserved);

}  // namespace etna::sched::fairness
