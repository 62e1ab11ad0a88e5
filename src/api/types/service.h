// Service: a typed read view of a core/v1 Service — the pods it selects and the ports it
// publishes, as the endpoints controller (controllers/endpoints.h) reads them. etna allocates
// no virtual IPs (its pods use the host network): every Service is headless.
// Thread-safety: const reads of the JSON only.
#pragma once

#include <string>

#include "api/types/object.h"

namespace etna::api::types {

class Service : public ObjectView {
 public:
  using ObjectView::ObjectView;

  // spec.selector (a map of labels); a Service without one has its Endpoints written by hand.
  const Json& selector() const { return Object(json(), {"spec", "selector"}); }
  bool has_selector() const { return !selector().empty(); }
  bool publish_not_ready_addresses() const {
    return Bool(json(), {"spec", "publishNotReadyAddresses"});
  }
  const Json& ports() const { return Array(json(), {"spec", "ports"}); }
  // Whether the pod's labels match the selector (never, without one).
  bool Selects(const Json& pod) const;
};

}  // namespace etna::api::types
