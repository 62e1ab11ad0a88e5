// RBAC evaluation (rbac.h).
#include "api/server/rbac.h"

#include <algorithm>

#include "api/types/fields.h"
#include "api/types/rbac.h"
#include "store/keys.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr char kAll[] = "*";

std::vector<std::string> Strings(const json& object, const char* field) {
  std::vector<std::string> out;
  for (const json& v : types::Array(object, {field})) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

bool Has(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool HasOrAll(const std::vector<std::string>& list, const std::string& value) {
  return Has(list, kAll) || Has(list, value);
}

std::string ServiceAccountUser(const std::string& ns, const std::string& name) {
  return "system:serviceaccount:" + ns + ":" + name;
}

}  // namespace

PolicyRule PolicyRule::FromJson(const json& rule) {
  PolicyRule r;
  r.verbs = Strings(rule, "verbs");
  r.api_groups = Strings(rule, "apiGroups");
  r.resources = Strings(rule, "resources");
  r.resource_names = Strings(rule, "resourceNames");
  r.non_resource_urls = Strings(rule, "nonResourceURLs");
  return r;
}

json PolicyRule::ToJson() const {
  json out = {{"verbs", verbs}};
  if (!api_groups.empty()) out["apiGroups"] = api_groups;
  if (!resources.empty()) out["resources"] = resources;
  if (!resource_names.empty()) out["resourceNames"] = resource_names;
  if (!non_resource_urls.empty()) out["nonResourceURLs"] = non_resource_urls;
  return out;
}

bool RuleAllows(const PolicyRule& rule, const AccessRequest& request) {
  if (!HasOrAll(rule.verbs, request.verb)) return false;
  std::string plural = request.resource;
  std::string group;
  if (auto dot = plural.find('.'); dot != std::string::npos) {
    group = plural.substr(dot + 1);
    plural.resize(dot);
  }
  if (!HasOrAll(rule.api_groups, group)) return false;
  const std::string combined =
      request.subresource.empty() ? plural : plural + "/" + request.subresource;
  bool resource = false;
  for (const std::string& r : rule.resources) {
    resource = r == kAll || r == combined ||
               (!request.subresource.empty() && r == "*/" + request.subresource);
    if (resource) break;
  }
  if (!resource) return false;
  if (rule.resource_names.empty()) return true;
  // A create or deletecollection cannot be limited by name (Kubernetes' rule): the authorizer
  // does not know which objects they touch.
  if (request.name.empty() || request.verb == "create" || request.verb == "deletecollection") {
    return false;
  }
  return Has(rule.resource_names, request.name);
}

bool RuleAllowsPath(const PolicyRule& rule, const std::string& verb, const std::string& path) {
  if (!HasOrAll(rule.verbs, verb)) return false;
  for (const std::string& url : rule.non_resource_urls) {
    if (url == kAll || url == path) return true;
    if (!url.empty() && url.back() == '*' &&
        path.compare(0, url.size() - 1, url, 0, url.size() - 1) == 0) {
      return true;
    }
  }
  return false;
}

RbacSnapshot::RbacSnapshot(const std::vector<json>& cluster_roles, const std::vector<json>& roles,
                           const std::vector<json>& cluster_role_bindings,
                           const std::vector<json>& role_bindings) {
  auto rules_of = [](const json& role) {
    std::vector<PolicyRule> rules;
    for (const json& r : types::Array(role, {"rules"})) rules.push_back(PolicyRule::FromJson(r));
    return rules;
  };
  for (const json& role : cluster_roles) {
    cluster_roles_[types::String(role, {"metadata", "name"})] = rules_of(role);
  }
  Aggregate(cluster_roles);
  for (const json& role : roles) {
    roles_[{types::String(role, {"metadata", "namespace"}),
            types::String(role, {"metadata", "name"})}] = rules_of(role);
  }
  for (const json& b : cluster_role_bindings) cluster_bindings_.push_back(ParseBinding(b, ""));
  for (const json& b : role_bindings) {
    std::string ns = types::String(b, {"metadata", "namespace"});
    bindings_by_ns_[ns].push_back(ParseBinding(b, ns));
  }
}

void RbacSnapshot::Aggregate(const std::vector<json>& cluster_roles) {
  // Aggregated roles may select each other (admin selects edit, edit selects view): passes
  // until nothing changes, as the controller's writes would settle.
  std::vector<json> roles = cluster_roles;
  std::vector<const json*> all;
  for (const json& role : roles) all.push_back(&role);
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    for (json& role : roles) {
      if (!types::IsAggregated(role)) continue;
      json rules = types::AggregatedRules(role, all);
      if (types::Array(role, {"rules"}) == rules) continue;
      role["rules"] = std::move(rules);
      changed = true;
    }
    if (!changed) break;
  }
  for (const json& role : roles) {
    if (!types::IsAggregated(role)) continue;
    std::vector<PolicyRule> rules;
    for (const json& r : types::Array(role, {"rules"})) rules.push_back(PolicyRule::FromJson(r));
    cluster_roles_[types::String(role, {"metadata", "name"})] = std::move(rules);
  }
}

RbacSnapshot::Binding RbacSnapshot::ParseBinding(const json& object, const std::string& ns) {
  Binding b;
  b.role_kind = types::String(object, {"roleRef", "kind"});
  b.role_name = types::String(object, {"roleRef", "name"});
  b.ns = ns;
  for (const json& s : types::Array(object, {"subjects"})) {
    Subject subject{types::String(s, {"kind"}), types::String(s, {"name"})};
    if (subject.kind == "ServiceAccount") {
      subject.name = ServiceAccountUser(types::String(s, {"namespace"}, ns), subject.name);
    }
    b.subjects.push_back(std::move(subject));
  }
  return b;
}

bool RbacSnapshot::Binds(const Binding& binding, const UserInfo& user) {
  for (const Subject& s : binding.subjects) {
    if ((s.kind == "User" || s.kind == "ServiceAccount") && s.name == user.name) return true;
    if (s.kind == "Group" && user.InGroup(s.name)) return true;
  }
  return false;
}

const std::vector<PolicyRule>* RbacSnapshot::RoleRules(const std::string& kind,
                                                       const std::string& ns,
                                                       const std::string& name) const {
  if (kind == "ClusterRole") return ClusterRoleRules(name);
  if (kind != "Role" || ns.empty()) return nullptr;
  auto it = roles_.find({ns, name});
  return it == roles_.end() ? nullptr : &it->second;
}

const std::vector<PolicyRule>* RbacSnapshot::ClusterRoleRules(const std::string& name) const {
  auto it = cluster_roles_.find(name);
  return it == cluster_roles_.end() ? nullptr : &it->second;
}

void RbacSnapshot::VisitBindingRules(const Binding& b,
                                     const std::function<void(const PolicyRule&)>& fn) const {
  if (const auto* rules = RoleRules(b.role_kind, b.ns, b.role_name)) {
    for (const PolicyRule& r : *rules) fn(r);
  }
}

void RbacSnapshot::VisitRules(const UserInfo& user, const std::string& ns,
                              const std::function<void(const PolicyRule&)>& fn) const {
  for (const Binding& b : cluster_bindings_) {
    if (Binds(b, user)) VisitBindingRules(b, fn);
  }
  if (ns.empty()) return;
  auto it = bindings_by_ns_.find(ns);
  if (it == bindings_by_ns_.end()) return;
  for (const Binding& b : it->second) {
    if (Binds(b, user)) VisitBindingRules(b, fn);
  }
}

bool RbacSnapshot::Allows(const UserInfo& user, const AccessRequest& request) const {
  bool allowed = false;
  VisitRules(user, request.ns,
             [&](const PolicyRule& r) { allowed = allowed || RuleAllows(r, request); });
  return allowed;
}

bool RbacSnapshot::AllowsPath(const UserInfo& user, const std::string& verb,
                              const std::string& path) const {
  bool allowed = false;
  VisitRules(user, "",
             [&](const PolicyRule& r) { allowed = allowed || RuleAllowsPath(r, verb, path); });
  return allowed;
}

RbacAuthorizer::RbacAuthorizer(store::Store* store) {
  const char* kinds[] = {"clusterroles", "roles", "clusterrolebindings", "rolebindings"};
  for (size_t i = 0; i < caches_.size(); ++i) {
    caches_[i] = std::make_unique<PrefixCache>(
        store, store::ResourcePrefix(std::string(kinds[i]) + ".rbac.authorization.k8s.io"));
  }
}

std::shared_ptr<const RbacSnapshot> RbacAuthorizer::Current() {
  std::lock_guard<std::mutex> lock(mu_);
  std::array<uint64_t, 4> changes{};
  bool ok = true;
  for (size_t i = 0; i < caches_.size(); ++i) {
    auto n = caches_[i]->Changes();
    ok = ok && n.ok();
    if (n.ok()) changes[i] = *n;
  }
  if (!ok) {
    return std::make_shared<RbacSnapshot>(std::vector<json>{}, std::vector<json>{},
                                          std::vector<json>{}, std::vector<json>{});
  }
  if (current_ && changes == seen_) return current_;
  std::array<std::vector<json>, 4> lists;
  for (size_t i = 0; i < caches_.size(); ++i) {
    auto list = caches_[i]->List();
    if (list.ok()) lists[i] = std::move(list).value();
  }
  current_ = std::make_shared<RbacSnapshot>(lists[0], lists[1], lists[2], lists[3]);
  seen_ = changes;
  return current_;
}

}  // namespace etna::api::server
