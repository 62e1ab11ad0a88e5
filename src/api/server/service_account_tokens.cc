#include "api/server/service_account_tokens.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/base64.h"
#include "common/file.h"
#include "common/strings.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

std::string Base64UrlEncode(std::string_view data) {
  std::string s = Base64Encode(data);
  while (!s.empty() && s.back() == '=') s.pop_back();
  for (char& c : s) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return s;
}

std::optional<std::string> Base64UrlDecode(std::string_view text) {
  std::string s(text);
  for (char& c : s) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (s.size() % 4 != 0) s.push_back('=');
  return Base64Decode(s);
}

Status Invalid(std::string why) { return Status::InvalidArgument("service account token: " + why); }

}  // namespace

std::string ServiceAccountClaims::Subject() const {
  return fmt::format("system:serviceaccount:{}:{}", ns, name);
}

Result<ServiceAccountTokens> ServiceAccountTokens::FromKeyFile(const std::string& path) {
  if (std::filesystem::exists(path)) {
    ETNA_ASSIGN_OR_RETURN(std::string key, ReadFile(path));
    key = std::string(Trim(key));
    if (key.size() < 32)
      return Status::InvalidArgument(path + ": the key is shorter than 32 bytes");
    return ServiceAccountTokens(key);
  }
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return Status::Internal("no random bytes for a key");
  std::string hex;
  for (unsigned char b : bytes) hex += fmt::format("{:02x}", b);
  ETNA_RETURN_IF_ERROR(WriteFileAtomically(path, hex + "\n", 0600));
  return ServiceAccountTokens(hex);
}

std::string ServiceAccountTokens::Sign(std::string_view signing_input) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size(), mac,
       &length);
  return Base64UrlEncode(std::string_view(reinterpret_cast<const char*>(mac), length));
}

std::string ServiceAccountTokens::Issue(const ServiceAccountClaims& c) const {
  json k8s = {{"namespace", c.ns}, {"serviceaccount", {{"name", c.name}, {"uid", c.uid}}}};
  if (!c.pod_name.empty()) k8s["pod"] = {{"name", c.pod_name}, {"uid", c.pod_uid}};
  return IssueClaims({{"iss", kServiceAccountIssuer},
                      {"sub", c.Subject()},
                      {"aud", c.audiences},
                      {"iat", c.issued_s},
                      {"nbf", c.issued_s},
                      {"exp", c.expires_s},
                      {"kubernetes.io", k8s}});
}

std::string ServiceAccountTokens::IssueClaims(const json& payload) const {
  std::string input = Base64UrlEncode(json{{"alg", "HS256"}, {"typ", "JWT"}}.dump()) + "." +
                      Base64UrlEncode(payload.dump());
  return input + "." + Sign(input);
}

bool ServiceAccountTokens::LooksLikeJwt(std::string_view token) {
  return std::count(token.begin(), token.end(), '.') == 2 && token.rfind("eyJ", 0) == 0;
}

Result<json> ServiceAccountTokens::VerifyClaims(std::string_view token) const {
  size_t first = token.find('.');
  size_t last = token.rfind('.');
  if (first == std::string_view::npos || first == last) return Invalid("not a JWT");
  std::string_view input = token.substr(0, last);
  std::string want = Sign(input);
  std::string_view got = token.substr(last + 1);
  if (got.size() != want.size() || CRYPTO_memcmp(got.data(), want.data(), want.size()) != 0) {
    return Invalid("bad signature");
  }
  auto header = Base64UrlDecode(token.substr(0, first));
  auto payload = Base64UrlDecode(token.substr(first + 1, last - first - 1));
  if (!header || !payload) return Invalid("not base64url");
  json h = json::parse(*header, nullptr, false);
  json p = json::parse(*payload, nullptr, false);
  if (!h.is_object() || h.value("alg", "") != "HS256") return Invalid("not HS256");
  if (!p.is_object()) return Invalid("the payload is not an object");
  return p;
}

Result<ServiceAccountClaims> ServiceAccountTokens::Verify(std::string_view token,
                                                          int64_t now_s) const {
  ETNA_ASSIGN_OR_RETURN(json p, VerifyClaims(token));
  if (p.value("iss", "") != kServiceAccountIssuer) return Invalid("issuer");
  ServiceAccountClaims c;
  c.issued_s = p.value("nbf", int64_t{0});
  c.expires_s = p.value("exp", int64_t{0});
  if (now_s < c.issued_s) return Invalid("not valid yet");
  if (now_s >= c.expires_s) return Invalid("expired");
  const json& k8s = p.value("kubernetes.io", json::object());
  c.ns = k8s.value("namespace", "");
  c.name = k8s.value("/serviceaccount/name"_json_pointer, std::string());
  c.uid = k8s.value("/serviceaccount/uid"_json_pointer, std::string());
  c.pod_name = k8s.value("/pod/name"_json_pointer, std::string());
  c.pod_uid = k8s.value("/pod/uid"_json_pointer, std::string());
  if (c.ns.empty() || c.name.empty() || p.value("sub", "") != c.Subject()) {
    return Invalid("subject");
  }
  for (const json& a : p.value("aud", json::array())) {
    if (a.is_string()) c.audiences.push_back(a.get<std::string>());
  }
  return c;
}

}  // namespace etna::api::server
