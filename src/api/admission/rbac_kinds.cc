// Admission of rbac.authorization.k8s.io/v1 kinds, as the API server validates them:
// - Role, ClusterRole: every rule names verbs, and either apiGroups and resources or (in a
//   ClusterRole only) nonResourceURLs, never both; a ClusterRole's aggregationRule selectors
//   are valid label selectors.
// - RoleBinding, ClusterRoleBinding: roleRef (apiGroup rbac.authorization.k8s.io, kind Role or
//   ClusterRole — a ClusterRoleBinding only ClusterRole —, name) is required and cannot change;
//   subjects are User or Group (apiGroup defaulted to rbac.authorization.k8s.io) or
//   ServiceAccount (apiGroup ""; namespace defaulted to a RoleBinding's own, required in a
//   ClusterRoleBinding), each with a name.
#include "api/admission/kinds.h"

namespace etna::api::admission::internal {
namespace {

constexpr char kRbacGroup[] = "rbac.authorization.k8s.io";

// A list of strings at `path`, non-empty unless `empty_ok` ("" is the core API group); returns
// its size (0 when missing or invalid).
size_t StringList(const Json& rule, const char* key, const std::string& path, Errors& errs,
                  bool empty_ok = false) {
  const Json* list = GetArray(rule, key, path, errs);
  if (!list) return 0;
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& v = (*list)[i];
    if (!v.is_string() || (!empty_ok && v.get_ref<const std::string&>().empty())) {
      errs.Invalid(Index(Child(path, key), i), v, "must be a non-empty string");
    }
  }
  return list->size();
}

void ValidateRules(const Json& object, bool namespaced, Errors& errs) {
  const Json* rules = GetArray(object, "rules", "", errs);
  if (!rules) return;
  for (size_t i = 0; i < rules->size(); ++i) {
    const std::string path = Index("rules", i);
    const Json& rule = (*rules)[i];
    if (!rule.is_object()) {
      errs.Invalid(path, rule, "must be an object");
      continue;
    }
    if (StringList(rule, "verbs", path, errs) == 0) {
      errs.Required(Child(path, "verbs"), "verbs must contain at least one value");
    }
    size_t groups = StringList(rule, "apiGroups", path, errs, true);
    size_t resources = StringList(rule, "resources", path, errs);
    StringList(rule, "resourceNames", path, errs);
    size_t urls = StringList(rule, "nonResourceURLs", path, errs);
    if (urls > 0) {
      if (namespaced) {
        errs.Invalid(Child(path, "nonResourceURLs"), rule["nonResourceURLs"],
                     "namespaced rules cannot apply to non-resource URLs");
      } else if (groups > 0 || resources > 0) {
        errs.Invalid(Child(path, "nonResourceURLs"), rule["nonResourceURLs"],
                     "rules cannot apply to both regular resources and non-resource URLs");
      }
      continue;
    }
    if (groups == 0) {
      errs.Required(Child(path, "apiGroups"), "resource rules must supply at least one api group");
    }
    if (resources == 0) {
      errs.Required(Child(path, "resources"), "resource rules must supply at least one resource");
    }
  }
}

void AdmitBinding(Context& c, bool cluster) {
  Errors& errs = c.errs;
  const Json* ref = GetObject(c.object, "roleRef", "", errs);
  if (!ref) {
    if (!Field(c.object, "roleRef")) errs.Required("roleRef");
  } else {
    auto group = GetString(*ref, "apiGroup", "roleRef", errs);
    if (group && *group != kRbacGroup) errs.NotSupported("roleRef.apiGroup", *group, {kRbacGroup});
    auto kind = GetString(*ref, "kind", "roleRef", errs);
    std::vector<std::string> kinds = cluster ? std::vector<std::string>{"ClusterRole"}
                                             : std::vector<std::string>{"Role", "ClusterRole"};
    if (!kind || kind->empty()) {
      errs.Required("roleRef.kind");
    } else if (std::find(kinds.begin(), kinds.end(), *kind) == kinds.end()) {
      errs.NotSupported("roleRef.kind", *kind, kinds);
    }
    auto name = GetString(*ref, "name", "roleRef", errs);
    if (!name || name->empty()) errs.Required("roleRef.name");
  }
  if (c.old && Field(*c.old, "roleRef") && Field(c.object, "roleRef") &&
      (*c.old)["roleRef"] != c.object["roleRef"]) {
    errs.Invalid("roleRef", c.object["roleRef"], "cannot change roleRef");
  }
  Json* subjects = MutableField(c.object, "subjects");
  if (!subjects || subjects->is_null()) return;
  if (!subjects->is_array()) {
    errs.Invalid("subjects", *subjects, "must be a list");
    return;
  }
  const std::string ns = NamespaceOf(c.object);
  for (size_t i = 0; i < subjects->size(); ++i) {
    const std::string path = Index("subjects", i);
    Json& s = (*subjects)[i];
    if (!s.is_object()) {
      errs.Invalid(path, s, "must be an object");
      continue;
    }
    auto kind = GetString(s, "kind", path, errs);
    auto name = GetString(s, "name", path, errs);
    if (!name || name->empty()) errs.Required(Child(path, "name"));
    if (kind == "User" || kind == "Group") {
      SetDefault(s, "apiGroup", kRbacGroup);
      if (auto g = GetString(s, "apiGroup", path, errs); g && *g != kRbacGroup) {
        errs.NotSupported(Child(path, "apiGroup"), *g, {kRbacGroup});
      }
    } else if (kind == "ServiceAccount") {
      if (auto g = GetString(s, "apiGroup", path, errs); g && !g->empty()) {
        errs.NotSupported(Child(path, "apiGroup"), *g, {""});
      }
      if (!cluster) SetDefault(s, "namespace", ns);
      auto sa_ns = GetString(s, "namespace", path, errs);
      if (!sa_ns || sa_ns->empty()) errs.Required(Child(path, "namespace"));
    } else {
      errs.NotSupported(Child(path, "kind"), kind.value_or(""),
                        {"ServiceAccount", "User", "Group"});
    }
  }
}

}  // namespace

void AdmitRole(Context& c) { ValidateRules(c.object, true, c.errs); }

void AdmitClusterRole(Context& c) {
  ValidateRules(c.object, false, c.errs);
  const Json* rule = GetObject(c.object, "aggregationRule", "", c.errs);
  if (!rule) return;
  const Json* selectors = GetArray(*rule, "clusterRoleSelectors", "aggregationRule", c.errs);
  if (!selectors) return;
  for (size_t i = 0; i < selectors->size(); ++i) {
    ValidateLabelSelector((*selectors)[i], Index("aggregationRule.clusterRoleSelectors", i),
                          c.errs);
  }
}

void AdmitRoleBinding(Context& c) { AdmitBinding(c, false); }
void AdmitClusterRoleBinding(Context& c) { AdmitBinding(c, true); }

}  // namespace etna::api::admission::internal
