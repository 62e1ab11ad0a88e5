// Admission of KEDA's ScaledObject (keda.sh/v1alpha1), as KEDA's webhook and the scaler's own
// checks validate it, for what etna runs (controllers/scaled_object_controller.h): the
// prometheus trigger, the replica bounds and timings, and an HPA behavior. What etna cannot
// honour is refused by name: other trigger types, authenticationRef (no TriggerAuthentication),
// fallback, scalingModifiers, envSourceContainerName, restoreToOriginalReplicaCount and a
// custom HPA name.
#include <fmt/format.h>

#include "api/admission/kinds.h"
#include "api/types/fields.h"
#include "common/resource.h"
#include "common/strings.h"

namespace etna::api::admission::internal {

namespace {

void AdmitPrometheusTrigger(const Json& metadata, const std::string& path, Errors& errs) {
  for (const char* key : {"serverAddress", "query", "threshold"}) {
    const Json* v = Field(metadata, key);
    if (!v || !v->is_string() || v->get<std::string>().empty()) {
      errs.Required(Child(path, key),
                    std::string(key) == "query"
                        ? "the prometheus scaler needs the PromQL query whose value it scales on"
                        : "");
    }
  }
  for (const char* key : {"threshold", "activationThreshold"}) {
    const Json* v = Field(metadata, key);
    if (v && v->is_string() && !v->get<std::string>().empty() &&
        !ParseQuantity(v->get<std::string>(), ResourceUnit::kMilli).ok()) {
      errs.Invalid(Child(path, key), *v, "must be a number (a quantity such as \"70\" or \"0.5\")");
    }
  }
  if (const Json* address = Field(metadata, "serverAddress"); address && address->is_string()) {
    const std::string a = address->get<std::string>();
    if (!a.empty() && !IsHttpUrl(a)) {
      errs.Invalid(Child(path, "serverAddress"), a, "must be an http:// or https:// URL");
    }
  }
  static const char* kKnown[] = {"serverAddress",       "query",     "threshold",
                                 "activationThreshold", "namespace", "ignoreNullValues",
                                 "metricName"};
  if (metadata.is_object()) {
    for (const auto& [key, value] : metadata.items()) {
      bool known = false;
      for (const char* k : kKnown) known = known || key == k;
      if (!known) {
        errs.Forbidden(Child(path, key),
                       "etna's prometheus scaler reads serverAddress, query, threshold, "
                       "activationThreshold, namespace, ignoreNullValues and metricName only");
      }
      if (!value.is_string()) errs.Invalid(Child(path, key), value, "must be a string");
    }
  }
}

}  // namespace

void AdmitScaledObject(Context& c) {
  Errors& errs = c.errs;
  Json* spec = SpecOf(c.object, errs);
  if (!spec) return;
  const Json* ref = GetObject(*spec, "scaleTargetRef", "spec", errs);
  if (!ref) {
    errs.Required("spec.scaleTargetRef");
  } else {
    auto name = GetString(*ref, "name", "spec.scaleTargetRef", errs);
    if (!name || name->empty()) errs.Required("spec.scaleTargetRef.name");
    auto kind = GetString(*ref, "kind", "spec.scaleTargetRef", errs);
    if (kind && *kind != "Deployment" && *kind != "ReplicaSet") {
      errs.NotSupported("spec.scaleTargetRef.kind", *kind, {"Deployment", "ReplicaSet"});
    }
    if (auto v = GetString(*ref, "apiVersion", "spec.scaleTargetRef", errs); v && *v != "apps/v1") {
      errs.NotSupported("spec.scaleTargetRef.apiVersion", *v, {"apps/v1"});
    }
    if (Field(*ref, "envSourceContainerName")) {
      errs.Forbidden("spec.scaleTargetRef.envSourceContainerName",
                     "etna's scalers read no environment of the target");
    }
  }
  for (const char* key : {"pollingInterval", "cooldownPeriod", "initialCooldownPeriod",
                          "minReplicaCount", "maxReplicaCount", "idleReplicaCount"}) {
    if (auto v = GetInt(*spec, key, "spec", errs)) CheckNonNegative(*v, Child("spec", key), errs);
  }
  auto min = GetInt(*spec, "minReplicaCount", "spec", errs);
  auto max = GetInt(*spec, "maxReplicaCount", "spec", errs);
  if (min && max && *min > *max) {
    errs.Invalid("spec.maxReplicaCount", *max, "must be greater than or equal to minReplicaCount");
  }
  // KEDA: "due to limitations in the HPA controller the only supported value is 0".
  if (auto idle = GetInt(*spec, "idleReplicaCount", "spec", errs)) {
    if (*idle != 0) errs.Invalid("spec.idleReplicaCount", *idle, "the only supported value is 0");
    if (min && *min == 0) {
      errs.Invalid("spec.idleReplicaCount", *idle, "must be less than minReplicaCount");
    }
  }
  if (auto v = GetInt(*spec, "pollingInterval", "spec", errs); v && *v == 0) {
    errs.Invalid("spec.pollingInterval", *v, "must be at least 1 second");
  }
  if (Field(*spec, "fallback")) {
    errs.Forbidden("spec.fallback", "etna does not run KEDA's fallback replicas");
  }
  if (const Json* advanced = GetObject(*spec, "advanced", "spec", errs)) {
    if (Field(*advanced, "scalingModifiers")) {
      errs.Forbidden("spec.advanced.scalingModifiers", "etna does not run scaling modifiers");
    }
    if (const Json* hpa =
            GetObject(*advanced, "horizontalPodAutoscalerConfig", "spec.advanced", errs);
        hpa && Field(*hpa, "name")) {
      errs.Forbidden("spec.advanced.horizontalPodAutoscalerConfig.name",
                     "etna names the HPA keda-hpa-<name>, as KEDA does by default");
    }
    if (GetBool(*advanced, "restoreToOriginalReplicaCount", "spec.advanced", errs)
            .value_or(false)) {
      errs.Forbidden("spec.advanced.restoreToOriginalReplicaCount",
                     "etna leaves the target at its last size when the ScaledObject is deleted");
    }
  }
  const Json* triggers = GetArray(*spec, "triggers", "spec", errs);
  if (!triggers || triggers->empty()) {
    errs.Required("spec.triggers", "at least one trigger");
    return;
  }
  for (size_t i = 0; i < triggers->size(); ++i) {
    const std::string p = Index("spec.triggers", i);
    const Json& t = (*triggers)[i];
    auto type = GetString(t, "type", p, errs);
    if (!type) {
      errs.Required(Child(p, "type"));
      continue;
    }
    if (*type != "prometheus") {
      errs.NotSupported(Child(p, "type"), *type, {"prometheus"});
      continue;
    }
    if (Field(t, "authenticationRef")) {
      errs.Forbidden(Child(p, "authenticationRef"),
                     "etna serves no TriggerAuthentication; the Prometheus must be reachable "
                     "without credentials");
    }
    if (auto mt = GetString(t, "metricType", p, errs);
        mt && *mt != "AverageValue" && *mt != "Value") {
      errs.NotSupported(Child(p, "metricType"), *mt, {"AverageValue", "Value"});
    }
    const Json* metadata = GetObject(t, "metadata", p, errs);
    if (!metadata) {
      errs.Required(Child(p, "metadata"));
      continue;
    }
    AdmitPrometheusTrigger(*metadata, Child(p, "metadata"), errs);
  }
}

}  // namespace etna::api::admission::internal
