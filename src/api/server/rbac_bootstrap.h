// The RBAC objects every cluster starts with, after Kubernetes' bootstrap policy:
// - ClusterRoles cluster-admin (everything), admin ⊃ edit ⊃ view (aggregated from the
//   system:aggregate-to-* roles and any role labelled rbac.authorization.k8s.io/aggregate-to-*;
//   they cover the core, apps, autoscaling, batch and Volcano kinds a team works with),
//   system:basic-user (its own access reviews), system:discovery, system:public-info-viewer,
//   and etna:queue-viewer (read Queues and PriorityClasses; bound by the operator);
// - ClusterRoleBindings: cluster-admin to group system:masters, system:basic-user and
//   system:discovery to system:authenticated, system:public-info-viewer to everyone.
// Each carries rbac.authorization.kubernetes.io/autoupdate: "true"; BootstrapRbac creates the
// missing ones and brings the others up to date unless the operator set it to "false".
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "api/server/object_service.h"
#include "common/status.h"

namespace etna::api::server {

std::vector<nlohmann::json> DefaultRbacObjects();
Status BootstrapRbac(ObjectService& objects);

}  // namespace etna::api::server
