// Volcano Queue (scheduling.volcano.sh/v1beta1) admission: the queue webhooks (weight 1,
// reclaimable true; weight 1..65535; capability/deserved/guarantee quantities with
// guarantee <= deserved <= capability; parent exists; hierarchy annotations), plus the seed's
// Queue fields (docs/design.md): spec.state (Open or Closed, default Open), guarantee written flat
// or with dotted `resource.<name>` keys (kept as written, validated as guarantee.resource),
// spec.minResources
// (the least each job must request) and spec.timePolicies (weekday/hour windows).
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "api/admission/kinds.h"
#include "api/admission/quantity.h"

namespace etna::api::admission::internal {

namespace {

const std::vector<std::string> kStates = {"Open", "Closed"};

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

// "1-5" or "1,3,5-7": ISO weekdays, 1 = Monday .. 7 = Sunday. "9-18": hours 0..24; a window
// whose start is after its end wraps past midnight.
bool ParseRanges(const std::string& s, int lo, int hi, bool ordered) {
  if (s.empty()) return false;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    size_t dash = item.find('-');
    auto num = [&](const std::string& t, int* out) {
      if (t.empty() || t.size() > 2 || !std::all_of(t.begin(), t.end(), ::isdigit)) return false;
      *out = std::stoi(t);
      return *out >= lo && *out <= hi;
    };
    int a = 0, b = 0;
    if (dash == std::string::npos) {
      if (!num(item, &a)) return false;
    } else {
      if (!num(item.substr(0, dash), &a) || !num(item.substr(dash + 1), &b)) return false;
      if (a == b || (ordered && a > b)) return false;
    }
  }
  return true;
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
    if (weekdays && !ParseRanges(*weekdays, 1, 7, true)) {
      errs.Invalid(Child(p, "weekdays"), *weekdays,
                   "must be days 1 (Monday) to 7 (Sunday) as a list of days or ranges, e.g. "
                   "\"1-5\" or \"1,3,6-7\"");
    }
    if (hours && (hours->find('-') == std::string::npos || !ParseRanges(*hours, 0, 24, false))) {
      errs.Invalid(Child(p, "hours"), *hours,
                   "must be hour ranges between 0 and 24, e.g. \"9-18\" or \"22-6\"");
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
