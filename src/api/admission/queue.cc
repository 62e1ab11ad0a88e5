// Volcano Queue (scheduling.volcano.sh/v1beta1) admission: the queue webhooks (weight 1,
// reclaimable true; weight 1..65535; capability/deserved/guarantee quantities with
// guarantee <= deserved <= capability; parent exists; hierarchy annotations), plus the seed's
// Queue fields (docs/design.md): spec.state (Open, Closing or Closed, default Open), guarantee
// written flat or with dotted `resource.<name>` keys (kept as written, validated as
// guarantee.resource), spec.minResources (the least each job must request), spec.timePolicies
// (weekday/hour windows, parsed by common/time_window.h), spec.timePolicyAction
// (KeepRunning, the default, or Suspend) and spec.allowedNamespaces (Volcano's: the namespaces
// whose work may use the queue, "*" for all; unset, all).
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "api/admission/kinds.h"
#include "api/admission/quantity.h"
#include "common/time_window.h"

namespace etna::api::admission::internal {

namespace {

// Closing (Volcano's controller writes it): no new jobs, running work continues, and the queue
// controller reports Closed once no PodGroups remain; the same as Closed until then.
const std::vector<std::string> kStates = {"Open", "Closing", "Closed"};
// What a queue does with its running work outside its time windows (common/time_window.h).
const std::vector<std::string> kTimePolicyActions = {"KeepRunning", "Suspend"};

// The guarantee as Volcano's resource map, whether written `guarantee: {resource: {...}}`,
// flat (`guarantee: {nvidia.com/gpu: 40}`) or with dotted keys (`guarantee: {resource.cpu: 10}`).
// The object keeps the form the user wrote (so `kubectl apply` sees no difference); readers use
// this view. Null when there is no (valid) guarantee.
Json GuaranteeView(const Json& spec, Errors& errs) {
  const Json* g = Field(spec, "guarantee");
  if (!g) return nullptr;
  if (!g->is_object()) {
    errs.Invalid("spec.guarantee", *g, "must be an object");
    return nullptr;
  }
  Json folded = Json::object();
  if (const Json* r = Field(*g, "resource")) {
    if (!r->is_object()) {
      errs.Invalid("spec.guarantee.resource", *r, "must be an object");
      return nullptr;
    }
    folded = *r;
  }
  for (const auto& [k, v] : g->items()) {
    if (k == "resource") continue;
    std::string name = k.rfind("resource.", 0) == 0 ? k.substr(9) : k;
    if (folded.contains(name) && folded[name] != v) {
      errs.Invalid(Key("spec.guarantee", k), v,
                   fmt::format("conflicts with spec.guarantee.resource[{}]", name));
      continue;
    }
    folded[name] = v;
  }
  return folded;
}

void ValidateTimePolicies(const Json& spec, Errors& errs) {
  const Json* tps = GetArray(spec, "timePolicies", "spec", errs);
  if (!tps) return;
  for (size_t i = 0; i < tps->size(); ++i) {
    std::string p = Index("spec.timePolicies", i);
    const Json& tp = (*tps)[i];
    if (!tp.is_object()) {
      errs.Invalid(p, tp, "must be an object with weekdays and hours");
      continue;
    }
    for (const auto& [k, v] : tp.items()) {
      if (k != "weekdays" && k != "hours") errs.NotSupported(Child(p, k), k, {"weekdays", "hours"});
    }
    auto weekdays = GetString(tp, "weekdays", p, errs);
    auto hours = GetString(tp, "hours", p, errs);
    if (!weekdays && !hours) errs.Required(p, "weekdays or hours");
    if (weekdays) {
      if (auto days = ParseWeekdays(*weekdays); !days.ok()) {
        errs.Invalid(Child(p, "weekdays"), *weekdays, days.status().message());
      }
    }
    if (hours) {
      if (auto h = ParseHours(*hours); !h.ok()) {
        errs.Invalid(Child(p, "hours"), *hours, h.status().message());
      }
    }
  }
}

void ValidateTimePolicyAction(const Json& spec, Errors& errs) {
  if (auto action = GetString(spec, "timePolicyAction", "spec", errs);
      action && std::find(kTimePolicyActions.begin(), kTimePolicyActions.end(), *action) ==
                    kTimePolicyActions.end()) {
    errs.NotSupported("spec.timePolicyAction", *action, kTimePolicyActions);
  }
}

void ValidateAllowedNamespaces(const Json& spec, Errors& errs) {
  const Json* allowed = GetArray(spec, "allowedNamespaces", "spec", errs);
  if (!allowed) return;
  for (size_t i = 0; i < allowed->size(); ++i) {
    const Json& entry = (*allowed)[i];
    const std::string path = Index("spec.allowedNamespaces", i);
    if (!entry.is_string()) {
      errs.Invalid(path, FormatValue(entry), "must be a namespace name or \"*\"");
    } else if (entry != "*") {
      if (std::string e = DNS1123LabelError(entry.get<std::string>()); !e.empty()) {
        errs.Invalid(path, entry.get<std::string>(), e);
      }
    }
  }
}

void ValidateHierarchyAnnotations(const Json& object, Errors& errs) {
  const Json* meta = Field(object, "metadata");
  const Json* ann = meta ? Field(*meta, "annotations") : nullptr;
  if (!ann || !ann->is_object()) return;
  const Json* h = Field(*ann, "volcano.sh/hierarchy");
  const Json* w = Field(*ann, "volcano.sh/hierarchy-weights");
  if (!h && !w) return;
  auto split = [](const std::string& s) {
    std::vector<std::string> parts;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, '/')) parts.push_back(part);
    return parts;
  };
  const std::string hp = "metadata.annotations[volcano.sh/hierarchy]";
  const std::string wp = "metadata.annotations[volcano.sh/hierarchy-weights]";
  if (!h || !w || !h->is_string() || !w->is_string()) {
    errs.Required(h ? wp : hp,
                  "volcano.sh/hierarchy and volcano.sh/hierarchy-weights go "
                  "together");
    return;
  }
  auto hs = split(h->get<std::string>());
  auto ws = split(w->get<std::string>());
  if (hs.size() != ws.size()) {
    errs.Invalid(wp, *w, fmt::format("must have as many levels as {} ({})", hp, hs.size()));
  }
  if (hs.empty() || hs[0] != "root") errs.Invalid(hp, *h, "must start with root");
  for (const std::string& x : ws) {
    char* end = nullptr;
    double d = std::strtod(x.c_str(), &end);
    if (x.empty() || *end != '\0' || !(d > 0)) {
      errs.Invalid(wp, *w, "each weight must be a positive number");
      break;
    }
  }
}

}  // namespace

void AdmitQueue(Context& c) {
  Json* spec_p = SpecOf(c.object, c.errs);
  if (!spec_p) return;
  Json& spec = *spec_p;
  Errors& errs = c.errs;
  const Json guarantee = GuaranteeView(spec, errs);
  if (!Field(spec, "weight") || spec["weight"] == 0) spec["weight"] = 1;
  SetDefault(spec, "reclaimable", true);
  if (c.op == Operation::kCreate && !Field(spec, "state")) {
    // The seed (and Volcano's QueueStatus) may write the state in status: it is the queue's
    // state from the start, so the controller does not reopen a queue created Closed.
    if (const Json* st = Field(c.object, "status"); st && Field(*st, "state")) {
      if (auto s = GetString(*st, "state", "status", errs)) {
        if (std::find(kStates.begin(), kStates.end(), *s) == kStates.end()) {
          errs.NotSupported("status.state", *s, kStates);
        } else {
          spec["state"] = *s;
        }
      }
    }
  }
  SetDefault(spec, "state", "Open");

  if (auto w = GetInt(spec, "weight", "spec", errs); w && (*w < 1 || *w > 65535)) {
    errs.Invalid("spec.weight", *w, "must be between 1 and 65535, inclusive");
  }
  GetBool(spec, "reclaimable", "spec", errs);
  if (auto p = GetInt(spec, "priority", "spec", errs)) CheckInt32(*p, "spec.priority", errs);
  if (auto s = GetString(spec, "state", "spec", errs);
      s && std::find(kStates.begin(), kStates.end(), *s) == kStates.end()) {
    errs.NotSupported("spec.state", *s, kStates);
  }
  ResourceAmounts cap, des, gua;
  const Json* cap_j = GetObject(spec, "capability", "spec", errs);
  const Json* des_j = GetObject(spec, "deserved", "spec", errs);
  const Json* gua_j = guarantee.is_object() ? &guarantee : nullptr;
  if (cap_j) cap = ValidateResourceList(*cap_j, "spec.capability", false, errs);
  if (des_j) des = ValidateResourceList(*des_j, "spec.deserved", false, errs);
  if (gua_j) gua = ValidateResourceList(*gua_j, "spec.guarantee.resource", false, errs);
  if (cap_j && gua_j) {
    CheckLessOrEqual(gua, *gua_j, "spec.guarantee.resource", cap, *cap_j, "spec.capability", errs);
  }
  if (cap_j && des_j) {
    CheckLessOrEqual(des, *des_j, "spec.deserved", cap, *cap_j, "spec.capability", errs);
  }
  if (des_j && gua_j) {
    CheckLessOrEqual(gua, *gua_j, "spec.guarantee.resource", des, *des_j, "spec.deserved", errs);
  }
  if (const Json* mr = GetObject(spec, "minResources", "spec", errs)) {
    ResourceAmounts min = ValidateResourceList(*mr, "spec.minResources", false, errs);
    if (cap_j)
      CheckLessOrEqual(min, *mr, "spec.minResources", cap, *cap_j, "spec.capability", errs);
  }
  ValidateTimePolicies(spec, errs);
  ValidateTimePolicyAction(spec, errs);
  ValidateAllowedNamespaces(spec, errs);
  ValidateHierarchyAnnotations(c.object, errs);
  if (auto parent = GetString(spec, "parent", "spec", errs); parent && !parent->empty()) {
    std::string name = NameOf(c.object);
    if (*parent == name) {
      errs.Invalid("spec.parent", *parent, "a queue cannot be its own parent");
    } else if (name == "root") {
      errs.Forbidden("spec.parent", "the root queue has no parent");
    } else if (*parent != "root") {
      auto got = c.lookup.Get(QueueResource(), "", *parent);
      if (!got.ok()) errs.Invalid("spec.parent", *parent, "parent queue not found");
    }
  }
}

}  // namespace etna::api::admission::internal
