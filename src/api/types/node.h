// Node: a typed read view of a core/v1 Node — its Ready condition, taints, schedulability and
// addresses. Thread-safety: const reads of the JSON only.
#pragma once

#include <string>
#include <string_view>

#include "api/types/object.h"

namespace etna::api::types {

class Node : public ObjectView {
 public:
  using ObjectView::ObjectView;

  // The status of the (last) Ready condition: "True", "False", "Unknown"; "" when absent.
  std::string ReadyStatus() const;
  bool IsReady() const { return ReadyStatus() == "True"; }
  bool unschedulable() const { return Bool(json(), {"spec", "unschedulable"}); }
  const Json& taints() const { return Array(json(), {"spec", "taints"}); }
  bool HasTaint(std::string_view key) const;
  const Json& conditions() const { return Array(json(), {"status", "conditions"}); }
  const Json& allocatable() const { return Object(json(), {"status", "allocatable"}); }
  // The first status.addresses entry of `type` ("InternalIP"), "" when none.
  std::string Address(std::string_view type) const;
};

}  // namespace etna::api::types
