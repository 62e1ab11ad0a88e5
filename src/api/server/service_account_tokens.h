// ServiceAccountTokens: issues and checks the bearer tokens of ServiceAccounts (TokenRequest,
// POST serviceaccounts/<name>/token) as JWTs signed with HS256 by a key only the server holds
// (<data-dir>/service-account.key, made on first start). The claims are Kubernetes': iss, sub
// "system:serviceaccount:<ns>:<name>", aud, iat, nbf, exp and "kubernetes.io" {namespace,
// serviceaccount {name, uid}, pod {name, uid}}. Verify checks the signature and the times
// only; the server also checks that the account (and the pod it is bound to) still exist with
// those uids.
// Immutable after construction; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace etna::api::server {

inline constexpr char kServiceAccountIssuer[] = "https://kubernetes.default.svc.cluster.local";

struct ServiceAccountClaims {
  std::string ns;
  std::string name;
  std::string uid;
  std::string pod_name;  // "" when the token is bound to no pod
  std::string pod_uid;
  std::vector<std::string> audiences;
  int64_t issued_s = 0;
  int64_t expires_s = 0;
  // "system:serviceaccount:<ns>:<name>"
  std::string Subject() const;
};

class ServiceAccountTokens {
 public:
  explicit ServiceAccountTokens(std::string key) : key_(std::move(key)) {}
  // The key in `path`, made (32 random bytes, hex, mode 0600) when the file does not exist.
  static Result<ServiceAccountTokens> FromKeyFile(const std::string& path);

  std::string Issue(const ServiceAccountClaims& claims) const;
  // Any claims signed with the same key (the server's tickets for its agents: pod_streams.cc).
  std::string IssueClaims(const nlohmann::json& payload) const;
  // The payload of a token this server signed (signature and HS256 only; the caller checks
  // the claims); InvalidArgument otherwise.
  Result<nlohmann::json> VerifyClaims(std::string_view token) const;
  // The claims of a token this server signed that is valid at `now_s`; InvalidArgument
  // otherwise (the message says why, for the server's log, not for the client).
  Result<ServiceAccountClaims> Verify(std::string_view token, int64_t now_s) const;
  // Whether `token` has a JWT's shape (three base64url parts), so it is not a static token.
  static bool LooksLikeJwt(std::string_view token);

 private:
  std::string Sign(std::string_view signing_input) const;
  std::string key_;
};

}  // namespace etna::api::server
