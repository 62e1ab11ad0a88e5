// ClusterRoleAggregationController: writes into each ClusterRole with an aggregationRule the
// rules of the ClusterRoles its clusterRoleSelectors match (api/types/rbac.h), as Kubernetes'
// clusterrole-aggregation controller does, so that `kubectl get clusterrole edit -o yaml` shows
// what the role grants. The API server's RBAC evaluates the aggregation itself and does not
// wait for this write. Any ClusterRole change queues every aggregated role (chains settle one
// write at a time). Keys: aggregated roles' names, and "/" for all of them. Thread-safety: as
// Controller (one worker).
#pragma once

#include <string>

#include "controllers/controller.h"

namespace etna::controllers {

class ClusterRoleAggregationController : public Controller {
 public:
  explicit ClusterRoleAggregationController(ControllerOptions options);
  ~ClusterRoleAggregationController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  client::Informer* roles_;
};

}  // namespace etna::controllers
