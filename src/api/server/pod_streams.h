// What the pod subresources served by an agent share (pod_subresources.cc, pod_streams.cc): how
// to reach a node's agent, which container a request names, and the tickets the API server
// gives its agents for pods/exec: who asked, for which node, pod (by uid) and subresource;
// signed with the server's key, valid 60 s, audience kAgentAudience. An agent checks one with a
// TokenReview naming that audience.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/server/api_error.h"
#include "api/server/service_account_tokens.h"
#include "common/status.h"
#include "net/http/client.h"

namespace etna::api::server {

// How to reach the agent of `node`: its InternalIP (else first address) and the port in
// daemonEndpoints.kubeletEndpoint, plain HTTP. The one place the server finds agents.
ApiResult<net::http::ClientOptions> AgentClient(const nlohmann::json& node);

// The container of `pod` that `wanted` names ("": the only one), as kube-apiserver words the
// errors (400).
ApiResult<std::string> PodContainer(const nlohmann::json& pod, const std::string& wanted,
                                    const std::string& pod_name);

inline constexpr char kAgentAudience[] = "etna-agent";

struct StreamTicket {
  std::string user;
  std::string node;
  std::string pod_uid;
  std::string subresource;  // "exec"
};

std::string IssueStreamTicket(const ServiceAccountTokens& keys, const StreamTicket& ticket,
                              int64_t now_s);
// The ticket's claims while it is valid; InvalidArgument otherwise.
Result<StreamTicket> VerifyStreamTicket(const ServiceAccountTokens& keys, std::string_view token,
                                        int64_t now_s);

}  // namespace etna::api::server
