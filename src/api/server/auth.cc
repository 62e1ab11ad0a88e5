#include "api/server/auth.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <sstream>

#include "common/file.h"
#include "common/strings.h"

namespace etna::api::server {
namespace {

constexpr std::string_view kAgentPrefix = "system:node:";

std::array<unsigned char, 32> Digest(std::string_view token) {
  std::array<unsigned char, 32> out{};
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), out.data());
  return out;
}

// A tokens file's first field: the token itself, or "sha256:<64 hex digits>", its digest (so the
// file need not hold the token). nullopt for a malformed digest.
std::optional<std::array<unsigned char, 32>> TokenDigest(std::string_view field) {
  constexpr std::string_view kSha256 = "sha256:";
  if (field.substr(0, kSha256.size()) != kSha256) return Digest(field);
  std::string_view hex = field.substr(kSha256.size());
  if (hex.size() != 64) return std::nullopt;
  std::array<unsigned char, 32> out{};
  for (size_t i = 0; i < out.size(); ++i) {
    unsigned value = 0;
    auto [end, error] = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, value, 16);
    if (error != std::errc() || end != hex.data() + 2 * i + 2) return std::nullopt;
    out[i] = static_cast<unsigned char>(value);
  }
  return out;
}

// Splits one CSV line with optional double-quoted fields.
std::vector<std::string> SplitCsv(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), "*") != list.end() ||
         std::find(list.begin(), list.end(), value) != list.end();
}

bool IsRead(std::string_view verb) { return verb == "get" || verb == "list" || verb == "watch"; }

AccessDecision DecideAgent(const std::string& node, const AccessRequest& r) {
  if (r.resource == "nodes") {
    if (IsRead(r.verb)) return AccessDecision::kAllow;
    if (r.name == node && r.verb != "deletecollection") return AccessDecision::kAllow;
    return AccessDecision::kDeny;
  }
  if (r.resource == "leases.coordination.k8s.io") {
    return r.name == node ? AccessDecision::kAllow : AccessDecision::kDeny;
  }
  if (r.resource == "events") {
    return r.verb == "create" || r.verb == "patch" ? AccessDecision::kAllow : AccessDecision::kDeny;
  }
  // What the names its pods resolve come from (agent/peer_hosts.h), as kube-proxy reads them.
  if (r.resource == "services" || r.resource == "endpoints" ||
      r.resource == "endpointslices.discovery.k8s.io") {
    return IsRead(r.verb) ? AccessDecision::kAllow : AccessDecision::kDeny;
  }
  // Tokens for the service accounts its pods run as (the server checks the bound pod).
  if (r.resource == "serviceaccounts" && r.subresource == "token") {
    return r.verb == "create" ? AccessDecision::kAllowPodReferenced : AccessDecision::kDeny;
  }
  if (r.resource == "secrets" || r.resource == "configmaps") {
    return r.verb == "get" ? AccessDecision::kAllowPodReferenced : AccessDecision::kDeny;
  }
  if (r.resource == "pods") {
    if (r.verb == "create" || r.verb == "deletecollection") return AccessDecision::kDeny;
    if (!r.subresource.empty() && r.subresource != "status") return AccessDecision::kDeny;
    return AccessDecision::kAllowBoundPods;
  }
  return AccessDecision::kDeny;
}

}  // namespace

bool UserInfo::InGroup(std::string_view group) const {
  return std::find(groups.begin(), groups.end(), group) != groups.end();
}

std::string UserInfo::AgentNode() const {
  if (!InGroup("system:nodes") || name.rfind(kAgentPrefix, 0) != 0) return "";
  return name.substr(kAgentPrefix.size());
}

Result<Authenticator> Authenticator::FromTokensText(std::string_view text, bool allow_anonymous) {
  Authenticator auth;
  auth.allow_anonymous_ = allow_anonymous;
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = SplitCsv(line);
    if (f.size() < 2 || Trim(f[0]).empty() || Trim(f[1]).empty()) {
      return Status::InvalidArgument(
          fmt::format("tokens file line {}: want token,user,uid,\"group1,group2\"", number));
    }
    std::optional<std::array<unsigned char, 32>> digest = TokenDigest(Trim(f[0]));
    if (!digest) {
      return Status::InvalidArgument(
          fmt::format("tokens file line {}: a hashed token is sha256: and 64 hex digits", number));
    }
    Entry e{*digest, UserInfo{std::string(Trim(f[1])), {}}};
    if (f.size() >= 4) {
      std::istringstream groups(f[3]);
      std::string g;
      while (std::getline(groups, g, ',')) {
        g = Trim(g);
        if (!g.empty()) e.user.groups.push_back(g);
      }
    }
    e.user.groups.push_back("system:authenticated");
    auth.entries_.push_back(std::move(e));
  }
  return auth;
}

Result<Authenticator> Authenticator::FromTokensFile(const std::string& path, bool allow_anonymous) {
  ETNA_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  auto auth = FromTokensText(text, allow_anonymous);
  if (!auth.ok()) return auth.status().WithContext(path);
  return auth;
}

Result<Authenticator> Authenticator::FromTokensFiles(const std::vector<std::string>& paths,
                                                     bool allow_anonymous) {
  Authenticator all;
  all.allow_anonymous_ = allow_anonymous;
  for (const auto& path : paths) {
    ETNA_ASSIGN_OR_RETURN(Authenticator one, FromTokensFile(path, allow_anonymous));
    all.entries_.insert(all.entries_.end(), one.entries_.begin(), one.entries_.end());
  }
  return all;
}

std::optional<std::string> BearerToken(const net::http::Request& request) {
  std::string header = request.Header("authorization");
  constexpr std::string_view kBearer = "bearer ";
  if (header.size() <= kBearer.size()) return std::nullopt;
  for (size_t i = 0; i < kBearer.size(); ++i) {  // the scheme is case-insensitive (RFC 9110)
    if (std::tolower(static_cast<unsigned char>(header[i])) != kBearer[i]) return std::nullopt;
  }
  return header.substr(kBearer.size());
}

std::optional<UserInfo> Authenticator::Authenticate(const net::http::Request& request) const {
  if (std::optional<std::string> token = BearerToken(request)) {
    auto digest = Digest(*token);
    const UserInfo* found = nullptr;
    for (const Entry& e : entries_) {  // every entry, so timing does not reveal which matched
      if (CRYPTO_memcmp(e.digest.data(), digest.data(), digest.size()) == 0) found = &e.user;
    }
    if (found) return *found;
    return std::nullopt;  // a wrong token is never anonymous
  }
  if (allow_anonymous_) {
    return UserInfo{"system:anonymous", {"system:unauthenticated", "system:masters"}};
  }
  return std::nullopt;
}

Result<Authorizer> Authorizer::FromRulesText(std::string_view yaml_text) {
  Authorizer authz;
  try {
    YAML::Node root = YAML::Load(std::string(yaml_text));
    if (root.IsNull()) return authz;
    if (!root.IsSequence()) {
      return Status::InvalidArgument("authorization file: want a list of rules");
    }
    for (size_t i = 0; i < root.size(); ++i) {
      const YAML::Node& n = root[i];
      Rule r;
      if (n["user"]) r.user = n["user"].as<std::string>();
      if (n["group"]) r.group = n["group"].as<std::string>();
      if (r.user.empty() == r.group.empty()) {
        return Status::InvalidArgument(
            fmt::format("authorization rule {}: set exactly one of user and group", i));
      }
      for (const auto& v : n["namespaces"]) r.namespaces.push_back(v.as<std::string>());
      for (const auto& v : n["resources"]) r.resources.push_back(v.as<std::string>());
      std::string access = n["access"] ? n["access"].as<std::string>() : "";
      if (access != "read" && access != "write") {
        return Status::InvalidArgument(fmt::format(
            "authorization rule {}: access: want read or write, got \"{}\"", i, access));
      }
      r.write = access == "write";
      if (r.namespaces.empty() || r.resources.empty()) {
        return Status::InvalidArgument(
            fmt::format("authorization rule {}: namespaces and resources are required", i));
      }
      authz.rules_.push_back(std::move(r));
    }
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(fmt::format("authorization file: {}", e.what()));
  }
  return authz;
}

Result<Authorizer> Authorizer::FromRulesFile(const std::string& path) {
  ETNA_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  auto authz = FromRulesText(text);
  if (!authz.ok()) return authz.status().WithContext(path);
  return authz;
}

AccessDecision Authorizer::Decide(const UserInfo& user, const AccessRequest& request) const {
  if (user.InGroup("system:masters")) return AccessDecision::kAllow;
  std::string node = user.AgentNode();
  if (!node.empty()) return DecideAgent(node, request);
  bool write = !IsRead(request.verb);
  for (const Rule& r : rules_) {
    if ((write && !r.write) || !Applies(r, user, request.ns)) continue;
    if (Contains(r.resources, request.resource)) return AccessDecision::kAllow;
  }
  return AccessDecision::kDeny;
}

bool Authorizer::Applies(const Rule& r, const UserInfo& user, const std::string& ns) {
  bool subject =
      (!r.user.empty() && r.user == user.name) || (!r.group.empty() && user.InGroup(r.group));
  return subject && (ns.empty() ? Contains(r.namespaces, "*") || Contains(r.namespaces, "")
                                : Contains(r.namespaces, ns));
}

void Authorizer::VisitRules(
    const UserInfo& user, const std::string& ns,
    const std::function<void(const std::string& resource, bool write)>& fn) const {
  if (!user.AgentNode().empty()) return;
  for (const Rule& r : rules_) {
    if (!Applies(r, user, ns)) continue;
    for (const std::string& resource : r.resources) fn(resource, r.write);
  }
}

std::string ForbiddenMessage(const UserInfo& user, const AccessRequest& r) {
  std::string resource = r.resource;
  std::string group;
  if (auto dot = resource.find('.'); dot != std::string::npos) {
    group = resource.substr(dot + 1);
    resource = resource.substr(0, dot);
  }
  std::string what = r.subresource.empty() ? resource : resource + "/" + r.subresource;
  std::string object = r.name.empty() ? what : fmt::format("{} \"{}\"", what, r.name);
  std::string where = r.ns.empty() ? "at the cluster scope" : "in the namespace \"" + r.ns + "\"";
  return fmt::format(
      "{} is forbidden: User \"{}\" cannot {} resource \"{}\" in API group \"{}\" {}", object,
      user.name, r.verb, what, group, where);
}

}  // namespace etna::api::server
