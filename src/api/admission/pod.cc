// Pod admission: Kubernetes' Pod defaults and validation, and its update rule (the spec is
// immutable except container images, activeDeadlineSeconds, added tolerations and removed
// scheduling gates); a bare pod's queue (queue_routing.cc), as for a Job; and the checkpoint
// annotation etna.io/last-checkpoint, when set, is an RFC 3339 time.
#include "api/types/pod.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/admission/kinds.h"
#include "api/types/well_known.h"
#include "common/time.h"

namespace etna::api::admission::internal {

namespace {

constexpr char kPodUpdateMessage[] =
    "pod updates may not change fields other than `spec.containers[*].image`, "
    "`spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only "
    "additions to existing tolerations) or `spec.schedulingGates` (only removals)";

// Copies the mutable parts of `from` into `to` so the rest can be compared.
void CopyMutable(const Json& from, Json& to) {
  for (const char* key : {"containers", "initContainers"}) {
    const Json* a = Field(from, key);
    Json* b = MutableField(to, key);
    if (!a || !b || !a->is_array() || !b->is_array() || a->size() != b->size()) continue;
    for (size_t i = 0; i < a->size(); ++i) {
      if ((*b)[i].is_object() && (*a)[i].is_object() && (*a)[i].contains("image")) {
        (*b)[i]["image"] = (*a)[i]["image"];
      }
    }
  }
  for (const char* key : {"activeDeadlineSeconds", "tolerations", "schedulingGates"}) {
    if (const Json* v = Field(from, key)) {
      to[key] = *v;
    } else if (to.is_object()) {
      to.erase(key);
    }
  }
}

bool ContainsAll(const Json* big, const Json* small) {
  if (!small || !small->is_array()) return true;
  if (!big || !big->is_array()) return small->empty();
  for (const Json& t : *small) {
    if (std::find(big->begin(), big->end(), t) == big->end()) return false;
  }
  return true;
}

void ValidatePodUpdate(const Json& spec, const Json& old_spec, Errors& errs) {
  if (!ContainsAll(Field(spec, "tolerations"), Field(old_spec, "tolerations"))) {
    errs.Forbidden("spec.tolerations",
                   "existing toleration can not be modified except its "
                   "tolerationSeconds");
  }
  if (!ContainsAll(Field(old_spec, "schedulingGates"), Field(spec, "schedulingGates"))) {
    errs.Forbidden("spec.schedulingGates",
                   "only deletion is allowed, but found new scheduling "
                   "gates");
  }
  if (const Json* ads = Field(spec, "activeDeadlineSeconds")) {
    const Json* old_ads = Field(old_spec, "activeDeadlineSeconds");
    if (old_ads && ads->is_number() && old_ads->is_number() &&
        ads->get<int64_t>() > old_ads->get<int64_t>()) {
      errs.Invalid("spec.activeDeadlineSeconds", *ads,
                   "must be less than or equal to previous value");
    }
  } else if (Field(old_spec, "activeDeadlineSeconds")) {
    errs.Invalid("spec.activeDeadlineSeconds", nullptr,
                 "must not update from a positive integer "
                 "to nil value");
  }
  Json b = old_spec;
  CopyMutable(spec, b);
  if (spec != b) errs.Forbidden("spec", kPodUpdateMessage);
}

// A bare pod (scheduled by us, in no PodGroup) is routed to a queue as a Job is; the queue goes
// to the annotation its PodGroup's queue is read from. The queue must exist, be Open and get at
// least its minResources from the pod.
void RouteBarePod(Context& c, const Json& spec) {
  types::Pod pod(c.object);
  if (!pod.IsBarePod()) return;
  const std::string path = Key("metadata.annotations", types::kQueueNameAnnotation);
  std::string given = pod.Annotation(types::kQueueNameAnnotation);
  std::string queue = RouteToQueue(c, given, path, "pod");
  if (queue != given && queue != "default") {
    c.object["metadata"]["annotations"][types::kQueueNameAnnotation] = queue;
  }
  if (auto q = CheckQueueOpen(queue, path, "pod", NamespaceOf(c.object), c.lookup, c.errs)) {
    CheckQueueMinResources(*q, PodSpecRequest(spec), path, "pod", c.errs);
  }
}

// The workload's checkpoint annotation (well_known.h) must be an RFC 3339 time.
void ValidateLastCheckpoint(const Json& pod, Errors& errs) {
  const Json* meta = Field(pod, "metadata");
  const Json* annotations = meta ? Field(*meta, "annotations") : nullptr;
  const Json* value = annotations ? Field(*annotations, types::kLastCheckpointAnnotation) : nullptr;
  if (!value) return;
  if (!value->is_string() || !ParseRfc3339(value->get<std::string>())) {
    errs.Invalid(Key("metadata.annotations", types::kLastCheckpointAnnotation), *value,
                 "must be an RFC 3339 time such as \"2026-01-02T15:04:05Z\"");
  }
}

}  // namespace

// A pod of a ServiceAccount with automountServiceAccountToken: false gets no token unless it
// asks for one itself (Kubernetes' ServiceAccount admission); the agent reads the pod's field.
void InheritTokenAutomount(Context& c, Json& spec) {
  if (spec.contains("automountServiceAccountToken")) return;
  const auto* info = resources::ResourceRegistry::Default().Find("", "v1", "serviceaccounts");
  auto account = c.lookup.Get(*info, NamespaceOf(c.object),
                              spec.value("serviceAccountName", std::string("default")));
  if (account.ok() && account->value("automountServiceAccountToken", true) == false) {
    spec["automountServiceAccountToken"] = false;
  }
}

void AdmitPod(Context& c) {
  Json* spec = MutableField(c.object, "spec");
  if (!spec) {
    c.errs.Required("spec");
    return;
  }
  DefaultPodSpec(*spec, /*is_pod=*/true);
  ValidatePodSpec(*spec, "spec", c.errs);
  AdmitPodPriority(c, *spec);
  ValidateLastCheckpoint(c.object, c.errs);
  if (c.op == Operation::kUpdate && c.old) {
    if (const Json* old_spec = Field(*c.old, "spec")) ValidatePodUpdate(*spec, *old_spec, c.errs);
  } else if (c.op == Operation::kCreate) {
    InheritTokenAutomount(c, *spec);
    RouteBarePod(c, *spec);
  }
}

}  // namespace etna::api::admission::internal
