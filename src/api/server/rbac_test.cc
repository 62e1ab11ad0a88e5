// RBAC rule matching and the snapshot's bindings and aggregation.
#include "api/server/rbac.h"

#include <gtest/gtest.h>

namespace etna::api::server {
namespace {

using nlohmann::json;

PolicyRule Rule(const json& j) { return PolicyRule::FromJson(j); }

TEST(RbacRuleTest, VerbsGroupsAndResourcesMustAllCover) {
  PolicyRule r = Rule(
      {{"verbs", {"get", "list"}}, {"apiGroups", {"batch.volcano.sh"}}, {"resources", {"jobs"}}});
  EXPECT_TRUE(RuleAllows(r, {"get", "jobs.batch.volcano.sh", "", "a", "j"}));
  EXPECT_FALSE(RuleAllows(r, {"delete", "jobs.batch.volcano.sh", "", "a", "j"}));
  EXPECT_FALSE(RuleAllows(r, {"get", "jobs.batch", "", "a", "j"}));  // another group's jobs
  EXPECT_FALSE(RuleAllows(r, {"get", "jobs.batch.volcano.sh", "status", "a", "j"}));
  PolicyRule core = Rule({{"verbs", {"*"}}, {"apiGroups", {""}}, {"resources", {"pods"}}});
  EXPECT_TRUE(RuleAllows(core, {"deletecollection", "pods", "", "a", ""}));
  EXPECT_FALSE(RuleAllows(core, {"get", "pods", "log", "a", "p"}));
}

TEST(RbacRuleTest, SubresourcesAndWildcards) {
  PolicyRule log = Rule({{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {"pods/log"}}});
  EXPECT_TRUE(RuleAllows(log, {"get", "pods", "log", "a", "p"}));
  EXPECT_FALSE(RuleAllows(log, {"get", "pods", "", "a", "p"}));
  PolicyRule scale = Rule({{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*/scale"}}});
  EXPECT_TRUE(RuleAllows(scale, {"update", "deployments.apps", "scale", "a", "d"}));
  EXPECT_FALSE(RuleAllows(scale, {"update", "deployments.apps", "", "a", "d"}));
  PolicyRule all = Rule({{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}});
  EXPECT_TRUE(RuleAllows(all, {"create", "pods", "exec", "a", "p"}));
  // A wildcard asked for is covered only by a wildcard.
  PolicyRule pods = Rule({{"verbs", {"*"}}, {"apiGroups", {""}}, {"resources", {"pods"}}});
  EXPECT_FALSE(RuleAllows(pods, {"get", "*", "", "a", ""}));
}

TEST(RbacRuleTest, ResourceNamesNeverCoverCreatesOrCollections) {
  PolicyRule r = Rule({{"verbs", {"*"}},
                       {"apiGroups", {""}},
                       {"resources", {"configmaps"}},
                       {"resourceNames", {"settings"}}});
  EXPECT_TRUE(RuleAllows(r, {"get", "configmaps", "", "a", "settings"}));
  EXPECT_TRUE(RuleAllows(r, {"update", "configmaps", "", "a", "settings"}));
  EXPECT_FALSE(RuleAllows(r, {"get", "configmaps", "", "a", "other"}));
  EXPECT_FALSE(RuleAllows(r, {"list", "configmaps", "", "a", ""}));
  EXPECT_FALSE(RuleAllows(r, {"create", "configmaps", "", "a", "settings"}));
  EXPECT_FALSE(RuleAllows(r, {"deletecollection", "configmaps", "", "a", "settings"}));
}

TEST(RbacRuleTest, NonResourceUrlsMatchExactlyOrByPrefix) {
  PolicyRule r = Rule({{"verbs", {"get"}}, {"nonResourceURLs", {"/healthz", "/apis/*"}}});
  EXPECT_TRUE(RuleAllowsPath(r, "get", "/healthz"));
  EXPECT_TRUE(RuleAllowsPath(r, "get", "/apis/batch.volcano.sh"));
  EXPECT_FALSE(RuleAllowsPath(r, "get", "/healthz/etcd"));
  EXPECT_FALSE(RuleAllowsPath(r, "post", "/healthz"));
}

json Role(const std::string& ns, const std::string& name, const json& rules,
          const json& labels = json::object()) {
  json role = {{"metadata", {{"name", name}, {"labels", labels}}}, {"rules", rules}};
  if (!ns.empty()) role["metadata"]["namespace"] = ns;
  return role;
}

json Binding(const std::string& ns, const std::string& kind, const std::string& role,
             const json& subjects) {
  json b = {{"metadata", {{"name", role + "-binding"}}},
            {"roleRef", {{"kind", kind}, {"name", role}}},
            {"subjects", subjects}};
  if (!ns.empty()) b["metadata"]["namespace"] = ns;
  return b;
}

const json kPodsRule =
    json::array({{{"verbs", {"get", "list"}}, {"apiGroups", {""}}, {"resources", {"pods"}}}});

TEST(RbacSnapshotTest, RoleBindingGrantsInItsNamespaceOnly) {
  RbacSnapshot s({}, {Role("team-a", "reader", kPodsRule)}, {},
                 {Binding("team-a", "Role", "reader", {{{"kind", "User"}, {"name", "bob"}}})});
  UserInfo bob{"bob", {"system:authenticated"}};
  EXPECT_TRUE(s.Allows(bob, {"list", "pods", "", "team-a", ""}));
  EXPECT_FALSE(s.Allows(bob, {"list", "pods", "", "team-b", ""}));
  EXPECT_FALSE(s.Allows(bob, {"list", "pods", "", "", ""}));  // every namespace
  EXPECT_FALSE(s.Allows(UserInfo{"carol", {}}, {"list", "pods", "", "team-a", ""}));
}

TEST(RbacSnapshotTest, ClusterRoleBindingGrantsEverywhereAndSubjectsMatchByKind) {
  RbacSnapshot s({Role("", "pod-reader", kPodsRule)}, {},
                 {Binding("", "ClusterRole", "pod-reader",
                          {{{"kind", "Group"}, {"name", "ml"}},
                           {{"kind", "ServiceAccount"}, {"name", "ci"}, {"namespace", "tools"}}})},
                 {});
  EXPECT_TRUE(s.Allows(UserInfo{"x", {"ml"}}, {"get", "pods", "", "team-b", "p"}));
  EXPECT_TRUE(s.Allows(UserInfo{"x", {"ml"}}, {"list", "pods", "", "", ""}));
  EXPECT_TRUE(
      s.Allows(UserInfo{"system:serviceaccount:tools:ci", {}}, {"get", "pods", "", "team-b", "p"}));
  EXPECT_FALSE(s.Allows(UserInfo{"ml", {}}, {"get", "pods", "", "team-b", "p"}));  // a user
}

TEST(RbacSnapshotTest, ARoleBindingMayGrantAClusterRoleWithinItsNamespace) {
  RbacSnapshot s({Role("", "pod-reader", kPodsRule)}, {}, {},
                 {Binding("team-a", "ClusterRole", "pod-reader",
                          {{{"kind", "ServiceAccount"}, {"name", "default"}}})});
  // A ServiceAccount subject without a namespace is the binding's namespace's.
  UserInfo sa{"system:serviceaccount:team-a:default", {}};
  EXPECT_TRUE(s.Allows(sa, {"get", "pods", "", "team-a", "p"}));
  EXPECT_FALSE(s.Allows(sa, {"get", "pods", "", "team-b", "p"}));
}

TEST(RbacSnapshotTest, AggregatedRolesHoldTheSelectedRolesRules) {
  json secrets =
      json::array({{{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {"secrets"}}}});
  json aggregated = Role("", "team", json::array());
  aggregated["aggregationRule"] = {
      {"clusterRoleSelectors", {{{"matchLabels", {{"to-team", "true"}}}}}}};
  RbacSnapshot s({aggregated, Role("", "a", kPodsRule, {{"to-team", "true"}}),
                  Role("", "b", secrets, {{"to-team", "true"}}), Role("", "c", secrets)},
                 {}, {},
                 {Binding("ns", "ClusterRole", "team", {{{"kind", "User"}, {"name", "u"}}})});
  ASSERT_NE(s.ClusterRoleRules("team"), nullptr);
  EXPECT_EQ(s.ClusterRoleRules("team")->size(), 2u);
  EXPECT_TRUE(s.Allows(UserInfo{"u", {}}, {"get", "secrets", "", "ns", "s"}));
  EXPECT_TRUE(s.Allows(UserInfo{"u", {}}, {"list", "pods", "", "ns", ""}));
  EXPECT_FALSE(s.Allows(UserInfo{"u", {}}, {"delete", "pods", "", "ns", "p"}));
}

TEST(RbacSnapshotTest, ABindingToAMissingRoleGrantsNothing) {
  RbacSnapshot s({}, {}, {}, {Binding("ns", "Role", "gone", {{{"kind", "User"}, {"name", "u"}}})});
  EXPECT_FALSE(s.Allows(UserInfo{"u", {}}, {"get", "pods", "", "ns", "p"}));
}

}  // namespace
}  // namespace etna::api::server
