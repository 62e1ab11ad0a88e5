// PodTokens: the ServiceAccount token of each pod on this node, as the kubelet keeps them: a
// TokenRequest (serviceaccounts/<name>/token) bound to the pod, for an hour, asked again once
// 80 % of its life has passed (a failed renewal keeps the old token while it lasts, and is
// tried again after 10 s). The runtime writes it into the pod's files (runtime/pod_env.h's
// ServiceAccountDir).
// Thread-safety: one thread (the runtime's sync).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/rest.h"
#include "common/clock.h"
#include "common/status.h"

namespace etna::agent {

class PodTokens {
 public:
  static constexpr int64_t kLifetimeSeconds = 3600;

  PodTokens(client::RestClient* rest, const Clock* clock) : rest_(rest), clock_(clock) {}

  // The pod's token now, asking for one when it has none or its token is due for renewal.
  Result<std::string> For(const nlohmann::json& pod);
  // Drops the tokens of pods not in `pods`.
  void Retain(const std::vector<nlohmann::json>& pods);

 private:
  struct Held {
    std::string token;
    TimeMs issued_ms = 0;  // when `token` was issued
    TimeMs asked_ms = 0;   // when one was last asked for
    TimeMs ask_every_ms = 0;
  };
  client::RestClient* rest_;
  const Clock* clock_;
  std::map<std::string, Held> held_;  // by pod uid
};

}  // namespace etna::agent
