// Admit and AdmitDelete: metadata checks for every object, then the kind's own defaults and
// validation, chosen by API group and kind.
#include "api/admission/admission.h"

#include <fmt/format.h>

#include "api/admission/kinds.h"
#include "api/types/queue.h"

namespace etna::api::admission {

namespace {

using Handler = void (*)(internal::Context&);

Handler Find(const std::string& group, const std::string& kind) {
  struct Entry {
    const char* group;
    const char* kind;
    Handler handler;
  };
  static const Entry kTable[] = {
      {"", "Pod", internal::AdmitPod},
      {"", "Node", internal::AdmitNode},
      {"", "Event", internal::AdmitEvent},
      {"", "ConfigMap", internal::AdmitConfigMap},
      {"", "Secret", internal::AdmitSecret},
      {"", "Service", internal::AdmitService},
      {"coordination.k8s.io", "Lease", internal::AdmitLease},
      {"scheduling.k8s.io", "PriorityClass", internal::AdmitPriorityClass},
      {"rbac.authorization.k8s.io", "Role", internal::AdmitRole},
      {"rbac.authorization.k8s.io", "ClusterRole", internal::AdmitClusterRole},
      {"rbac.authorization.k8s.io", "RoleBinding", internal::AdmitRoleBinding},
      {"rbac.authorization.k8s.io", "ClusterRoleBinding", internal::AdmitClusterRoleBinding},
      {"apps", "Deployment", internal::AdmitDeployment},
      {"apps", "ReplicaSet", internal::AdmitReplicaSet},
      {"apps", "DaemonSet", internal::AdmitDaemonSet},
      {"autoscaling", "HorizontalPodAutoscaler", internal::AdmitHorizontalPodAutoscaler},
      {"batch", "Job", internal::AdmitBatchJob},
      {"batch", "CronJob", internal::AdmitCronJob},
      {"batch.volcano.sh", "Job", internal::AdmitJob},
      {"batch.volcano.sh", "CronJob", internal::AdmitVolcanoCronJob},
      {"scheduling.volcano.sh", "Queue", internal::AdmitQueue},
      {"scheduling.volcano.sh", "PodGroup", internal::AdmitPodGroup},
      {"volcano.sh", "QueueBinding", internal::AdmitQueueBinding},
      {"bus.volcano.sh", "Command", internal::AdmitCommand},
      {"topology.volcano.sh", "HyperNode", internal::AdmitHyperNode},
      {"flow.volcano.sh", "JobTemplate", internal::AdmitJobTemplate},
      {"flow.volcano.sh", "JobFlow", internal::AdmitJobFlow},
      {"keda.sh", "ScaledObject", internal::AdmitScaledObject},
  };
  for (const Entry& e : kTable) {
    if (group == e.group && kind == e.kind) return e.handler;
  }
  return nullptr;
}

}  // namespace

const resources::ResourceInfo& QueueResource() {
  static const resources::ResourceInfo& info =
      *resources::ResourceRegistry::Default().Find("scheduling.volcano.sh", "v1beta1", "queues");
  return info;
}

const resources::ResourceInfo& QueueBindingResource() {
  static const resources::ResourceInfo& info =
      *resources::ResourceRegistry::Default().Find("volcano.sh", "v1beta1", "queuebindings");
  return info;
}

const resources::ResourceInfo& PriorityClassResource() {
  static const resources::ResourceInfo& info =
      *resources::ResourceRegistry::Default().Find("scheduling.k8s.io", "v1", "priorityclasses");
  return info;
}

const resources::ResourceInfo& ConfigMapResource() {
  static const resources::ResourceInfo& info =
      *resources::ResourceRegistry::Default().Find("", "v1", "configmaps");
  return info;
}

std::vector<FieldError> Admit(const resources::ResourceInfo& info, Operation op,
                              nlohmann::json& object, const nlohmann::json* old,
                              ObjectLookup& lookup) {
  internal::Errors errs;
  internal::NameRule names =
      info.group.empty() && info.kind == "Namespace" ? internal::NameRule::kLabel
      : info.group == "rbac.authorization.k8s.io"    ? internal::NameRule::kPathSegment
                                                     : internal::NameRule::kSubdomain;
  internal::ValidateMetadata(object, info.namespaced, names, errs);
  if (!object.is_object()) return std::move(errs.list());
  if (Handler h = Find(info.group, info.kind)) {
    internal::Context ctx{info, op, object, op == Operation::kUpdate ? old : nullptr, lookup, errs};
    try {
      h(ctx);
    } catch (const std::exception& e) {  // a JSON type surprise must not escape
      errs.Invalid("", "", fmt::format("malformed object: {}", e.what()));
    }
  }
  return std::move(errs.list());
}

std::vector<FieldError> AdmitDelete(const resources::ResourceInfo& info,
                                    const nlohmann::json& object) {
  internal::Errors errs;
  std::string name = internal::NameOf(object);
  if (info.group == "scheduling.volcano.sh" && info.kind == "Queue" &&
      (name == "default" || name == "root")) {
    errs.Forbidden("metadata.name", fmt::format("`{}` queue can not be deleted", name));
  }
  if (info.group.empty() && info.kind == "Namespace" &&
      (name == "default" || name == "kube-system" || name == "kube-public")) {
    errs.Forbidden(
        "metadata.name",
        fmt::format("this namespace may not be deleted: namespace {} is protected", name));
  }
  return std::move(errs.list());
}

namespace internal {

std::string NamespaceOf(const Json& object) {
  const Json* meta = Field(object, "metadata");
  const Json* ns = meta ? Field(*meta, "namespace") : nullptr;
  return ns && ns->is_string() ? ns->get<std::string>() : "";
}

std::string NameOf(const Json& object) {
  const Json* meta = Field(object, "metadata");
  const Json* n = meta ? Field(*meta, "name") : nullptr;
  return n && n->is_string() ? n->get<std::string>() : "";
}

std::string QueueState(const Json& queue) { return types::Queue(queue).State(); }

std::optional<Json> CheckQueueOpen(const std::string& queue, const std::string& path,
                                   const char* what, const std::string& ns, ObjectLookup& lookup,
                                   Errors& errs) {
  Result<Json> got = lookup.Get(QueueResource(), "", queue);
  if (!got.ok()) {
    if (got.status().code() == StatusCode::kNotFound) {
      errs.Invalid(path, queue, fmt::format("unable to find {} queue", what));
    } else {
      errs.Invalid(path, queue,
                   fmt::format("unable to find {} queue: {}", what, got.status().message()));
    }
    return std::nullopt;
  }
  std::string state = QueueState(*got);
  if (state != "Open") {
    errs.Forbidden(path, fmt::format("can only submit {} to queue with state `Open`, queue `{}` "
                                     "status is `{}`",
                                     what, queue, state));
  }
  if (!types::Queue(*got).AdmitsNamespace(ns)) {
    errs.Forbidden(path, fmt::format("queue `{}` does not admit a {} of namespace `{}` (the "
                                     "queue's spec.allowedNamespaces)",
                                     queue, what, ns));
  }
  return std::move(got).value();
}

}  // namespace internal

}  // namespace etna::api::admission
