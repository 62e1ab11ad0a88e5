// Authentication (bearer tokens from a tokens file) and authorization (read/write rules per
// namespace and resource, plus the fixed rules of the agent credential).
//
// Tokens file: Kubernetes' static token file format, one user per line:
//   token,user,uid,"group1,group2"
// where the token may also be given as its SHA-256 digest, "sha256:<64 hex digits>" (printf %s
// TOKEN | sha256sum), so the file does not hold it.
// Tokens are kept only as SHA-256 digests and compared in constant time against every entry.
//
// Authorization file (YAML; RBAC, rbac.h, is the Kubernetes alternative and is always on): a
// list of rules, each granting one subject read or write access (write implies read; every
// verb) to resources in namespaces:
//   - user: alice            # or group: ml-team
//     namespaces: [team-a]   # "*" = every namespace and the cluster-scoped resources
//     resources: ["*"]       # plural ("pods") or plural.group ("jobs.batch.volcano.sh"), "*"
//     access: write          # read | write
// Built in: group system:masters may do everything; an agent (user system:node:<node>, group
// system:nodes) may read nodes and write only its own Node, its own Lease, create events, and
// read, update and delete only the pods bound to its node (the server checks the binding).
// Anonymous requests are accepted only when enabled (then as system:anonymous with full access,
// for loopback development servers).
// Immutable after loading; thread-safe.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "net/http/message.h"

namespace etna::api::server {

struct UserInfo {
  std::string name;
  std::vector<std::string> groups;
  bool InGroup(std::string_view group) const;
  // The node an agent credential belongs to ("" for other users).
  std::string AgentNode() const;
};

class Authenticator {
 public:
  struct Entry {
    std::array<unsigned char, 32> digest;
    UserInfo user;
  };
  // Parses a tokens file's text. InvalidArgument naming the line for a malformed one.
  static Result<Authenticator> FromTokensText(std::string_view text, bool allow_anonymous);
  static Result<Authenticator> FromTokensFile(const std::string& path, bool allow_anonymous);
  // Several tokens files, read in order (errors name the file and line).
  static Result<Authenticator> FromTokensFiles(const std::vector<std::string>& paths,
                                               bool allow_anonymous);
  // The user of the request's bearer token; nullopt when it has none or an unknown one (and
  // anonymous access is off).
  std::optional<UserInfo> Authenticate(const net::http::Request& request) const;

 private:
  std::vector<Entry> entries_;
  bool allow_anonymous_ = false;
};

// The token of an "Authorization: Bearer <token>" header (any case of "Bearer").
std::optional<std::string> BearerToken(const net::http::Request& request);

struct AccessRequest {
  std::string verb;         // get, list, watch, create, update, patch, delete, deletecollection
  std::string resource;     // "pods", "jobs.batch.volcano.sh"
  std::string subresource;  // "status", "log", ...
  std::string ns;           // "" for cluster-scoped resources
  std::string name;         // the object's name ("" for lists)
};

enum class AccessDecision {
  kAllow,
  kDeny,
  // Allowed for pods bound to the agent's node, and lists of the pods of a Volcano job one of
  // them belongs to (node_access.h); the server checks the pods.
  kAllowBoundPods,
  // A get (or a service account's token) allowed when a pod bound to the agent's node
  // references the object (node_access.h).
  kAllowPodReferenced,
};

class Authorizer {
 public:
  struct Rule {
    std::string user;
    std::string group;
    std::vector<std::string> namespaces;
    std::vector<std::string> resources;
    bool write = false;
  };
  static Result<Authorizer> FromRulesText(std::string_view yaml_text);
  static Result<Authorizer> FromRulesFile(const std::string& path);
  AccessDecision Decide(const UserInfo& user, const AccessRequest& request) const;
  // Calls `fn` with each resource ("pods", "jobs.batch.volcano.sh", "*") a rule grants `user`
  // in namespace `ns` ("": the cluster scope), and whether it grants writes (every verb).
  void VisitRules(const UserInfo& user, const std::string& ns,
                  const std::function<void(const std::string& resource, bool write)>& fn) const;

 private:
  // Whether rule `r` names `user` and reaches namespace `ns`.
  static bool Applies(const Rule& r, const UserInfo& user, const std::string& ns);
  std::vector<Rule> rules_;
};

// The "... is forbidden: User ..." message of a denied request.
std::string ForbiddenMessage(const UserInfo& user, const AccessRequest& request);

}  // namespace etna::api::server
