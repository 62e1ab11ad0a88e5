// What the endpoints controller writes for a Service with a selector: its core/v1 Endpoints and
// its discovery.k8s.io/v1 EndpointSlices, from the pods it selects, as Kubernetes' endpoints and
// endpointslice controllers do. A pod counts once it has a podIP and while it is neither
// finished nor being deleted; it is ready when its Ready condition is True (or the Service
// publishes not-ready addresses). An address carries the pod's hostname when the pod's
// spec.subdomain names the Service (headless lookups of "<hostname>.<service>"), its nodeName
// and a targetRef. Each service port resolves its targetPort (a number, or a container port's
// name; default the port) per pod; pods whose ports resolve alike share one Endpoints subset and
// one EndpointSlice ("<service>", then "<service>-1", ... in the order of their ports).
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace etna::controllers {

// The label naming an EndpointSlice's Service, and the managed-by value of etna's slices.
inline constexpr char kServiceNameLabel[] = "kubernetes.io/service-name";
inline constexpr char kManagedByLabel[] = "endpointslice.kubernetes.io/managed-by";
inline constexpr char kEndpointSliceManager[] = "endpointslice-controller.etna.io";
// On the Endpoints etna writes (hand-written ones, for Services without a selector, are left).
inline constexpr char kEndpointsManagedAnnotation[] = "etna.io/managed-by";

struct ServiceEndpoints {
  nlohmann::json endpoints;            // core/v1 Endpoints named as the Service
  std::vector<nlohmann::json> slices;  // at least one (empty when no pod counts)
};

ServiceEndpoints BuildServiceEndpoints(const nlohmann::json& service,
                                       const std::vector<nlohmann::json>& pods);

}  // namespace etna::controllers
