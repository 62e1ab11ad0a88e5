// Kubernetes RBAC (rbac.authorization.k8s.io/v1) over the stored Roles, ClusterRoles,
// RoleBindings and ClusterRoleBindings, as kube-apiserver's RBAC authorizer evaluates them:
// - a ClusterRoleBinding grants its ClusterRole's rules everywhere (every namespace and the
//   cluster-scoped resources); a RoleBinding grants its Role's (or a ClusterRole's) rules in
//   the binding's namespace only;
// - subjects: User (name), Group (name), ServiceAccount (namespace/name →
//   "system:serviceaccount:<ns>:<name>");
// - a rule matches when its verbs, apiGroups and resources (or "*"; "pods/log" for a
//   subresource, "*/scale" for one subresource of every resource) cover the request and, when
//   it lists resourceNames, the request names one of them (never a create or deletecollection);
//   nonResourceURLs match paths ("/healthz", or a prefix ending in "*");
// - a ClusterRole with an aggregationRule has the rules of every ClusterRole its
//   clusterRoleSelectors match (api/types/rbac.h; what the aggregation controller writes into
//   it), computed here, through chains of aggregated roles, so that a new role counts at once.
// Only grants: RBAC has no deny rules; other authorizers (auth.h) are asked first.
//
// RbacSnapshot is immutable (thread-safe); RbacAuthorizer keeps one current from the store's
// watch (PrefixCache) and may be called concurrently.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "api/server/auth.h"
#include "api/server/prefix_cache.h"
#include "store/store.h"

namespace etna::api::server {

// One rbac/v1 PolicyRule.
struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;

  static PolicyRule FromJson(const nlohmann::json& rule);
  nlohmann::json ToJson() const;
  bool operator==(const PolicyRule&) const = default;
};

// Whether `rule` grants the resource request (AccessRequest::resource is "plural" or
// "plural.group").
bool RuleAllows(const PolicyRule& rule, const AccessRequest& request);
// Whether `rule` grants `verb` (get, post, ...: lower case) on the non-resource `path`.
bool RuleAllowsPath(const PolicyRule& rule, const std::string& verb, const std::string& path);

class RbacSnapshot {
 public:
  // From the stored objects of the four kinds (decoded API objects).
  RbacSnapshot(const std::vector<nlohmann::json>& cluster_roles,
               const std::vector<nlohmann::json>& roles,
               const std::vector<nlohmann::json>& cluster_role_bindings,
               const std::vector<nlohmann::json>& role_bindings);

  bool Allows(const UserInfo& user, const AccessRequest& request) const;
  bool AllowsPath(const UserInfo& user, const std::string& verb, const std::string& path) const;
  // Calls `fn` on every rule granted to `user` for requests in namespace `ns` ("": the
  // cluster scope, so ClusterRoleBindings only).
  void VisitRules(const UserInfo& user, const std::string& ns,
                  const std::function<void(const PolicyRule&)>& fn) const;
  // The rules of the role a binding in `ns` ("" for a ClusterRoleBinding) refers to: kind
  // "Role" (in `ns`) or "ClusterRole"; nullptr when there is no such role.
  const std::vector<PolicyRule>* RoleRules(const std::string& kind, const std::string& ns,
                                           const std::string& name) const;
  // A ClusterRole's rules with its aggregation applied; nullptr when there is none.
  const std::vector<PolicyRule>* ClusterRoleRules(const std::string& name) const;

 private:
  struct Subject {
    std::string kind;  // User, Group, ServiceAccount
    std::string name;  // for a ServiceAccount: "system:serviceaccount:<ns>:<name>"
  };
  struct Binding {
    std::string role_kind;
    std::string role_name;
    std::string ns;  // "" for a ClusterRoleBinding
    std::vector<Subject> subjects;
  };
  static bool Binds(const Binding& binding, const UserInfo& user);
  static Binding ParseBinding(const nlohmann::json& object, const std::string& ns);
  // Fills the aggregated ClusterRoles' rules from the roles their selectors match.
  void Aggregate(const std::vector<nlohmann::json>& cluster_roles);
  void VisitBindingRules(const Binding& b, const std::function<void(const PolicyRule&)>& fn) const;

  std::map<std::string, std::vector<PolicyRule>> cluster_roles_;
  std::map<std::pair<std::string, std::string>, std::vector<PolicyRule>> roles_;  // (ns, name)
  std::vector<Binding> cluster_bindings_;
  std::map<std::string, std::vector<Binding>> bindings_by_ns_;
};

// Keeps an RbacSnapshot current: four caches that follow the store's watch, and a new snapshot
// whenever one of them changed since the last.
class RbacAuthorizer {
 public:
  explicit RbacAuthorizer(store::Store* store);
  // The snapshot as of now (a write this server acknowledged before the call is in it); an
  // empty one when the store cannot be read.
  std::shared_ptr<const RbacSnapshot> Current();

 private:
  std::array<std::unique_ptr<PrefixCache>, 4> caches_;  // clusterroles, roles, crb, rb
  std::mutex mu_;
  std::array<uint64_t, 4> seen_{};
  std::shared_ptr<const RbacSnapshot> current_;
};

}  // namespace etna::api::server
