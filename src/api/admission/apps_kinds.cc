// Admission of PriorityClass (scheduling.k8s.io), Deployment (apps/v1) and
// HorizontalPodAutoscaler (autoscaling/v2), as the Kubernetes API server validates them.
#include <fmt/format.h>

#include "api/admission/kinds.h"
#include "api/admission/quantity.h"

namespace etna::api::admission::internal {

namespace {

constexpr int64_t kHighestUserPriority = 1000000000;
const std::vector<std::string> kPreemptionPolicies = {"PreemptLowerPriority", "Never"};
const std::vector<std::string> kMetricTypes = {"Object", "Pods", "Resource", "ContainerResource",
                                               "External"};
const std::vector<std::string> kTargetTypes = {"Utilization", "Value", "AverageValue"};

void ValidateMetricTarget(const Json& target, const std::string& path, Errors& errs) {
  auto type = GetString(target, "type", path, errs);
  if (!type) {
    errs.Required(Child(path, "type"));
    return;
  }
  if (std::find(kTargetTypes.begin(), kTargetTypes.end(), *type) == kTargetTypes.end()) {
    errs.NotSupported(Child(path, "type"), *type, kTargetTypes);
    return;
  }
  if (*type == "Utilization") {
    auto u = GetInt(target, "averageUtilization", path, errs);
    if (!u)
      errs.Required(Child(path, "averageUtilization"), "must be set for type Utilization");
    else if (*u < 1)
      errs.Invalid(Child(path, "averageUtilization"), *u, "must be greater than 0");
    return;
  }
  const char* key = *type == "Value" ? "value" : "averageValue";
  const Json* v = Field(target, key);
  if (!v) {
    errs.Required(Child(path, key), fmt::format("must be set for type {}", *type));
  } else {
    ParseQuantityValue(*v, "value", Child(path, key), false, errs);
  }
}

}  // namespace

void AdmitPriorityClass(Context& c) {
  Errors& errs = c.errs;
  auto value = GetInt(c.object, "value", "", errs);
  std::string name = NameOf(c.object);
  bool system = name.rfind("system-", 0) == 0;
  if (!value) {
    errs.Required("value");
  } else if (*value > kHighestUserPriority && !system) {
    errs.Invalid("value", *value,
                 fmt::format("must be less than or equal to {}", kHighestUserPriority));
  } else {
    CheckInt32(*value, "value", errs);
  }
  if (system && name != "system-cluster-critical" && name != "system-node-critical") {
    errs.Forbidden("metadata.name", "priority class names with 'system-' prefix are reserved");
  }
  GetBool(c.object, "globalDefault", "", errs);
  SetDefault(c.object, "preemptionPolicy", "PreemptLowerPriority");
  if (auto pp = GetString(c.object, "preemptionPolicy", "", errs);
      pp && std::find(kPreemptionPolicies.begin(), kPreemptionPolicies.end(), *pp) ==
                kPreemptionPolicies.end()) {
    errs.NotSupported("preemptionPolicy", *pp, kPreemptionPolicies);
  }
  if (c.op == Operation::kUpdate && c.old) {
    for (const char* k : {"value", "preemptionPolicy"}) {
      const Json* a = Field(c.object, k);
      const Json* b = Field(*c.old, k);
      if (a && b && *a != *b) errs.Forbidden(k, "may not be changed in an update.");
    }
  }
}

void AdmitDeployment(Context& c) {
  Errors& errs = c.errs;
  Json* spec = MutableField(c.object, "spec");
  if (!spec || !spec->is_object()) {
    errs.Required("spec");
    return;
  }
  SetDefault(*spec, "replicas", 1);
  SetDefault(*spec, "revisionHistoryLimit", 10);
  SetDefault(*spec, "progressDeadlineSeconds", 600);
  if (!Field(*spec, "strategy")) (*spec)["strategy"] = Json{{"type", "RollingUpdate"}};
  if (auto r = GetInt(*spec, "replicas", "spec", errs)) CheckNonNegative(*r, "spec.replicas", errs);
  if (auto m = GetInt(*spec, "minReadySeconds", "spec", errs)) {
    CheckNonNegative(*m, "spec.minReadySeconds", errs);
  }
  if (const Json* st = GetObject(*spec, "strategy", "spec", errs)) {
    if (auto t = GetString(*st, "type", "spec.strategy", errs);
        t && *t != "RollingUpdate" && *t != "Recreate") {
      errs.NotSupported("spec.strategy.type", *t, {"Recreate", "RollingUpdate"});
    }
  }
  const Json* selector = GetObject(*spec, "selector", "spec", errs);
  if (!selector) {
    errs.Required("spec.selector");
  } else {
    ValidateLabelSelector(*selector, "spec.selector", errs);
    const Json* ml = Field(*selector, "matchLabels");
    const Json* me = Field(*selector, "matchExpressions");
    if ((!ml || ml->empty()) && (!me || me->empty())) {
      errs.Invalid("spec.selector", *selector, "empty selector is invalid for deployment");
    }
  }
  Json* tmpl = MutableField(*spec, "template");
  if (!tmpl || !tmpl->is_object()) {
    errs.Required("spec.template");
    return;
  }
  const Json* tmeta = Field(*tmpl, "metadata");
  const Json* labels = tmeta ? Field(*tmeta, "labels") : nullptr;
  if (selector && !SelectorMatches(*selector, labels)) {
    errs.Invalid("spec.template.metadata.labels", labels ? *labels : Json::object(),
                 "`selector` does not match template `labels`");
  }
  Json* ps = MutableField(*tmpl, "spec");
  if (!ps) {
    errs.Required("spec.template.spec");
  } else {
    DefaultPodSpec(*ps, /*is_pod=*/false);
    SetDefault(*ps, "restartPolicy", "Always");
    ValidatePodSpec(*ps, "spec.template.spec", errs);
    if (auto rp = GetString(*ps, "restartPolicy", "spec.template.spec", errs);
        rp && *rp != "Always") {
      errs.NotSupported("spec.template.spec.restartPolicy", *rp, {"Always"});
    }
  }
  if (c.op == Operation::kUpdate && c.old) {
    const Json* os = Field(*c.old, "spec");
    const Json* osel = os ? Field(*os, "selector") : nullptr;
    if (osel && selector && *osel != *selector) {
      errs.Invalid("spec.selector", *selector, "field is immutable");
    }
  }
}

void AdmitHorizontalPodAutoscaler(Context& c) {
  Errors& errs = c.errs;
  Json* spec = MutableField(c.object, "spec");
  if (!spec || !spec->is_object()) {
    errs.Required("spec");
    return;
  }
  SetDefault(*spec, "minReplicas", 1);
  const Json* ref = GetObject(*spec, "scaleTargetRef", "spec", errs);
  if (!ref) {
    errs.Required("spec.scaleTargetRef");
  } else {
    for (const char* k : {"kind", "name"}) {
      auto v = GetString(*ref, k, "spec.scaleTargetRef", errs);
      if (!v || v->empty()) errs.Required(Child("spec.scaleTargetRef", k));
    }
  }
  auto min = GetInt(*spec, "minReplicas", "spec", errs);
  if (min && *min < 1) errs.Invalid("spec.minReplicas", *min, "must be greater than or equal to 1");
  auto max = GetInt(*spec, "maxReplicas", "spec", errs);
  if (!max) {
    errs.Required("spec.maxReplicas");
  } else if (*max < 1) {
    errs.Invalid("spec.maxReplicas", *max, "must be greater than 0");
  } else if (min && *max < *min) {
    errs.Invalid("spec.maxReplicas", *max, "must be greater than or equal to `minReplicas`");
  }
  const Json* metrics = GetArray(*spec, "metrics", "spec", errs);
  if (!metrics) return;
  for (size_t i = 0; i < metrics->size(); ++i) {
    std::string p = Index("spec.metrics", i);
    const Json& m = (*metrics)[i];
    auto type = GetString(m, "type", p, errs);
    if (!type) {
      errs.Required(Child(p, "type"));
      continue;
    }
    if (std::find(kMetricTypes.begin(), kMetricTypes.end(), *type) == kMetricTypes.end()) {
      errs.NotSupported(Child(p, "type"), *type, kMetricTypes);
      continue;
    }
    std::string member = *type == "ContainerResource" ? "containerResource" : *type;
    member[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(member[0])));
    std::string mp = Child(p, member);
    const Json* source = GetObject(m, member, p, errs);
    if (!source) {
      errs.Required(
          mp, fmt::format("must populate information for the given metric source ({})", *type));
      continue;
    }
    if (*type == "Resource" || *type == "ContainerResource") {
      auto name = GetString(*source, "name", mp, errs);
      if (!name || name->empty()) errs.Required(Child(mp, "name"));
    } else {
      const Json* metric = GetObject(*source, "metric", mp, errs);
      auto name = metric ? GetString(*metric, "name", Child(mp, "metric"), errs) : std::nullopt;
      if (!name || name->empty()) errs.Required(Child(mp, "metric.name"));
      if (metric) {
        if (const Json* sel = Field(*metric, "selector")) {
          ValidateLabelSelector(*sel, Child(mp, "metric.selector"), errs);
        }
      }
    }
    const Json* target = GetObject(*source, "target", mp, errs);
    if (!target) {
      errs.Required(Child(mp, "target"));
    } else {
      ValidateMetricTarget(*target, Child(mp, "target"), errs);
    }
  }
}

}  // namespace etna::api::admission::internal
