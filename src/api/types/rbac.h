// ClusterRole aggregation (rbac.authorization.k8s.io/v1 aggregationRule): the one definition
// the API server's RBAC evaluation (api/server/rbac.h) and the controller that writes the rules
// into the aggregated role (controllers/cluster_role_aggregation_controller.h) share.
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "api/types/fields.h"

namespace etna::api::types {

// Whether `role` (a ClusterRole) has an aggregationRule.
bool IsAggregated(const Json& role);
// The rules of the aggregated ClusterRole `aggregated`: the union, without repeats, of the
// rules of every other role in `roles` whose labels one of its clusterRoleSelectors matches,
// taken in name order (as Kubernetes' aggregation controller writes them).
Json AggregatedRules(const Json& aggregated, std::vector<const Json*> roles);

}  // namespace etna::api::types
