// Table cells of rbac.authorization.k8s.io/v1 kinds, as kubectl prints them: a role's name and
// creation time; a binding's name, role ("ClusterRole/edit"), age and, wide, its users, groups
// and service accounts ("ns/name"), comma-separated.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "api/resources/table_printers.h"

namespace etna::api::resources::internal {

json RoleCells(const json& role) {
  return json::array(
      {String(role, {"metadata", "name"}), String(role, {"metadata", "creationTimestamp"})});
}

json RoleBindingCells(const json& binding, Clock::time_point now) {
  std::vector<std::string> users, groups, accounts;
  for (const json& s : Array(binding, {"subjects"})) {
    const std::string kind = String(s, {"kind"});
    const std::string name = String(s, {"name"});
    if (kind == "User") users.push_back(name);
    if (kind == "Group") groups.push_back(name);
    if (kind == "ServiceAccount") accounts.push_back(String(s, {"namespace"}) + "/" + name);
  }
  return json::array(
      {String(binding, {"metadata", "name"}),
       String(binding, {"roleRef", "kind"}) + "/" + String(binding, {"roleRef", "name"}),
       TimestampSince(Find(binding, {"metadata", "creationTimestamp"}), now),
       fmt::format("{}", fmt::join(users, ",")), fmt::format("{}", fmt::join(groups, ",")),
       fmt::format("{}", fmt::join(accounts, ","))});
}

}  // namespace etna::api::resources::internal
