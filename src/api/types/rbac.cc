// ClusterRole aggregation (rbac.h).
#include "api/types/rbac.h"

#include <algorithm>

#include "api/types/label_selector.h"

namespace etna::api::types {

bool IsAggregated(const Json& role) { return Find(role, {"aggregationRule"}) != nullptr; }

Json AggregatedRules(const Json& aggregated, std::vector<const Json*> roles) {
  const std::string self = String(aggregated, {"metadata", "name"});
  std::sort(roles.begin(), roles.end(), [](const Json* a, const Json* b) {
    return String(*a, {"metadata", "name"}) < String(*b, {"metadata", "name"});
  });
  Json rules = Json::array();
  const Json& selectors = Array(aggregated, {"aggregationRule", "clusterRoleSelectors"});
  for (const Json* role : roles) {
    if (String(*role, {"metadata", "name"}) == self) continue;
    const Json* labels = Find(*role, {"metadata", "labels"});
    bool selected = false;
    for (const Json& selector : selectors) {
      selected = selected || SelectorMatches(selector, labels);
    }
    if (!selected) continue;
    for (const Json& rule : Array(*role, {"rules"})) {
      if (std::find(rules.begin(), rules.end(), rule) == rules.end()) rules.push_back(rule);
    }
  }
  return rules;
}

}  // namespace etna::api::types
