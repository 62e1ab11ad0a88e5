// Leases (coordination.k8s.io/v1) as etna's components keep them alive: an agent its node's
// (kube-node-lease/<node>), a scheduler the one that says which schedulerNames it serves
// (kube-system, annotation etna.io/scheduler-names). Renewing patches spec.renewTime (and the
// annotations given); a missing Lease is created.
// Thread-safety: as the RestClient.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "client/rest.h"
#include "common/clock.h"

namespace etna::client {

Status RenewLease(RestClient& rest, const std::string& ns, const std::string& name,
                  const std::string& holder, int lease_seconds, TimeMs now,
                  const nlohmann::json& annotations = nlohmann::json::object());

// Whether `lease` was renewed within its duration as of `now`.
bool LeaseFresh(const nlohmann::json& lease, TimeMs now);

}  // namespace etna::client
