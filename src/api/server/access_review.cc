// Authorization as the API server's users see it: the combined decision (the fixed and YAML
// rules of auth.h, then RBAC), impersonation (kubectl --as/--as-group), and the access reviews
// `kubectl auth can-i` and `kubectl auth whoami` ask: SelfSubjectAccessReview,
// SelfSubjectRulesReview, SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectReview,
// answered at each create and never stored.
#include <fmt/format.h>

#include "api/server/api_server.h"
#include "api/server/handler_util.h"
#include "api/server/rbac.h"
#include "api/server/request_info.h"
#include "api/types/fields.h"
#include "common/strings.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr char kServiceAccountPrefix[] = "system:serviceaccount:";

// The AccessRequest of a review's spec.resourceAttributes.
AccessRequest FromResourceAttributes(const json& attributes) {
  std::string group = types::String(attributes, {"group"});
  std::string resource = types::String(attributes, {"resource"});
  return AccessRequest{
      types::String(attributes, {"verb"}), group.empty() ? resource : resource + "." + group,
      types::String(attributes, {"subresource"}), types::String(attributes, {"namespace"}),
      types::String(attributes, {"name"})};
}

json UserJson(const UserInfo& user) { return {{"username", user.name}, {"groups", user.groups}}; }

}  // namespace

AccessDecision ApiServer::Authorize(const UserInfo& user, const AccessRequest& access) {
  AccessDecision decision = options_.authorizer->Decide(user, access);
  if (decision == AccessDecision::kAllow) return decision;
  // As Kubernetes: a request for one Namespace counts as made in it, so a RoleBinding there
  // (view's "namespaces" rule) lets its members read their own Namespace.
  AccessRequest rbac = access;
  if (rbac.resource == "namespaces" && rbac.ns.empty()) rbac.ns = rbac.name;
  if (rbac_.Current()->Allows(user, rbac)) return AccessDecision::kAllow;
  return decision;
}

bool ApiServer::AuthorizePath(const UserInfo& user, const std::string& verb,
                              const std::string& path) {
  if (user.InGroup("system:masters")) return true;
  return rbac_.Current()->AllowsPath(user, verb, path);
}

std::optional<net::http::Response> ApiServer::Impersonate(const net::http::Request& request,
                                                          UserInfo& user) {
  std::string as = request.Header("impersonate-user");
  std::string as_groups = request.Header("impersonate-group");
  for (const auto& [name, value] : request.headers) {
    if (name.rfind("impersonate-extra-", 0) == 0 || name == "impersonate-uid") {
      return ApiError::BadRequest(fmt::format("{}: impersonating a user's uid or extra fields is "
                                              "not supported by this server",
                                              name))
          .ToResponse();
    }
  }
  if (as.empty()) {
    if (as_groups.empty()) return std::nullopt;
    return ApiError::BadRequest(
               fmt::format("Impersonate-Group: requested {} without impersonating a user",
                           as_groups))
        .ToResponse();
  }
  auto may = [&](const std::string& resource, const std::string& ns,
                 const std::string& name) -> std::optional<net::http::Response> {
    AccessRequest access{"impersonate", resource, "", ns, name};
    if (Authorize(user, access) == AccessDecision::kAllow) return std::nullopt;
    return ApiError::Forbidden(ForbiddenMessage(user, access)).ToResponse();
  };
  UserInfo next{as, {}};
  std::string sa_ns;
  if (as.rfind(kServiceAccountPrefix, 0) == 0) {
    std::string rest = as.substr(std::string(kServiceAccountPrefix).size());
    auto colon = rest.find(':');
    if (colon == std::string::npos) {
      return ApiError::BadRequest(fmt::format("Impersonate-User: \"{}\" is not "
                                              "system:serviceaccount:<namespace>:<name>",
                                              as))
          .ToResponse();
    }
    sa_ns = rest.substr(0, colon);
    if (auto refused = may("serviceaccounts", sa_ns, rest.substr(colon + 1))) return refused;
  } else if (auto refused = may("users", "", as)) {
    return refused;
  }
  for (const std::string& group : SplitCommaList(as_groups)) {
    if (auto refused = may("groups", "", group)) return refused;
    next.groups.push_back(group);
  }
  if (!sa_ns.empty() && as_groups.empty()) {
    next.groups = {"system:serviceaccounts", "system:serviceaccounts:" + sa_ns};
  }
  if (as != "system:anonymous" && !next.InGroup("system:authenticated")) {
    next.groups.push_back("system:authenticated");
  }
  user = std::move(next);
  return std::nullopt;
}

net::http::Response ApiServer::AccessReview(const net::http::Request& request,
                                            const RequestInfo& ri, const UserInfo& user) {
  if (ri.verb != "create" || !ri.name.empty() || !ri.subresource.empty()) {
    return ApiError::MethodNotAllowed(fmt::format("{} supports POST only", ri.plural)).ToResponse();
  }
  AccessRequest self{"create", ri.plural + "." + ri.group, "", ri.ns, ""};
  if (Authorize(user, self) != AccessDecision::kAllow) {
    return ApiError::Forbidden(ForbiddenMessage(user, self)).ToResponse();
  }
  FieldValidation fields;
  auto body = DecodeWriteBody(request, options_.limits, &fields);
  if (!body.ok()) return body.error().ToResponse();
  json review = std::move(body).value();
  if (!review.is_object()) return ApiError::BadRequest("the review must be an object").ToResponse();
  const json spec = types::Object(review, {"spec"});
  review.erase("status");
  if (ri.plural == "selfsubjectreviews") {
    review["status"] = {{"userInfo", UserJson(user)}};
    return ObjectReply(201, review);
  }
  if (ri.plural == "selfsubjectrulesreviews") {
    const std::string ns = types::String(spec, {"namespace"});
    if (ns.empty()) return ApiError::BadRequest("spec.namespace: Required value").ToResponse();
    review["status"] = RulesReview(user, ns);
    return ObjectReply(201, review);
  }
  // Access reviews: of the requester (self), or of spec.user/groups (a SubjectAccessReview;
  // a LocalSubjectAccessReview within its own namespace).
  UserInfo subject = user;
  if (ri.plural != "selfsubjectaccessreviews") {
    subject.name = types::String(spec, {"user"});
    subject.groups.clear();
    for (const json& g : types::Array(spec, {"groups"})) {
      if (g.is_string()) subject.groups.push_back(g.get<std::string>());
    }
    if (subject.name.empty() && subject.groups.empty()) {
      return ApiError::BadRequest("spec.user: at least one of user or groups must be specified")
          .ToResponse();
    }
  }
  const json* resource = types::Find(spec, {"resourceAttributes"});
  const json* non_resource = types::Find(spec, {"nonResourceAttributes"});
  if ((resource == nullptr) == (non_resource == nullptr)) {
    return ApiError::BadRequest(
               "spec: exactly one of resourceAttributes and nonResourceAttributes must be "
               "specified")
        .ToResponse();
  }
  if (ri.plural == "localsubjectaccessreviews" &&
      (!resource || types::String(*resource, {"namespace"}) != ri.ns)) {
    return ApiError::BadRequest(
               fmt::format("spec.resourceAttributes.namespace: must be \"{}\"", ri.ns))
        .ToResponse();
  }
  json status = {{"allowed", false}};
  if (resource) {
    AccessRequest access = FromResourceAttributes(*resource);
    AccessDecision decision = Authorize(subject, access);
    status["allowed"] = decision == AccessDecision::kAllow;
    if (decision == AccessDecision::kAllowBoundPods ||
        decision == AccessDecision::kAllowPodReferenced) {
      status["reason"] = fmt::format("allowed only for the objects of the pods bound to node {}",
                                     subject.AgentNode());
    }
  } else {
    std::string verb = types::String(*non_resource, {"verb"});
    status["allowed"] = AuthorizePath(subject, verb, types::String(*non_resource, {"path"}));
  }
  review["status"] = status;
  return ObjectReply(201, review);
}

json ApiServer::RulesReview(const UserInfo& user, const std::string& ns) {
  json resource_rules = json::array();
  json non_resource_rules = json::array();
  auto add = [&](const PolicyRule& rule) {
    json r = rule.ToJson();
    if (rule.non_resource_urls.empty()) {
      if (!r.contains("apiGroups")) r["apiGroups"] = json::array();
      if (!r.contains("resources")) r["resources"] = json::array();
      resource_rules.push_back(std::move(r));
    } else {
      non_resource_rules.push_back(
          {{"verbs", rule.verbs}, {"nonResourceURLs", rule.non_resource_urls}});
    }
  };
  rbac_.Current()->VisitRules(user, ns, add);
  options_.authorizer->VisitRules(user, ns, [&](const std::string& resource, bool write) {
    PolicyRule rule;
    rule.verbs =
        write ? std::vector<std::string>{"*"} : std::vector<std::string>{"get", "list", "watch"};
    auto dot = resource.find('.');
    rule.resources = {resource.substr(0, dot)};
    rule.api_groups = {resource == "*"            ? "*"
                       : dot == std::string::npos ? ""
                                                  : resource.substr(dot + 1)};
    add(rule);
  });
  json status = {{"resourceRules", resource_rules},
                 {"nonResourceRules", non_resource_rules},
                 {"incomplete", false}};
  if (!user.AgentNode().empty()) {
    status["incomplete"] = true;
    status["evaluationError"] =
        "an agent's access to its own node's objects is decided per object and not listed";
  }
  return status;
}

}  // namespace etna::api::server
