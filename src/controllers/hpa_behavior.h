// What the HorizontalPodAutoscaler does with a proposal before scaling, as
// kube-controller-manager's normalizeDesiredReplicasWithBehaviors:
//  1. Stabilization: the proposal is kept for the longer of the two windows; a scale-up takes
//     the lowest proposal of the scale-up window (0 s by default), a scale-down the highest of
//     the scale-down window (300 s by default), never moving past the current count.
//  2. Rate: the scaling policies bound how far the count moves per period, measured from the
//     count at the start of each policy's period (the rescales of the period undone);
//     selectPolicy Max takes the policy allowing the most change, Min the least, Disabled none.
//  3. Bounds: minReplicas and maxReplicas.
// The condition each step sets (AbleToScale: ScaleUpStabilized, ScaleDownStabilized or
// ReadyForNewScale; ScalingLimited: ScaleUpLimit, ScaleDownLimit, TooManyReplicas,
// TooFewReplicas or DesiredWithinRange) is returned with the count. The history lives in memory
// per HPA, as upstream keeps it: a controller restart forgets it.
// Thread-safety: none; one per HPA, used by the worker reconciling it.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "api/types/hpa.h"
#include "common/clock.h"

namespace etna::controllers {

struct HpaConditionUpdate {
  std::string reason;
  std::string message;
};

struct HpaNormalized {
  int32_t replicas = 0;
  HpaConditionUpdate able_to_scale;    // status True
  HpaConditionUpdate scaling_limited;  // status: limited
  bool limited = false;
};

class HpaScalingHistory {
 public:
  // The count to scale to from `current` given the metrics' `proposal`; records the proposal.
  HpaNormalized Normalize(const api::types::HpaBehavior& behavior, int32_t min_replicas,
                          int32_t max_replicas, int32_t current, int32_t proposal, TimeMs now);
  // Records a rescale from `from` to `to` at `now` (for the rate policies).
  void RecordScale(int32_t from, int32_t to, TimeMs now);

 private:
  struct Sample {
    TimeMs at = 0;
    int32_t replicas = 0;
  };
  struct Change {
    TimeMs at = 0;
    int32_t replicas = 0;  // added (scale-up events) or removed (scale-down events)
  };
  int32_t ChangeSince(const std::deque<Change>& events, TimeMs cutoff) const;
  int32_t ScaleUpLimit(const api::types::HpaScalingRules& rules, int32_t current, TimeMs now) const;
  int32_t ScaleDownLimit(const api::types::HpaScalingRules& rules, int32_t current,
                         TimeMs now) const;

  std::deque<Sample> recommendations_;
  std::deque<Change> ups_, downs_;
};

}  // namespace etna::controllers
