// The resources the API serves: names, scope, subresources and printer columns, one table for
// discovery, routing, Table output and admission.
//
// Served (docs/design.md#the-api): core/v1 Namespace, Node, Pod, Event, ConfigMap, Secret;
// coordination.k8s.io/v1 Lease; scheduling.k8s.io/v1 PriorityClass; apps/v1 Deployment;
// autoscaling/v2 HorizontalPodAutoscaler; batch.volcano.sh/v1alpha1 Job;
// scheduling.volcano.sh/v1beta1 Queue, PodGroup; bus.volcano.sh/v1alpha1 Command;
// topology.volcano.sh/v1alpha1 HyperNode; and the seed's QueueBinding (scheduling.volcano.sh);
// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding.
// Also the access reviews (authorization.k8s.io/v1, authentication.k8s.io/v1
// SelfSubjectReview), answered at each create, and the computed metrics views:
// metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics, custom.metrics.k8s.io (pods/<metric>) and
// external.metrics.k8s.io (one per metric name). Immutable after construction; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace etna::api::resources {

// One column of `kubectl get`, as Kubernetes' printers or a CRD's additionalPrinterColumns.
struct PrinterColumn {
  std::string name;    // "STATUS", "minAvailable", "Age"
  std::string type;    // "string", "integer", "number", "boolean", "date"
  std::string format;  // "name" for the name column, else ""
  std::string description;
  int priority = 0;       // 1: only with -o wide
  std::string json_path;  // a CRD column's JSON path (".status.state.phase"); "" for a
                          // built-in printer's column, whose cells are computed per kind
};

struct ResourceInfo {
  std::string group;                     // "" for core
  std::string version;                   // "v1", "v1alpha1", ...
  std::string kind;                      // "Pod"
  std::string plural;                    // "pods"
  std::string singular;                  // "pod"
  std::vector<std::string> short_names;  // {"po"}
  std::vector<std::string> categories;   // {"all"}
  bool namespaced = true;
  bool has_status = false;         // a /status subresource (status is ignored on main writes)
  bool built_in = false;           // a Kubernetes kind: strategic merge patch is supported
  std::vector<std::string> verbs;  // discovery verbs
  std::vector<std::string> subresources;     // besides "status": "log", "binding", "eviction"
  std::vector<PrinterColumn> columns;        // Table columns, Name first (Event: last, as kubectl)
  std::vector<std::string> field_selectors;  // supported beyond metadata.name/namespace
  // Computed at each request, not stored: the metrics APIs' read-only views (routed to
  // api/server/metrics_api.cc) and the access reviews (api/server/access_review.cc); left out
  // of OpenAPI and of anything that walks stored kinds.
  bool computed = false;

  std::string GroupVersion() const;  // "v1" or "batch.volcano.sh/v1alpha1" (the apiVersion)
  std::string ListKind() const;      // "PodList"
  // The store's resource segment: "pods", or "<plural>.<group>" ("jobs.batch.volcano.sh").
  std::string StoreResource() const;
  // "jobs.batch.volcano.sh" or "pods": the form used in Status messages.
  std::string QualifiedPlural() const;
};

class ResourceRegistry {
 public:
  static const ResourceRegistry& Default();

  const std::vector<ResourceInfo>& All() const { return resources_; }
  // By URL parts: group ("" for core), version and plural.
  const ResourceInfo* Find(std::string_view group, std::string_view version,
                           std::string_view plural) const;
  // By an object's apiVersion ("v1", "batch.volcano.sh/v1alpha1") and kind.
  const ResourceInfo* FindKind(std::string_view api_version, std::string_view kind) const;
  // Group names in discovery order ("" first is not included).
  std::vector<std::string> Groups() const;
  // By a name as kubectl accepts it: plural, singular, short name or kind, case-insensitive,
  // optionally qualified by a group ("jobs.batch.volcano.sh", "vcjob"). Core kinds win ties.
  const ResourceInfo* FindByName(std::string_view name) const;

 private:
  ResourceRegistry();
  std::vector<ResourceInfo> resources_;
};

}  // namespace etna::api::resources
