// The default ClusterRoles and ClusterRoleBindings every cluster starts with (rbac_bootstrap.h),
// after Kubernetes' bootstrap policy, with etna's Volcano kinds in the user-facing roles.
#include "api/server/rbac_bootstrap.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr char kAutoupdate[] = "rbac.authorization.kubernetes.io/autoupdate";
constexpr char kAggregateToAdmin[] = "rbac.authorization.k8s.io/aggregate-to-admin";
constexpr char kAggregateToEdit[] = "rbac.authorization.k8s.io/aggregate-to-edit";
constexpr char kAggregateToView[] = "rbac.authorization.k8s.io/aggregate-to-view";

const std::vector<std::string> kRead = {"get", "list", "watch"};
const std::vector<std::string> kWrite = {"create", "delete", "deletecollection", "patch", "update"};
std::vector<std::string> ReadWrite() {
  std::vector<std::string> out = kRead;
  out.insert(out.end(), kWrite.begin(), kWrite.end());
  return out;
}

json Rule(std::vector<std::string> groups, std::vector<std::string> resources,
          std::vector<std::string> verbs) {
  return {{"apiGroups", std::move(groups)},
          {"resources", std::move(resources)},
          {"verbs", std::move(verbs)}};
}

json UrlRule(std::vector<std::string> urls, std::vector<std::string> verbs) {
  return {{"nonResourceURLs", std::move(urls)}, {"verbs", std::move(verbs)}};
}

json Meta(const std::string& name, json labels = json::object()) {
  labels["kubernetes.io/bootstrapping"] = "rbac-defaults";
  return {{"name", name}, {"labels", labels}, {"annotations", {{kAutoupdate, "true"}}}};
}

json ClusterRole(const std::string& name, json rules, json labels = json::object()) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRole"},
          {"metadata", Meta(name, std::move(labels))},
          {"rules", std::move(rules)}};
}

json AggregatedRole(const std::string& name, const char* selector_label, json labels) {
  json role = ClusterRole(name, json::array(), std::move(labels));
  role["aggregationRule"] = {
      {"clusterRoleSelectors", json::array({{{"matchLabels", {{selector_label, "true"}}}}})}};
  return role;
}

json Binding(const std::string& name, const std::string& role, std::vector<std::string> groups) {
  json subjects = json::array();
  for (const std::string& g : groups) {
    subjects.push_back({{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", g}});
  }
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRoleBinding"},
          {"metadata", Meta(name)},
          {"roleRef",
           {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
          {"subjects", subjects}};
}

// What a namespace's readers may see (view), what its editors may change besides (edit), and
// what its administrators may grant (admin), aggregated into view, edit and admin.
std::vector<json> AggregateRoles() {
  const std::vector<std::string> core_view = {
      "pods",     "pods/log", "pods/status",     "configmaps", "endpoints",
      "services", "events",   "serviceaccounts", "namespaces", "namespaces/status"};
  const json view_rules = json::array({
      Rule({""}, core_view, kRead),
      Rule({"apps"},
           {"deployments", "deployments/scale", "deployments/status", "replicasets",
            "replicasets/scale", "replicasets/status"},
           kRead),
      Rule({"autoscaling"}, {"horizontalpodautoscalers", "horizontalpodautoscalers/status"}, kRead),
      Rule({"batch"}, {"jobs", "jobs/status"}, kRead),
      Rule({"discovery.k8s.io"}, {"endpointslices"}, kRead),
      Rule({"coordination.k8s.io"}, {"leases"}, kRead),
      Rule({"batch.volcano.sh"}, {"jobs", "jobs/status"}, kRead),
      Rule({"scheduling.volcano.sh"}, {"podgroups", "podgroups/status"}, kRead),
      Rule({"flow.volcano.sh"},
           {"jobflows", "jobflows/status", "jobtemplates", "jobtemplates/status"}, kRead),
      Rule({"bus.volcano.sh"}, {"commands"}, kRead),
      Rule({"keda.sh"}, {"scaledobjects", "scaledobjects/status"}, kRead),
      Rule({"metrics.k8s.io"}, {"pods"}, {"get", "list"}),
  });
  const json edit_rules = json::array({
      Rule({""},
           {"pods", "pods/attach", "pods/exec", "pods/portforward", "pods/eviction", "configmaps",
            "secrets", "services", "endpoints", "serviceaccounts", "events"},
           ReadWrite()),
      Rule({""}, {"serviceaccounts/token"}, {"create"}),
      Rule({"apps"}, {"deployments", "deployments/scale", "replicasets", "replicasets/scale"},
           ReadWrite()),
      Rule({"autoscaling"}, {"horizontalpodautoscalers"}, ReadWrite()),
      Rule({"batch"}, {"jobs"}, ReadWrite()),
      Rule({"discovery.k8s.io"}, {"endpointslices"}, ReadWrite()),
      Rule({"batch.volcano.sh"}, {"jobs"}, ReadWrite()),
      Rule({"scheduling.volcano.sh"}, {"podgroups"}, ReadWrite()),
      Rule({"flow.volcano.sh"}, {"jobflows", "jobtemplates"}, ReadWrite()),
      Rule({"bus.volcano.sh"}, {"commands"}, ReadWrite()),
      Rule({"keda.sh"}, {"scaledobjects"}, ReadWrite()),
  });
  const json admin_rules = json::array({
      Rule({"rbac.authorization.k8s.io"}, {"roles", "rolebindings"}, ReadWrite()),
      Rule({"authorization.k8s.io"}, {"localsubjectaccessreviews"}, {"create"}),
  });
  return {
      ClusterRole("system:aggregate-to-view", view_rules, {{kAggregateToView, "true"}}),
      ClusterRole("system:aggregate-to-edit", edit_rules, {{kAggregateToEdit, "true"}}),
      ClusterRole("system:aggregate-to-admin", admin_rules, {{kAggregateToAdmin, "true"}}),
  };
}

}  // namespace

std::vector<nlohmann::json> DefaultRbacObjects() {
  std::vector<json> out;
  out.push_back(ClusterRole("cluster-admin",
                            json::array({Rule({"*"}, {"*"}, {"*"}), UrlRule({"*"}, {"*"})})));
  // admin includes edit, edit includes view, as in Kubernetes.
  out.push_back(AggregatedRole("admin", kAggregateToAdmin, json::object()));
  out.push_back(AggregatedRole("edit", kAggregateToEdit, {{kAggregateToAdmin, "true"}}));
  out.push_back(AggregatedRole("view", kAggregateToView,
                               {{kAggregateToAdmin, "true"}, {kAggregateToEdit, "true"}}));
  for (json& role : AggregateRoles()) out.push_back(std::move(role));
  out.push_back(ClusterRole(
      "system:basic-user",
      json::array({Rule({"authorization.k8s.io"},
                        {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}, {"create"}),
                   Rule({"authentication.k8s.io"}, {"selfsubjectreviews"}, {"create"})})));
  out.push_back(ClusterRole(
      "system:discovery",
      json::array({UrlRule({"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi",
                            "/openapi/*", "/readyz", "/version", "/version/"},
                           {"get"})})));
  out.push_back(ClusterRole(
      "system:public-info-viewer",
      json::array({UrlRule({"/healthz", "/livez", "/readyz", "/version", "/version/"}, {"get"})})));
  // Not bound: a cluster administrator grants them (docs/rbac.md).
  out.push_back(
      ClusterRole("etna:queue-viewer",
                  json::array({Rule({"scheduling.volcano.sh"}, {"queues", "queues/status"}, kRead),
                               Rule({"scheduling.k8s.io"}, {"priorityclasses"}, kRead)})));
  out.push_back(Binding("cluster-admin", "cluster-admin", {"system:masters"}));
  out.push_back(Binding("system:basic-user", "system:basic-user", {"system:authenticated"}));
  out.push_back(Binding("system:discovery", "system:discovery", {"system:authenticated"}));
  out.push_back(Binding("system:public-info-viewer", "system:public-info-viewer",
                        {"system:authenticated", "system:unauthenticated"}));
  return out;
}

Status BootstrapRbac(ObjectService& objects) {
  const auto& registry = objects.registry();
  for (json& object : DefaultRbacObjects()) {
    const bool role = object["kind"] == "ClusterRole";
    const auto* info = registry.Find("rbac.authorization.k8s.io", "v1",
                                     role ? "clusterroles" : "clusterrolebindings");
    const std::string name = object["metadata"]["name"];
    auto current = objects.Get(*info, "", name);
    if (!current.ok()) {
      auto created = objects.Create(*info, "", object);
      if (!created.ok() && created.error().code != 409) {
        return Status::Internal(fmt::format("creating {} {}: {}", object["kind"].get<std::string>(),
                                            name, created.error().message));
      }
      continue;
    }
    // Kept current across upgrades unless the operator set autoupdate to "false": a role's
    // rules (or aggregationRule) and labels are the defaults', a binding keeps its subjects and
    // gains the defaults'.
    if (current->value("/metadata/annotations"_json_pointer, json::object())
            .value(kAutoupdate, "true") == "false") {
      continue;
    }
    auto edited = objects.Edit(*info, "", name, [&](json& stored) -> ApiResult<bool> {
      json before = stored;
      if (role) {
        // An aggregated role's rules are the aggregation's (rbac.h), left as they are.
        const char* field = object.contains("aggregationRule") ? "aggregationRule" : "rules";
        stored[field] = object[field];
        for (const auto& [k, v] : object["metadata"]["labels"].items()) {
          stored["metadata"]["labels"][k] = v;
        }
      } else {
        if (!stored["subjects"].is_array()) stored["subjects"] = json::array();
        for (const json& s : object["subjects"]) {
          bool present = false;
          for (const json& have : stored["subjects"]) present = present || have == s;
          if (!present) stored["subjects"].push_back(s);
        }
      }
      return stored != before;
    });
    if (!edited.ok()) {
      return Status::Internal(fmt::format("updating {} {}: {}", object["kind"].get<std::string>(),
                                          name, edited.error().message));
    }
  }
  return Status::Ok();
}

}  // namespace etna::api::server
