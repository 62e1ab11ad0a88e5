// Schemas of core/v1 (Namespace, Node, Pod, Event, ConfigMap, Secret, Service, Endpoints,
// ServiceAccount), discovery.k8s.io/v1 EndpointSlice,
// coordination.k8s.io/v1 Lease, scheduling.k8s.io/v1 PriorityClass and the
// rbac.authorization.k8s.io/v1 kinds.
#include "api/resources/schema_node.h"

namespace etna::api::resources::schema {

void AddCoreSchemas(Table& table) {
  table[{"", "Namespace"}] =
      TopLevel({{"spec", Obj({{"finalizers", ArrayOf(Scalar())}})}, {"status", Any()}});
  table[{"", "Node"}] = TopLevel({
      {"spec", Obj({{"podCIDR", Scalar()},
                    {"podCIDRs", ArrayOf(Scalar())},
                    {"providerID", Scalar()},
                    {"unschedulable", Scalar()},
                    {"taints", ArrayOf(Obj({{"key", Scalar()},
                                            {"value", Scalar()},
                                            {"effect", Scalar()},
                                            {"timeAdded", Scalar()}}))},
                    {"configSource", Any()},
                    {"externalID", Scalar()}})},
      {"status", Any()},
  });
  table[{"", "Pod"}] = TopLevel({{"spec", PodSpec()}, {"status", Any()}});
  // core/v1 Event: its fields sit at the top level; the reporting controller is written
  // `reportingComponent` in JSON.
  table[{"", "Event"}] = TopLevel({
      {"involvedObject", ObjectReference()},
      {"reason", Scalar()},
      {"message", Scalar()},
      {"source", Obj({{"component", Scalar()}, {"host", Scalar()}})},
      {"firstTimestamp", Scalar()},
      {"lastTimestamp", Scalar()},
      {"count", Scalar()},
      {"type", Scalar()},
      {"eventTime", Scalar()},
      {"series", Obj({{"count", Scalar()}, {"lastObservedTime", Scalar()}})},
      {"action", Scalar()},
      {"related", ObjectReference()},
      {"reportingComponent", Scalar()},
      {"reportingInstance", Scalar()},
  });
  table[{"", "ConfigMap"}] = TopLevel({
      {"data", StringMap()},
      {"binaryData", StringMap()},
      {"immutable", Scalar()},
  });
  table[{"", "Secret"}] = TopLevel({
      {"data", StringMap()},
      {"stringData", StringMap()},
      {"type", Scalar()},
      {"immutable", Scalar()},
  });
  auto service_port = Obj({{"name", Scalar()},
                           {"protocol", Scalar()},
                           {"appProtocol", Scalar()},
                           {"port", Scalar()},
                           {"targetPort", Scalar()},
                           {"nodePort", Scalar()}});
  table[{"", "Service"}] = TopLevel({
      {"spec", Obj({{"type", Scalar()},
                    {"selector", StringMap()},
                    {"ports", ArrayOf(service_port)},
                    {"clusterIP", Scalar()},
                    {"clusterIPs", ArrayOf(Scalar())},
                    {"publishNotReadyAddresses", Scalar()},
                    {"sessionAffinity", Scalar()},
                    {"sessionAffinityConfig", Any()},
                    {"externalIPs", ArrayOf(Scalar())},
                    {"externalName", Scalar()},
                    {"externalTrafficPolicy", Scalar()},
                    {"internalTrafficPolicy", Scalar()},
                    {"ipFamilies", ArrayOf(Scalar())},
                    {"ipFamilyPolicy", Scalar()},
                    {"loadBalancerIP", Scalar()},
                    {"loadBalancerSourceRanges", ArrayOf(Scalar())},
                    {"healthCheckNodePort", Scalar()},
                    {"allocateLoadBalancerNodePorts", Scalar()},
                    {"loadBalancerClass", Scalar()},
                    {"trafficDistribution", Scalar()}})},
      {"status", Any()},
  });
  auto address = Obj({{"ip", Scalar()},
                      {"hostname", Scalar()},
                      {"nodeName", Scalar()},
                      {"targetRef", ObjectReference()}});
  table[{"", "Endpoints"}] = TopLevel({
      {"subsets", ArrayOf(Obj({{"addresses", ArrayOf(address)},
                               {"notReadyAddresses", ArrayOf(address)},
                               {"ports", ArrayOf(service_port)}}))},
  });
  table[{"", "ServiceAccount"}] = TopLevel({
      {"secrets", ArrayOf(ObjectReference())},
      {"imagePullSecrets", ArrayOf(Obj({{"name", Scalar()}}))},
      {"automountServiceAccountToken", Scalar()},
  });
  table[{"discovery.k8s.io", "EndpointSlice"}] = TopLevel({
      {"addressType", Scalar()},
      {"endpoints", ArrayOf(Obj({{"addresses", ArrayOf(Scalar())},
                                 {"conditions", Any()},
                                 {"hostname", Scalar()},
                                 {"nodeName", Scalar()},
                                 {"zone", Scalar()},
                                 {"hints", Any()},
                                 {"targetRef", ObjectReference()}}))},
      {"ports", ArrayOf(service_port)},
  });
  table[{"coordination.k8s.io", "Lease"}] = TopLevel({
      {"spec", Obj({{"holderIdentity", Scalar()},
                    {"leaseDurationSeconds", Scalar()},
                    {"acquireTime", Scalar()},
                    {"renewTime", Scalar()},
                    {"leaseTransitions", Scalar()},
                    {"strategy", Scalar()},
                    {"preferredHolder", Scalar()}})},
  });
  table[{"scheduling.k8s.io", "PriorityClass"}] = TopLevel({
      {"value", Scalar()},
      {"globalDefault", Scalar()},
      {"description", Scalar()},
      {"preemptionPolicy", Scalar()},
  });
  auto rules = ArrayOf(Obj({{"verbs", ArrayOf(Scalar())},
                            {"apiGroups", ArrayOf(Scalar())},
                            {"resources", ArrayOf(Scalar())},
                            {"resourceNames", ArrayOf(Scalar())},
                            {"nonResourceURLs", ArrayOf(Scalar())}}));
  auto binding = TopLevel({
      {"roleRef", Obj({{"apiGroup", Scalar()}, {"kind", Scalar()}, {"name", Scalar()}})},
      {"subjects", ArrayOf(Obj({{"kind", Scalar()},
                                {"apiGroup", Scalar()},
                                {"name", Scalar()},
                                {"namespace", Scalar()}}))},
  });
  table[{"rbac.authorization.k8s.io", "Role"}] = TopLevel({{"rules", rules}});
  table[{"rbac.authorization.k8s.io", "ClusterRole"}] =
      TopLevel({{"rules", rules},
                {"aggregationRule", Obj({{"clusterRoleSelectors", ArrayOf(LabelSelector())}})}});
  table[{"rbac.authorization.k8s.io", "RoleBinding"}] = binding;
  table[{"rbac.authorization.k8s.io", "ClusterRoleBinding"}] = binding;
}

}  // namespace etna::api::resources::schema
