// RBAC's escalation check on writes of Roles, ClusterRoles and their bindings, as Kubernetes
// makes it: nobody grants what they do not hold.
// - A Role or ClusterRole may be written by a user who holds every permission its rules grant,
//   in the role's namespace (a ClusterRole: at the cluster scope), or who may "escalate" it; an
//   aggregated ClusterRole (whose rules come from other roles) needs "escalate".
// - A RoleBinding or ClusterRoleBinding may be written by a user who holds every permission of
//   the role it refers to, in the binding's namespace (a ClusterRoleBinding: at the cluster
//   scope), or who may "bind" that role.
// The object checked is the one that will be stored: a patch is applied here first, and sent
// on with a precondition on the version it was applied to, so a concurrent change gets 409.
#include <fmt/format.h>

#include "api/codec/patch.h"
#include "api/server/api_server.h"
#include "api/server/handler_util.h"
#include "api/server/rbac.h"
#include "api/server/request_info.h"
#include "api/types/fields.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr char kRbacGroup[] = "rbac.authorization.k8s.io";

// The AccessRequests a rule grants, one per verb, group, resource and name it lists (none for
// a non-resource rule).
std::vector<AccessRequest> Grants(const PolicyRule& rule, const std::string& ns) {
  std::vector<AccessRequest> out;
  std::vector<std::string> names = rule.resource_names;
  if (names.empty()) names.push_back("");
  for (const std::string& verb : rule.verbs) {
    for (const std::string& group : rule.api_groups) {
      for (const std::string& resource : rule.resources) {
        std::string plural = resource;
        std::string sub;
        if (auto slash = resource.find('/'); slash != std::string::npos) {
          plural = resource.substr(0, slash);
          sub = resource.substr(slash + 1);
        }
        for (const std::string& name : names) {
          out.push_back({verb, group.empty() ? plural : plural + "." + group, sub, ns, name});
        }
      }
    }
  }
  return out;
}

}  // namespace

std::optional<ApiError> ApiServer::CheckNoEscalation(const UserInfo& user,
                                                     const std::vector<PolicyRule>& rules,
                                                     const std::string& ns,
                                                     const std::string& what) {
  if (user.InGroup("system:masters")) return std::nullopt;
  for (const PolicyRule& rule : rules) {
    for (const std::string& url : rule.non_resource_urls) {
      for (const std::string& verb : rule.verbs) {
        if (!AuthorizePath(user, verb, url)) {
          return ApiError::Forbidden(fmt::format(
              "{} is forbidden: user \"{}\" is attempting to grant RBAC permissions not currently "
              "held: {} on the non-resource URL \"{}\"",
              what, user.name, verb, url));
        }
      }
    }
    for (const AccessRequest& grant : Grants(rule, ns)) {
      if (Authorize(user, grant) != AccessDecision::kAllow) {
        return ApiError::Forbidden(fmt::format(
            "{} is forbidden: user \"{}\" is attempting to grant RBAC permissions not currently "
            "held: {}",
            what, user.name, ForbiddenMessage(user, grant)));
      }
    }
  }
  return std::nullopt;
}

std::optional<net::http::Response> ApiServer::GuardRbacWrite(net::http::Request& request,
                                                             const RequestInfo& ri,
                                                             const resources::ResourceInfo& info,
                                                             const UserInfo& user) {
  if (info.group != kRbacGroup || !ri.subresource.empty() ||
      (ri.verb != "create" && ri.verb != "update" && ri.verb != "patch") ||
      user.InGroup("system:masters")) {
    return std::nullopt;
  }
  FieldValidation fields;
  auto body = DecodeWriteBody(request, options_.limits, &fields);
  if (!body.ok()) return body.error().ToResponse();
  json object = std::move(body).value();
  if (ri.verb == "patch") {
    std::optional<PatchType> type = PatchTypeFor(request.Header("content-type"));
    if (!type) return std::nullopt;  // PatchObject answers
    json patch = object;
    auto current = objects_.GetObject(info, ri.ns, ri.name);
    if (current.ok()) {
      auto patched = ApplyPatch(*type, *current, patch);
      if (!patched.ok()) return patched.error().ToResponse();
      object = std::move(patched).value();
      // What is written must be what was checked.
      json version = current->value("/metadata/resourceVersion"_json_pointer, json());
      if (*type == PatchType::kJson && patch.is_array()) {
        patch.push_back(
            {{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", version}});
      } else if (patch.is_object() && !patch.contains("/metadata/resourceVersion"_json_pointer)) {
        patch["metadata"]["resourceVersion"] = version;
      }
      request.body = patch.dump();
    } else if (current.error().code != 404 || *type != PatchType::kApply) {
      return current.error().ToResponse();
    }
  }
  if (!object.is_object()) return std::nullopt;  // the handler refuses it
  const std::string name =
      ri.name.empty() ? object.value("/metadata/name"_json_pointer, std::string()) : ri.name;
  const std::string what = fmt::format("{}.{} \"{}\"", info.plural, info.group, name);
  auto snapshot = rbac_.Current();
  if (info.kind == "Role" || info.kind == "ClusterRole") {
    AccessRequest escalate{"escalate", info.QualifiedPlural(), "", ri.ns, name};
    if (Authorize(user, escalate) == AccessDecision::kAllow) return std::nullopt;
    if (types::Find(object, {"aggregationRule"})) {
      return ApiError::Forbidden(
                 fmt::format("{} is forbidden: an aggregated ClusterRole needs the \"escalate\" "
                             "permission: {}",
                             what, ForbiddenMessage(user, escalate)))
          .ToResponse();
    }
    std::vector<PolicyRule> rules;
    for (const json& r : types::Array(object, {"rules"})) rules.push_back(PolicyRule::FromJson(r));
    if (auto refused = CheckNoEscalation(user, rules, ri.ns, what)) return refused->ToResponse();
    return std::nullopt;
  }
  const std::string kind = types::String(object, {"roleRef", "kind"});
  const std::string role = types::String(object, {"roleRef", "name"});
  const std::string role_ns = kind == "Role" ? ri.ns : "";
  AccessRequest bind{
      "bind",
      kind == "Role" ? "roles.rbac.authorization.k8s.io" : "clusterroles.rbac.authorization.k8s.io",
      "", role_ns, role};
  if (Authorize(user, bind) == AccessDecision::kAllow) return std::nullopt;
  const std::vector<PolicyRule>* rules = snapshot->RoleRules(kind, ri.ns, role);
  if (!rules) {
    return ApiError::Forbidden(fmt::format("{} is forbidden: roleRef: {} \"{}\" not found, and "
                                           "binding a role that does not exist needs the "
                                           "\"bind\" permission",
                                           what, kind, role))
        .ToResponse();
  }
  if (auto refused = CheckNoEscalation(user, *rules, ri.ns, what)) return refused->ToResponse();
  return std::nullopt;
}

}  // namespace etna::api::server
