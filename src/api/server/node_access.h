// What an agent (user system:node:<node>) may read beyond the pods bound to its node, as
// Kubernetes' node authorizer allows a kubelet: the Secrets and ConfigMaps those pods reference
// (image pull secrets, volumes, env), and, for the names a pod resolves (agent/peer_hosts.h),
// the pods of a Volcano job that one of its pods belongs to. The server applies these to the
// objects it holds; DecideAgent (auth.cc) says which requests need them.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace etna::api::server {

// Whether `pod` references the object `name` of `resource`: "secrets" or "configmaps" in its
// imagePullSecrets, volumes (secret, configMap, projected sources) or containers' env/envFrom;
// "serviceaccounts" as the account it runs as.
bool PodReferences(const nlohmann::json& pod, std::string_view resource, std::string_view name);

// The job a pods labelSelector asks for when it is exactly "volcano.sh/job-name=<job>".
std::optional<std::string> JobPeersSelector(std::string_view label_selector);

}  // namespace etna::api::server
