// ServiceAccounts in ApiServer: the TokenRequest subresource (POST .../serviceaccounts/<name>/
// token) and the authentication of the tokens it issues (service_account_tokens.h).
#include <fmt/format.h>

#include "api/server/api_server.h"
#include "api/server/handler_util.h"
#include "common/time.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using resources::ResourceInfo;

constexpr int64_t kDefaultExpirationS = 3600;
constexpr int64_t kMinExpirationS = 600;
constexpr int64_t kMaxExpirationS = int64_t{1} << 32;

}  // namespace

std::optional<net::http::Response> ApiServer::ScreenLargeBody(
    const net::http::Request& head) const {
  if (options_.authenticator->Authenticate(head)) return std::nullopt;
  if (options_.service_account_tokens) {
    std::optional<std::string> token = BearerToken(head);
    if (token && ServiceAccountTokens::LooksLikeJwt(*token) &&
        options_.service_account_tokens->Verify(*token, options_.clock->NowMs() / 1000).ok()) {
      return std::nullopt;  // the account and pod are checked with the request
    }
  }
  return ApiError::Unauthorized().ToResponse();
}

std::optional<UserInfo> ApiServer::AuthenticateServiceAccount(const net::http::Request& request) {
  if (!options_.service_account_tokens) return std::nullopt;
  std::optional<std::string> token = BearerToken(request);
  if (!token || !ServiceAccountTokens::LooksLikeJwt(*token)) return std::nullopt;
  auto claims = options_.service_account_tokens->Verify(*token, options_.clock->NowMs() / 1000);
  if (!claims.ok()) return std::nullopt;
  // The account, and the pod the token is bound to, must still be the ones it was issued for.
  auto account =
      objects_.Get(*registry_.Find("", "v1", "serviceaccounts"), claims->ns, claims->name);
  if (!account.ok() || account->value("/metadata/uid"_json_pointer, std::string()) != claims->uid) {
    return std::nullopt;
  }
  if (!claims->pod_name.empty()) {
    auto pod = objects_.Get(*registry_.Find("", "v1", "pods"), claims->ns, claims->pod_name);
    if (!pod.ok() || pod->value("/metadata/uid"_json_pointer, std::string()) != claims->pod_uid) {
      return std::nullopt;
    }
  }
  return UserInfo{
      claims->Subject(),
      {"system:serviceaccounts", "system:serviceaccounts:" + claims->ns, "system:authenticated"}};
}

net::http::Response ApiServer::TokenRequest(const net::http::Request& request,
                                            const RequestInfo& ri, const ResourceInfo& info,
                                            const UserInfo& user) {
  if (ri.verb != "create") {
    return ApiError::MethodNotAllowed("serviceaccounts/token supports POST").ToResponse();
  }
  if (!options_.service_account_tokens) {
    return ApiError::Unavailable("this server issues no service account tokens (no signing key)")
        .ToResponse();
  }
  auto body = DecodeRequestBody(request, options_.limits);
  if (!body.ok()) return body.error().ToResponse();
  const std::string name = ri.name + "/token";
  json spec = body->value("spec", json::object());
  if (!spec.is_object()) {
    return ApiError::Invalid(info, name, {{"spec", "FieldValueInvalid", "must be an object"}})
        .ToResponse();
  }
  int64_t expiration = kDefaultExpirationS;
  if (spec.contains("expirationSeconds")) {
    const json& e = spec["expirationSeconds"];
    if (!e.is_number_integer() || e.get<int64_t>() < kMinExpirationS ||
        e.get<int64_t>() > kMaxExpirationS) {
      return ApiError::Invalid(info, name,
                               {{"spec.expirationSeconds", "FieldValueInvalid",
                                 fmt::format("must be an integer from {} to {}", kMinExpirationS,
                                             kMaxExpirationS)}})
          .ToResponse();
    }
    expiration = e.get<int64_t>();
  }
  std::vector<std::string> audiences;
  for (const json& a : spec.value("audiences", json::array())) {
    if (!a.is_string()) {
      return ApiError::Invalid(info, name,
                               {{"spec.audiences", "FieldValueInvalid", "must be strings"}})
          .ToResponse();
    }
    audiences.push_back(a.get<std::string>());
  }
  if (audiences.empty()) audiences.push_back(kServiceAccountIssuer);

  auto account = objects_.Get(info, ri.ns, ri.name);
  if (!account.ok()) return ApiError::FromStatus(account.status(), &info, ri.name).ToResponse();
  ServiceAccountClaims claims;
  claims.ns = ri.ns;
  claims.name = ri.name;
  claims.uid = account->value("/metadata/uid"_json_pointer, std::string());
  claims.audiences = audiences;
  const json bound = spec.value("boundObjectRef", json());
  if (!bound.is_null()) {
    if (!bound.is_object() || bound.value("kind", "") != "Pod" || bound.value("name", "").empty()) {
      return ApiError::Invalid(info, name,
                               {{"spec.boundObjectRef", "FieldValueNotSupported",
                                 "only a Pod (kind Pod, with its name) may bind a token here"}})
          .ToResponse();
    }
    auto pod = objects_.Get(*registry_.Find("", "v1", "pods"), ri.ns, bound.value("name", ""));
    if (!pod.ok()) {
      return ApiError::Invalid(info, name,
                               {{"spec.boundObjectRef.name", "FieldValueNotFound",
                                 fmt::format("pod \"{}\" not found", bound.value("name", ""))}})
          .ToResponse();
    }
    const std::string uid = pod->value("/metadata/uid"_json_pointer, std::string());
    if (!bound.value("uid", "").empty() && bound.value("uid", "") != uid) {
      return ApiError::Conflict(info, name, "the bound pod's uid does not match").ToResponse();
    }
    if (pod->value("/spec/serviceAccountName"_json_pointer, std::string("default")) != ri.name) {
      return ApiError::Invalid(info, name,
                               {{"spec.boundObjectRef.name", "FieldValueInvalid",
                                 "the pod runs as another service account"}})
          .ToResponse();
    }
    claims.pod_name = bound.value("name", "");
    claims.pod_uid = uid;
  }
  // An agent asks only for the pods bound to its node (Kubernetes' node authorizer).
  if (std::string node = user.AgentNode(); !node.empty()) {
    bool on_node = false;
    if (!claims.pod_name.empty()) {
      auto pod = objects_.Get(*registry_.Find("", "v1", "pods"), ri.ns, claims.pod_name);
      on_node = pod.ok() && pod->value("/spec/nodeName"_json_pointer, std::string()) == node;
    }
    if (!on_node) {
      return ApiError::Forbidden(
                 fmt::format("serviceaccounts/token \"{}\" is forbidden: an agent may ask "
                             "only for tokens bound to a pod on its node",
                             ri.name))
          .ToResponse();
    }
  }
  const int64_t now_s = options_.clock->NowMs() / 1000;
  claims.issued_s = now_s;
  claims.expires_s = now_s + expiration;
  json reply = {{"kind", "TokenRequest"},
                {"apiVersion", "authentication.k8s.io/v1"},
                {"metadata", {{"name", ri.name}, {"namespace", ri.ns}}},
                {"spec", spec},
                {"status",
                 {{"token", options_.service_account_tokens->Issue(claims)},
                  {"expirationTimestamp", FormatRfc3339(claims.expires_s * 1000)}}}};
  reply["spec"]["expirationSeconds"] = expiration;
  reply["spec"]["audiences"] = audiences;
  return ObjectReply(201, reply);
}

}  // namespace etna::api::server
