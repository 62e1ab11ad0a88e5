// EndpointsController: keeps each Service's Endpoints and EndpointSlices (endpoints.h) in step
// with the pods it selects — what agents read to resolve Service names (agent/peer_hosts.h) and
// what kubectl shows. A Service without a selector is left to whoever writes its Endpoints;
// when a Service goes (or loses its selector) the Endpoints this controller wrote go too, and
// its slices with it (they are owned by the Service).
// Keys: "<ns>/<service>". Thread-safety: as Controller (one worker).
#pragma once

#include <string>

#include "controllers/controller.h"

namespace etna::controllers {

class EndpointsController : public Controller {
 public:
  explicit EndpointsController(ControllerOptions options);
  ~EndpointsController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // Creates `want`, or updates `have` to it when what the controller manages differs.
  Status Apply(const std::string& resource, const std::optional<nlohmann::json>& have,
               const nlohmann::json& want, const std::vector<const char*>& fields);
  // Enqueues the Services of the pod's namespace (labels may have moved it in or out).
  void PodChanged(const nlohmann::json& pod);

  client::Informer* services_;
  client::Informer* pods_;
  client::Informer* endpoints_;
  client::Informer* slices_;
};

}  // namespace etna::controllers
