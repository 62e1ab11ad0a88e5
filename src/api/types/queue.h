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
  // spec.parent; "" when unset (a child of root, or root itself).
  std::string parent() const { return String(json(), {"spec", "parent"}); }
};

}  // namespace etna::api::types
