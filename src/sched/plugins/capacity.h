// capacity: elastic queue quotas from deserved / capability / guarantee (Volcano's capacity
// plugin), with weighted deserved shares where a queue names no deserved.
//
// Real capability: min(capability, parent's real capability − the siblings' guarantees), the
// cluster total standing for the root's (so flat queues get min(capability, total − the other
// queues' guarantees)).
// Deserved: an explicit `deserved` wins (dimensions it does not name are unbounded for reclaim
// and Preemptive). Every other queue gets Volcano proportion's weighted water-filling
// (fairness::WaterFill) among its siblings: its guarantee, plus a share of what is left of the
// parent's deserved (the cluster total at the root) after the siblings' guarantees and explicit
// deserved, in proportion to spec.weight, each queue's share bounded by its real capability and
// its subtree's request (allocated + pending) less its guarantee. So the siblings' deserved sum
// to the parent's when demand is high (Volcano's max(guarantee, weighted share) can overshoot).
// That deserved bounds every dimension. (Volcano HEAD's capacity plugin falls back to the
// guarantee and ignores weight; etna's default configuration relies on the weighted share.)
//   QueueOrder: spec priority (higher first), then allocated/deserved share (lower first).
//   Allocatable: allocated + request ≤ real capability on the requested dimensions, for the queue
//     and (hierarchy) each ancestor, whose allocation counts every descendant.
//   Preemptive: allocated + request ≤ deserved. Reclaimable: only from reclaimable queues above
//     deserved, never below it (victims already chosen are counted).
//   JobEnqueueable: min_resources + allocated + inqueue ≤ real capability (queue and ancestors).
// No Overused: as in Volcano, a queue may use idle capacity past deserved up to its capability;
// reclaim takes it back down to deserved.
//
// enableHierarchy: queues form a tree through Queue::parent (kNone = child of the root); queue
// order compares the ancestors at the first level where two queues' chains differ. Without it
// parents are ignored.
//
// Arguments: `fairshare` and `fairshare.halfLife` (fairness/fairshare.h, on in etna's default
// configuration): the weighted water-fill uses weight · F, the factor of each queue's decayed
// usage (its subtree's under a hierarchy), and equal shares order the queue with the larger
// weight · F first. Guarantees and explicit deserved stay as written.
// Thread-safety: none; built per session.
#pragma once

#include <memory>
#include <vector>

#include "common/resource.h"
#include "sched/fairness/fairshare.h"
#include "sched/fairness/queue_tree.h"
#include "sched/framework/plugin.h"
#include "sched/framework/session.h"

namespace etna::sched {

class CapacityPlugin : public Plugin {
 public:
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  CapacityPlugin(bool hierarchy, fairness::FairshareOptions fairshare)
      : hierarchy_(hierarchy), fairshare_(fairshare) {}
  std::string_view name() const override { return "capacity"; }
  void OnSessionOpen(Session& session) override;

 private:
  struct Attr {
    ResourceLimit deserved;
    ResourceVector real_capability;
    ResourceVector inqueue;   // of the subtree
    int32_t fill_weight = 1;  // weight, or weight · F with fair share on
  };
  void ComputeAttrs(Session& s);
  // Explicit deserved, else the weighted water-fill among siblings (see the header comment).
  void ComputeDeserved(const Session& s);
  void Register(Session& s);
  // Failure for the first of q and its ancestors that `request` on top of the subtree's allocation
  // (and inqueue part, when asked) would take past its real capability.
  PredicateResult CheckCapability(const Session& s, QueueIdx q, const ResourceVector& request,
                                  bool with_inqueue) const;

  bool hierarchy_;
  fairness::FairshareOptions fairshare_;
  std::vector<Attr> attrs_;
  std::unique_ptr<fairness::QueueTree> tree_;
};

}  // namespace etna::sched
