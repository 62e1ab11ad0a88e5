// Admission of PriorityClass (scheduling.k8s.io), Deployment, ReplicaSet and DaemonSet (apps/v1)
// and HorizontalPodAutoscaler (autoscaling/v2), as the Kubernetes API server validates them.
#include <fmt/format.h>

#include <algorithm>

#include "api/admission/kinds.h"
#include "api/admission/quantity.h"
#include "api/types/fields.h"

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

namespace {

// An int-or-percent field of spec.strategy.rollingUpdate: a non-negative integer or "<n>%".
// Returns whether it resolves to 0 (unset counts as the 25 % default, so not 0).
bool ValidateIntOrPercent(const Json& rolling, const char* key, const std::string& path,
                          Errors& errs) {
  const Json* v = Field(rolling, key);
  if (!v) return false;
  std::string p = Child(path, key);
  if (v->is_number_integer()) {
    CheckNonNegative(v->get<int64_t>(), p, errs);
    return v->get<int64_t>() == 0;
  }
  if (v->is_string()) {
    const std::string& text = v->get_ref<const std::string&>();
    bool digits =
        text.size() >= 2 && text.back() == '%' &&
        std::all_of(text.begin(), text.end() - 1, [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!digits) {
      errs.Invalid(p, text,
                   "a valid percent string must be a numeric string followed by an ending '%' "
                   "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
      return false;
    }
    if (std::stoll(text.substr(0, std::min<size_t>(text.size() - 1, 15))) > 100 &&
        std::string(key) == "maxUnavailable") {
      errs.Invalid(p, text, "must not be greater than 100%");
    }
    return std::stoll(text.substr(0, std::min<size_t>(text.size() - 1, 15))) == 0;
  }
  errs.Invalid(p, *v, "must be an integer or a percent string");
  return false;
}

// spec.<field> of a Deployment (strategy: RollingUpdate or Recreate) or a DaemonSet
// (updateStrategy: RollingUpdate or OnDelete): the type defaults to RollingUpdate, whose
// maxUnavailable and maxSurge default as given and may not both be 0; `other` takes no
// rollingUpdate.
void AdmitUpdateStrategy(Json& spec, const char* field, const char* other,
                         const Json& default_unavailable, const Json& default_surge, Errors& errs) {
  const std::string path = Child("spec", field);
  if (!Field(spec, field)) spec[field] = Json{{"type", "RollingUpdate"}};
  Json* st = MutableField(spec, field);
  if (!st || !st->is_object()) {
    GetObject(spec, field, "spec", errs);
    return;
  }
  SetDefault(*st, "type", "RollingUpdate");
  auto t = GetString(*st, "type", path, errs);
  if (!t) return;
  if (*t != "RollingUpdate" && *t != other) {
    errs.NotSupported(Child(path, "type"), *t, {other, "RollingUpdate"});
    return;
  }
  if (*t == other) {
    if (Field(*st, "rollingUpdate")) {
      errs.Forbidden(Child(path, "rollingUpdate"),
                     fmt::format("may not be specified when strategy `type` is '{}'", other));
    }
    return;
  }
  if (!Field(*st, "rollingUpdate")) (*st)["rollingUpdate"] = Json::object();
  if (!GetObject(*st, "rollingUpdate", path, errs)) return;
  Json& rolling = (*st)["rollingUpdate"];
  if (!rolling.contains("maxUnavailable")) rolling["maxUnavailable"] = default_unavailable;
  if (!rolling.contains("maxSurge")) rolling["maxSurge"] = default_surge;
  const std::string p = Child(path, "rollingUpdate");
  bool surge_zero = ValidateIntOrPercent(rolling, "maxSurge", p, errs);
  bool unavailable_zero = ValidateIntOrPercent(rolling, "maxUnavailable", p, errs);
  if (surge_zero && unavailable_zero) {
    errs.Invalid(Child(p, "maxUnavailable"), rolling["maxUnavailable"],
                 "may not be 0 when `maxSurge` is 0");
  }
}

// What the spec of a ReplicaSet, a Deployment and a DaemonSet share: minReadySeconds, a
// non-empty selector that the template's labels satisfy (immutable on update, as apps/v1 has
// it), and a pod template of restartPolicy Always; replicas (defaulted to 1) but for a
// DaemonSet.
void AdmitReplicatedSpec(Context& c, Json& spec, const char* kind) {
  Errors& errs = c.errs;
  if (std::string(kind) != "daemonset") {
    SetDefault(spec, "replicas", 1);
    if (auto r = GetInt(spec, "replicas", "spec", errs))
      CheckNonNegative(*r, "spec.replicas", errs);
  }
  if (auto m = GetInt(spec, "minReadySeconds", "spec", errs)) {
    CheckNonNegative(*m, "spec.minReadySeconds", errs);
  }
  const Json* selector = GetObject(spec, "selector", "spec", errs);
  if (!selector) {
    errs.Required("spec.selector");
  } else {
    ValidateLabelSelector(*selector, "spec.selector", errs);
    const Json* ml = Field(*selector, "matchLabels");
    const Json* me = Field(*selector, "matchExpressions");
    if ((!ml || ml->empty()) && (!me || me->empty())) {
      errs.Invalid("spec.selector", *selector,
                   fmt::format("empty selector is invalid for {}", kind));
    }
  }
  Json* tmpl = MutableField(spec, "template");
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

}  // namespace

void AdmitReplicaSet(Context& c) {
  Json* spec = MutableField(c.object, "spec");
  if (!spec || !spec->is_object()) {
    c.errs.Required("spec");
    return;
  }
  AdmitReplicatedSpec(c, *spec, "replicaset");
}

void AdmitDaemonSet(Context& c) {
  Errors& errs = c.errs;
  Json* spec = MutableField(c.object, "spec");
  if (!spec || !spec->is_object()) {
    errs.Required("spec");
    return;
  }
  if (Field(*spec, "revisionHistoryLimit")) {
    errs.Forbidden("spec.revisionHistoryLimit",
                   "etna keeps no ControllerRevisions of a DaemonSet, so there is no history to "
                   "limit; leave the field out");
  }
  AdmitUpdateStrategy(*spec, "updateStrategy", "OnDelete", 1, 0, errs);
  AdmitReplicatedSpec(c, *spec, "daemonset");
  // etna's DaemonSet controller places its pods on their nodes itself (as Kubernetes did before
  // 1.12), so a node daemon never waits in a queue; the scheduler, which hands out GPUs, never
  // sees them, so they cannot ask for any.
  const Json& containers = api::types::Array(*spec, {"template", "spec", "containers"});
  for (size_t i = 0; i < containers.size(); ++i) {
    for (const char* list : {"requests", "limits"}) {
      const Json& amounts = api::types::Object(containers[i], {"resources", list});
      for (const auto& [name, value] : amounts.items()) {
        if (name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
            name.rfind("hugepages-", 0) == 0) {
          continue;
        }
        errs.Forbidden(
            fmt::format("spec.template.spec.containers[{}].resources.{}[{}]", i, list, name),
            "etna places DaemonSet pods on their nodes without the scheduler, which alone hands "
            "out devices: a DaemonSet may request cpu, memory and ephemeral-storage only");
      }
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
  SetDefault(*spec, "revisionHistoryLimit", 10);
  SetDefault(*spec, "progressDeadlineSeconds", 600);
  if (auto h = GetInt(*spec, "revisionHistoryLimit", "spec", errs)) {
    CheckNonNegative(*h, "spec.revisionHistoryLimit", errs);
  }
  auto deadline = GetInt(*spec, "progressDeadlineSeconds", "spec", errs);
  if (deadline && *deadline < 1) {
    errs.Invalid("spec.progressDeadlineSeconds", *deadline, "must be greater than 0");
  }
  GetBool(*spec, "paused", "spec", errs);
  AdmitUpdateStrategy(*spec, "strategy", "Recreate", "25%", "25%", errs);
  AdmitReplicatedSpec(c, *spec, "deployment");
}

// spec.behavior's scaleUp/scaleDown, with the autoscaling/v2 validation's limits.
void AdmitScalingRules(const Json& rules, const std::string& path, Errors& errs) {
  if (auto w = GetInt(rules, "stabilizationWindowSeconds", path, errs);
      w && (*w < 0 || *w > 3600)) {
    errs.Invalid(Child(path, "stabilizationWindowSeconds"), *w, "must be between 0 and 3600");
  }
  if (auto p = GetString(rules, "selectPolicy", path, errs);
      p && *p != "Max" && *p != "Min" && *p != "Disabled") {
    errs.NotSupported(Child(path, "selectPolicy"), *p, {"Disabled", "Max", "Min"});
  }
  const Json* policies = GetArray(rules, "policies", path, errs);
  for (size_t i = 0; policies && i < policies->size(); ++i) {
    const std::string pp = Index(Child(path, "policies"), i);
    const Json& policy = (*policies)[i];
    if (auto t = GetString(policy, "type", pp, errs); !t || (*t != "Pods" && *t != "Percent")) {
      errs.NotSupported(Child(pp, "type"), t.value_or(""), {"Percent", "Pods"});
    }
    if (auto v = GetInt(policy, "value", pp, errs); !v || *v <= 0) {
      errs.Invalid(Child(pp, "value"), v.value_or(0), "must be greater than zero");
    }
    if (auto s = GetInt(policy, "periodSeconds", pp, errs); !s || *s <= 0 || *s > 1800) {
      errs.Invalid(Child(pp, "periodSeconds"), s.value_or(0),
                   "must be greater than zero and less than or equal to 1800");
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
  if (const Json* behavior = GetObject(*spec, "behavior", "spec", errs)) {
    for (const char* side : {"scaleUp", "scaleDown"}) {
      if (const Json* rules = GetObject(*behavior, side, "spec.behavior", errs)) {
        AdmitScalingRules(*rules, Child("spec.behavior", side), errs);
      }
    }
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
          // Per-pod and per-object metrics carry no labels of their own to select on.
          if (*type != "External" && sel->is_object() && !sel->empty()) {
            errs.Forbidden(Child(mp, "metric.selector"),
                           "etna's custom metrics have no metric labels to select: leave it out "
                           "(an External metric's selector picks the pods)");
          }
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
