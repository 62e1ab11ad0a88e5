// Queue: a typed read view of a Volcano scheduling/v1beta1 Queue — its share (weight,
// priority, reclaimable), its resource limits (capability, deserved, guarantee in any of the
// forms admission accepts), its state and its parent in the hierarchy.
// Thread-safety: const reads of the JSON only.
#pragma once

#include <cstdint>
#include <string>

#include "api/types/object.h"

namespace etna::api::types {

class Queue : public ObjectView {
 public:
  using ObjectView::ObjectView;

  int64_t weight() const { return Integer(json(), {"spec", "weight"}, 1); }
  int64_t priority() const { return Integer(json(), {"spec", "priority"}); }
  // Whether other queues may reclaim what it borrowed; true when unset.
  bool reclaimable() const { return Bool(json(), {"spec", "reclaimable"}, true); }
  const Json& capability() const { return Object(json(), {"spec", "capability"}); }
  const Json& deserved() const { return Object(json(), {"spec", "deserved"}); }
  // The guarantee as one resource map, whether written as Volcano does (guarantee.resource),
  // flat, or with dotted `resource.<name>` keys; admission has checked the forms agree.
  Json Guarantee() const;
  // The effective state: status.state (the queue controller's), else spec.state, else "Open";
  // except that a spec.state of Closing or Closed wins over an empty or Open status (the user
  // closed it and the controller has not caught up yet). Admission and the scheduler both read
  // it.
  std::string State() const;
  // Whether jobs, PodGroups and pods of namespace `ns` may use it: spec.allowedNamespaces
  // (Volcano's field) lists `ns` or "*", or is unset or empty (every namespace).
  bool AdmitsNamespace(const std::string& ns) const;
  // spec.parent; "" when unset (a child of root, or root itself).
  std::string parent() const { return String(json(), {"spec", "parent"}); }
  // spec.timePolicies: [{weekdays, hours}] (common/time_window.h); empty when unset.
  const Json& time_policies() const { return Array(json(), {"spec", "timePolicies"}); }
  // spec.timePolicyAction: "KeepRunning" (the default) or "Suspend".
  std::string time_policy_action() const {
    return String(json(), {"spec", "timePolicyAction"}, "KeepRunning");
  }
  // status.timeWindow, as the scheduler writes it: outside every window at its last cycle
  // (false when the queue has none or the scheduler has not said), and when the next window
  // opens (RFC 3339 in the scheduler's zone; "" when unknown or none opens).
  bool outside_time_window() const { return !Bool(json(), {"status", "timeWindow", "open"}, true); }
  std::string next_window_open() const {
    return String(json(), {"status", "timeWindow", "nextOpen"});
  }
  // status.allocated, as the scheduler writes it (a resource list).
  const Json& allocated() const { return Object(json(), {"status", "allocated"}); }
  // status.usage, as the scheduler writes it (scheduler/queue_usage.h): decayed usage for fair
  // share over time.
  const Json& usage() const { return Object(json(), {"status", "usage"}); }
};

}  // namespace etna::api::types
