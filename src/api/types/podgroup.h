// PodGroup: a typed read view of a Volcano scheduling/v1beta1 PodGroup — its gang size, queue,
// phase and conditions, its running estimate and what evictions took in its current run.
// Thread-safety: const reads of the JSON only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/types/object.h"
#include "api/types/well_known.h"

namespace etna::api::types {

class PodGroup : public ObjectView {
 public:
  using ObjectView::ObjectView;

  int64_t min_member() const { return Integer(json(), {"spec", "minMember"}); }
  // spec.minAvailable (the gang size it may run with); minMember when unset.
  int64_t MinAvailable() const { return Integer(json(), {"spec", "minAvailable"}, min_member()); }
  std::string queue() const { return String(json(), {"spec", "queue"}, "default"); }
  // status.phase; "Pending" when unset.
  std::string phase() const { return String(json(), {"status", "phase"}, "Pending"); }
  const Json& conditions() const { return Array(json(), {"status", "conditions"}); }
  // spec.runningEstimate (etna: copied from the Job's), a Go duration; "" when unset.
  std::string running_estimate() const { return String(json(), {"spec", "runningEstimate"}); }
  // status.evictedInRun (well_known.h), as the scheduler writes it; {} when unset.
  const Json& evicted_in_run() const {
    return Object(json(), {"status", kEvictedInRunStatusField});
  }
  // The first condition whose reason is `reason` (WaitTimeout), or nullptr.
  const Json* ConditionWithReason(std::string_view reason) const;
};

}  // namespace etna::api::types
