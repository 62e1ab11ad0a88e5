#include "controllers/cluster_role_aggregation_controller.h"

#include <vector>

#include "api/types/rbac.h"

namespace etna::controllers {

namespace types = etna::api::types;
using Json = nlohmann::json;

namespace {
// The key that stands for "every aggregated role" (no role's name holds a '/'): the handler
// may run under the informer's lock (resyncs), so it only enqueues, and the worker lists.
constexpr char kAllRoles[] = "/";
}  // namespace

ClusterRoleAggregationController::ClusterRoleAggregationController(ControllerOptions options)
    : Controller("clusterrole-aggregation", std::move(options)) {
  roles_ = Watch(client::Path("clusterroles"),
                 [this](const std::string&, const Json&) { queue().Add(kAllRoles); });
}

Status ClusterRoleAggregationController::Reconcile(const std::string& key) {
  if (key == kAllRoles) {
    roles_->ForEach([this](const Json& role) {
      if (types::IsAggregated(role)) queue().Add(types::String(role, {"metadata", "name"}));
    });
    return Status::Ok();
  }
  auto role = roles_->Get("", key);
  if (!role || !types::IsAggregated(*role)) return Status::Ok();
  std::vector<Json> all;
  roles_->ForEach([&](const Json& r) { all.push_back(r); });
  std::vector<const Json*> pointers;
  for (const Json& r : all) pointers.push_back(&r);
  Json rules = types::AggregatedRules(*role, pointers);
  if (types::Array(*role, {"rules"}) == rules) return Status::Ok();
  auto patched = rest().MergePatch(client::Path("clusterroles", "", key), {{"rules", rules}});
  return patched.ok() || patched.status().code() == StatusCode::kNotFound ? Status::Ok()
                                                                          : patched.status();
}

}  // namespace etna::controllers
