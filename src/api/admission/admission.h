// Admission: defaulting and validation of objects on create and update, as Volcano's webhooks
// and the Kubernetes API server do, with errors that name the field.
//
// Volcano Job: queue defaults to "default", schedulerName to "volcano", minAvailable to the
// sum of task replicas, maxRetry to 3, task names to "default<i>"... ; rejects minAvailable < 0
// or > total replicas, duplicate or invalid task names, negative replicas, invalid lifecycle
// policies (unknown event/action, event and exitCode together), unknown or closed queue,
// negative or impossible resource requests. Queue: weight defaults to 1, state to Open;
// capability/guarantee/deserved must be valid quantities. PodGroup: minMember >= 0,
// minAvailable <= minMember, queue exists. Jobs, PodGroups and bare pods are routed to a queue
// by one rule (kinds.h RouteToQueue) and must request at least the queue's minResources.
// Pod: container names unique and DNS labels, requests valid quantities not above limits.
// Priority (Pod, Job, PodGroup; api/types/priority.h): an unknown priorityClassName, or a
// spec.priority other than its class's value, is refused 403 Forbidden; a Pod gets spec.priority
// from its class, else the default (globalDefault PriorityClass, else the seed ConfigMap's
// priority.conf defaultPriority, else 0).
// The seed's fields (docs/design.md) are accepted with their meaning or rejected by name.
// Every object: metadata.name a valid DNS subdomain (or label where Kubernetes requires one).
// Thread-safety: stateless; the lookup decides.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/resources/registry.h"
#include "common/status.h"

namespace etna::api::admission {

// One invalid field: becomes a `causes[]` entry of a 422 Invalid Status.
struct FieldError {
  std::string field;    // "spec.minAvailable", "spec.tasks[0].replicas"
  std::string reason;   // "FieldValueInvalid", "FieldValueRequired", "FieldValueNotSupported",
                        // "FieldValueDuplicate", "FieldValueForbidden", "FieldValueTooLong",
                        // "FieldValueNotFound"
  std::string message;  // "Invalid value: -1: must be greater than or equal to 0"
};

// The reason of a FieldError that refuses the whole request rather than one field, as
// Kubernetes' admission plugins do (an unknown priorityClassName): the API answers 403
// Forbidden `<resource> "<name>" is forbidden: <message>` instead of 422 Invalid.
inline constexpr char kRequestForbidden[] = "RequestForbidden";

// Reads other objects admission depends on (the Queue of a Job). Implemented by the server.
class ObjectLookup {
 public:
  virtual ~ObjectLookup() = default;
  // The object, or NotFound.
  virtual Result<nlohmann::json> Get(const resources::ResourceInfo& info, const std::string& ns,
                                     const std::string& name) = 0;
  // Every object of a kind (cluster-scoped kinds: ns ""); used for QueueBinding routing and the
  // leaf-queue check. The default lists nothing, which turns those checks off.
  virtual Result<std::vector<nlohmann::json>> List(const resources::ResourceInfo& info,
                                                   const std::string& ns) {
    (void)info;
    (void)ns;
    return std::vector<nlohmann::json>{};
  }
  // Calls `fn` on every object List gives, without copying them where the lookup can (the
  // leaf-queue check on every Job create); `fn` must not call back into the lookup.
  virtual Status ForEach(const resources::ResourceInfo& info, const std::string& ns,
                         const std::function<void(const nlohmann::json&)>& fn) {
    auto all = List(info, ns);
    if (!all.ok()) return all.status();
    for (const nlohmann::json& object : *all) fn(object);
    return Status::Ok();
  }
};

enum class Operation { kCreate, kUpdate };

// Applies defaults to `object` in place, then validates it (against `old` on update: immutable
// fields). Returns the field errors; empty means admitted.
std::vector<FieldError> Admit(const resources::ResourceInfo& info, Operation op,
                              nlohmann::json& object, const nlohmann::json* old,
                              ObjectLookup& lookup);

// Checks a delete: the `default` and `root` Queues and the `default`, `kube-system` and
// `kube-public` Namespaces cannot be deleted (reason FieldValueForbidden on metadata.name).
// Empty means the delete may go ahead.
std::vector<FieldError> AdmitDelete(const resources::ResourceInfo& info,
                                    const nlohmann::json& object);

// The registry's Queue (scheduling.volcano.sh/v1beta1), QueueBinding (volcano.sh/v1beta1),
// PriorityClass and ConfigMap resources, which admission looks up through the ObjectLookup.
const resources::ResourceInfo& QueueResource();
const resources::ResourceInfo& QueueBindingResource();
const resources::ResourceInfo& PriorityClassResource();
const resources::ResourceInfo& ConfigMapResource();

}  // namespace etna::api::admission
