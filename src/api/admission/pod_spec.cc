// Pod spec defaulting and validation shared by Pod, Job task templates and Deployment templates.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "api/admission/kinds.h"
#include "api/admission/quantity.h"

namespace etna::api::admission::internal {

namespace {

const std::vector<std::string> kRestartPolicies = {"Always", "OnFailure", "Never"};
const std::vector<std::string> kPullPolicies = {"Always", "IfNotPresent", "Never"};
const std::vector<std::string> kTolerationOps = {"Equal", "Exists"};
const std::vector<std::string> kTaintEffects = {"NoSchedule", "PreferNoSchedule", "NoExecute"};

bool SupportedFieldPath(const std::string& p) {
  static const std::set<std::string> kPlain = {"metadata.name",
                                               "metadata.namespace",
                                               "metadata.uid",
                                               "metadata.labels",
                                               "metadata.annotations",
                                               "spec.nodeName",
                                               "spec.serviceAccountName",
                                               "status.hostIP",
                                               "status.hostIPs",
                                               "status.podIP",
                                               "status.podIPs"};
  if (kPlain.count(p)) return true;
  for (const char* prefix : {"metadata.labels['", "metadata.annotations['"}) {
    std::string_view pre(prefix);
    if (p.size() > pre.size() + 2 && p.rfind(pre, 0) == 0 && p.ends_with("']")) return true;
  }
  return false;
}

void DefaultContainer(Json& c) {
  if (!c.is_object()) return;
  const Json* image = Field(c, "image");
  if (image && image->is_string()) {
    const std::string& s = image->get_ref<const std::string&>();
    size_t slash = s.rfind('/');
    std::string last = s.substr(slash == std::string::npos ? 0 : slash + 1);
    bool latest = last.find(':') == std::string::npos || s.ends_with(":latest");
    if (s.find('@') != std::string::npos) latest = false;
    SetDefault(c, "imagePullPolicy", latest ? "Always" : "IfNotPresent");
  }
}

void CopyLimitsToRequests(Json& c) {
  Json* res = MutableField(c, "resources");
  if (!res || !res->is_object()) return;
  Json* lim = MutableField(*res, "limits");
  if (!lim || !lim->is_object()) return;
  Json& req = (*res)["requests"];
  if (req.is_null()) req = Json::object();
  if (!req.is_object()) return;
  for (const auto& [k, v] : lim->items()) {
    if (!req.contains(k)) req[k] = v;
  }
}

void ValidateEnv(const Json& c, const std::string& path, Errors& errs) {
  const Json* env = GetArray(c, "env", path, errs);
  if (!env) return;
  for (size_t i = 0; i < env->size(); ++i) {
    const Json& e = (*env)[i];
    std::string p = Index(Child(path, "env"), i);
    auto name = GetString(e, "name", p, errs);
    if (!name || name->empty()) errs.Required(Child(p, "name"));
    const Json* from = GetObject(e, "valueFrom", p, errs);
    const Json* value = Field(e, "value");
    if (from && value && value->is_string() && !value->get_ref<const std::string&>().empty()) {
      errs.Invalid(Child(p, "valueFrom"), "", "may not be specified when `value` is not empty");
    }
    if (!from) continue;
    if (const Json* fr = GetObject(*from, "fieldRef", Child(p, "valueFrom"), errs)) {
      std::string fp = Child(Child(p, "valueFrom"), "fieldRef");
      auto path_v = GetString(*fr, "fieldPath", fp, errs);
      if (!path_v) {
        errs.Required(Child(fp, "fieldPath"));
      } else if (!SupportedFieldPath(*path_v)) {
        errs.NotSupported(
            Child(fp, "fieldPath"), *path_v,
            {"metadata.name", "metadata.namespace", "metadata.uid", "metadata.labels['<KEY>']",
             "metadata.annotations['<KEY>']", "spec.nodeName", "spec.serviceAccountName",
             "status.hostIP", "status.podIP", "status.podIPs"});
      }
    }
  }
}

void ValidateContainer(const Json& c, const std::string& path, const std::set<std::string>& vols,
                       std::set<std::string>& names, Errors& errs) {
  if (!c.is_object()) {
    errs.Invalid(path, c, "must be an object");
    return;
  }
  auto name = GetString(c, "name", path, errs);
  if (!name || name->empty()) {
    errs.Required(Child(path, "name"));
  } else if (std::string e = DNS1123LabelError(*name); !e.empty()) {
    errs.Invalid(Child(path, "name"), *name, e);
  } else if (!names.insert(*name).second) {
    errs.Duplicate(Child(path, "name"), *name);
  }
  auto image = GetString(c, "image", path, errs);
  if (!image || image->empty()) errs.Required(Child(path, "image"));
  // The agent gives a container's main process no stdin or terminal to attach to (exec -it
  // gets both): refused rather than accepted and ignored.
  for (const char* key : {"stdin", "tty"}) {
    const Json* v = Field(c, key);
    if (v && v->is_boolean() && v->get<bool>()) {
      errs.Forbidden(Child(path, key),
                     "etna gives a container's main process no stdin or "
                     "terminal to attach to; use kubectl exec -it");
    }
  }
  if (auto pp = GetString(c, "imagePullPolicy", path, errs)) {
    if (std::find(kPullPolicies.begin(), kPullPolicies.end(), *pp) == kPullPolicies.end()) {
      errs.NotSupported(Child(path, "imagePullPolicy"), *pp, kPullPolicies);
    }
  }
  if (const Json* res = Field(c, "resources")) {
    ValidateResourceRequirements(*res, Child(path, "resources"), errs);
  }
  ValidateEnv(c, path, errs);
  if (const Json* ports = GetArray(c, "ports", path, errs)) {
    for (size_t i = 0; i < ports->size(); ++i) {
      std::string p = Index(Child(path, "ports"), i);
      auto port = GetInt((*ports)[i], "containerPort", p, errs);
      if (!port) {
        errs.Required(Child(p, "containerPort"));
      } else if (*port < 1 || *port > 65535) {
        errs.Invalid(Child(p, "containerPort"), *port, "must be between 1 and 65535, inclusive");
      }
    }
  }
  if (const Json* mounts = GetArray(c, "volumeMounts", path, errs)) {
    for (size_t i = 0; i < mounts->size(); ++i) {
      std::string p = Index(Child(path, "volumeMounts"), i);
      auto vname = GetString((*mounts)[i], "name", p, errs);
      if (!vname || vname->empty()) {
        errs.Required(Child(p, "name"));
      } else if (!vols.count(*vname)) {
        errs.NotFound(Child(p, "name"), *vname);
      }
      auto mp = GetString((*mounts)[i], "mountPath", p, errs);
      if (!mp || mp->empty()) errs.Required(Child(p, "mountPath"));
    }
  }
}

void ValidateTolerations(const Json& spec, const std::string& path, Errors& errs) {
  const Json* tols = GetArray(spec, "tolerations", path, errs);
  if (!tols) return;
  for (size_t i = 0; i < tols->size(); ++i) {
    const Json& t = (*tols)[i];
    std::string p = Index(Child(path, "tolerations"), i);
    auto op = GetString(t, "operator", p, errs).value_or("Equal");
    auto key = GetString(t, "key", p, errs).value_or("");
    auto value = GetString(t, "value", p, errs).value_or("");
    if (std::find(kTolerationOps.begin(), kTolerationOps.end(), op) == kTolerationOps.end()) {
      errs.NotSupported(Child(p, "operator"), op, kTolerationOps);
    } else if (op == "Exists" && !value.empty()) {
      errs.Invalid(Child(p, "operator"), value, "value must be empty when `operator` is 'Exists'");
    } else if (op == "Equal" && key.empty()) {
      errs.Invalid(Child(p, "operator"), op, "operator must be Exists when `key` is empty");
    }
    if (!key.empty()) {
      if (std::string e = QualifiedNameError(key); !e.empty())
        errs.Invalid(Child(p, "key"), key, e);
    }
    if (auto effect = GetString(t, "effect", p, errs); effect && !effect->empty()) {
      if (std::find(kTaintEffects.begin(), kTaintEffects.end(), *effect) == kTaintEffects.end()) {
        errs.NotSupported(Child(p, "effect"), *effect, kTaintEffects);
      }
    }
  }
}

}  // namespace

void DefaultPodSpec(Json& spec, bool is_pod) {
  if (!spec.is_object()) return;
  for (const char* key : {"containers", "initContainers"}) {
    Json* list = MutableField(spec, key);
    if (!list || !list->is_array()) continue;
    for (Json& c : *list) {
      DefaultContainer(c);
      if (is_pod) CopyLimitsToRequests(c);
    }
  }
  if (is_pod) {
    SetDefault(spec, "restartPolicy", "Always");
    SetDefault(spec, "schedulerName", "default-scheduler");
    SetDefault(spec, "terminationGracePeriodSeconds", 30);
    SetDefault(spec, "serviceAccountName", "default");
  }
}

namespace {

// topologySpreadConstraints, as the API server validates them (the scheduler's
// sched/plugins/topology_spread.h honours every field).
void ValidateTopologySpread(const Json& spec, const std::string& path, Errors& errs) {
  const Json* list = GetArray(spec, "topologySpreadConstraints", path, errs);
  if (!list) return;
  const std::string lp = Child(path, "topologySpreadConstraints");
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& c = (*list)[i];
    const std::string p = Index(lp, i);
    auto skew = GetInt(c, "maxSkew", p, errs);
    if (!skew || *skew <= 0)
      errs.Invalid(Child(p, "maxSkew"), skew.value_or(0), "must be greater than zero");
    auto key = GetString(c, "topologyKey", p, errs);
    if (!key || key->empty()) {
      errs.Required(Child(p, "topologyKey"), "can not be empty");
    } else if (std::string e = QualifiedNameError(*key); !e.empty()) {
      errs.Invalid(Child(p, "topologyKey"), *key, e);
    }
    auto when = GetString(c, "whenUnsatisfiable", p, errs);
    if (!when || (*when != "DoNotSchedule" && *when != "ScheduleAnyway")) {
      errs.NotSupported(Child(p, "whenUnsatisfiable"), when.value_or(""),
                        {"DoNotSchedule", "ScheduleAnyway"});
    } else if (key && !seen.insert({*key, *when}).second) {
      errs.Duplicate(p, Json{{"topologyKey", *key}, {"whenUnsatisfiable", *when}});
    }
    if (auto m = GetInt(c, "minDomains", p, errs)) {
      if (*m <= 0) errs.Invalid(Child(p, "minDomains"), *m, "must be greater than zero");
      if (when && *when != "DoNotSchedule") {
        errs.Invalid(Child(p, "minDomains"), *m,
                     "can only use minDomains if whenUnsatisfiable=DoNotSchedule");
      }
    }
    for (const char* policy : {"nodeAffinityPolicy", "nodeTaintsPolicy"}) {
      if (auto v = GetString(c, policy, p, errs); v && *v != "Honor" && *v != "Ignore") {
        errs.NotSupported(Child(p, policy), *v, {"Honor", "Ignore"});
      }
    }
    if (const Json* sel = GetObject(c, "labelSelector", p, errs)) {
      ValidateLabelSelector(*sel, Child(p, "labelSelector"), errs);
    }
    GetArray(c, "matchLabelKeys", p, errs);
  }
}

}  // namespace

void ValidatePodSpec(const Json& spec, const std::string& path, Errors& errs) {
  if (!spec.is_object()) {
    errs.Invalid(path, spec, "must be an object");
    return;
  }
  std::set<std::string> vols;
  if (const Json* volumes = GetArray(spec, "volumes", path, errs)) {
    for (size_t i = 0; i < volumes->size(); ++i) {
      std::string p = Index(Child(path, "volumes"), i);
      auto name = GetString((*volumes)[i], "name", p, errs);
      if (!name || name->empty()) {
        errs.Required(Child(p, "name"));
      } else if (std::string e = DNS1123LabelError(*name); !e.empty()) {
        errs.Invalid(Child(p, "name"), *name, e);
      } else if (!vols.insert(*name).second) {
        errs.Duplicate(Child(p, "name"), *name);
      }
    }
  }
  std::set<std::string> names;
  const Json* containers = GetArray(spec, "containers", path, errs);
  if (!containers || containers->empty()) {
    errs.Required(Child(path, "containers"));
  } else {
    for (size_t i = 0; i < containers->size(); ++i) {
      ValidateContainer((*containers)[i], Index(Child(path, "containers"), i), vols, names, errs);
    }
  }
  if (const Json* init = GetArray(spec, "initContainers", path, errs)) {
    for (size_t i = 0; i < init->size(); ++i) {
      ValidateContainer((*init)[i], Index(Child(path, "initContainers"), i), vols, names, errs);
    }
  }
  if (auto rp = GetString(spec, "restartPolicy", path, errs)) {
    if (std::find(kRestartPolicies.begin(), kRestartPolicies.end(), *rp) ==
        kRestartPolicies.end()) {
      errs.NotSupported(Child(path, "restartPolicy"), *rp, kRestartPolicies);
    }
  }
  if (auto ads = GetInt(spec, "activeDeadlineSeconds", path, errs); ads && *ads <= 0) {
    errs.Invalid(Child(path, "activeDeadlineSeconds"), *ads, "must be greater than or equal to 1");
  }
  if (auto tgp = GetInt(spec, "terminationGracePeriodSeconds", path, errs)) {
    CheckNonNegative(*tgp, Child(path, "terminationGracePeriodSeconds"), errs);
  }
  if (auto sn = GetString(spec, "schedulerName", path, errs); sn && !sn->empty()) {
    if (std::string e = DNS1123SubdomainError(*sn); !e.empty()) {
      errs.Invalid(Child(path, "schedulerName"), *sn, e);
    }
  }
  if (const Json* ns = GetObject(spec, "nodeSelector", path, errs)) {
    for (const auto& [k, v] : ns->items()) {
      std::string p = Key(Child(path, "nodeSelector"), k);
      if (std::string e = QualifiedNameError(k); !e.empty()) errs.Invalid(p, k, e);
      if (!v.is_string()) errs.Invalid(p, v, "must be a string");
    }
  }
  GetInt(spec, "priority", path, errs);
  GetString(spec, "priorityClassName", path, errs);
  GetString(spec, "nodeName", path, errs);
  ValidateTolerations(spec, path, errs);
  ValidateTopologySpread(spec, path, errs);
}

}  // namespace etna::api::admission::internal
