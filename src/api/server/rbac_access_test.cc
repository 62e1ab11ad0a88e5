// RBAC through the REST engine: bindings grant, the default roles, escalation checks on writes
// of roles and bindings, access reviews and impersonation.
#include <gtest/gtest.h>

#include "api/server/server_test_kit.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr char kRbac[] = "/apis/rbac.authorization.k8s.io/v1";

json Pod(const std::string& name) {
  return {{"metadata", {{"name", name}}},
          {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
}

json RoleBinding(const std::string& name, const std::string& kind, const std::string& role,
                 const std::string& user) {
  return {{"metadata", {{"name", name}}},
          {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", kind}, {"name", role}}},
          {"subjects", {{{"kind", "User"}, {"name", user}}}}};
}

class RbacAccessTest : public testing::ServerTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_->Bootstrap().ok());
    for (const char* ns : {"team-a", "team-b"}) {
      MustCreate("/api/v1/namespaces", {{"metadata", {{"name", ns}}}});
      MustCreate(std::string("/api/v1/namespaces/") + ns + "/pods", Pod("p"));
    }
  }
  int Bob(const std::string& method, const std::string& target, const json& body = nullptr,
          const std::string& content_type = "application/json") {
    return Do(method, target, body.is_null() ? "" : body.dump(), content_type, "bob-token").status;
  }
  void Bind(const std::string& ns, const std::string& kind, const std::string& role,
            const std::string& user = "bob") {
    MustCreate(std::string(kRbac) + "/namespaces/" + ns + "/rolebindings",
               RoleBinding(user + "-" + role, kind, role, user));
  }
  // A SelfSubjectAccessReview's answer for `token`.
  bool CanI(const std::string& token, const std::string& verb, const std::string& resource,
            const std::string& ns, const std::string& group = "") {
    json review = {
        {"apiVersion", "authorization.k8s.io/v1"},
        {"kind", "SelfSubjectAccessReview"},
        {"spec",
         {{"resourceAttributes",
           {{"verb", verb}, {"resource", resource}, {"group", group}, {"namespace", ns}}}}}};
    auto r = Do("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review.dump(),
                "application/json", token);
    EXPECT_EQ(r.status, 201) << r.body;
    return r.Json()["status"]["allowed"] == true;
  }
};

TEST_F(RbacAccessTest, TheDefaultRolesExistAndEditGrantsOneNamespace) {
  auto edit = Do("GET", std::string(kRbac) + "/clusterroles/edit");
  ASSERT_EQ(edit.status, 200) << edit.body;
  EXPECT_TRUE(edit.Json().contains("aggregationRule"));
  EXPECT_EQ(Do("GET", std::string(kRbac) + "/clusterrolebindings/cluster-admin").status, 200);

  EXPECT_EQ(Bob("GET", "/api/v1/namespaces/team-a/pods"), 403);
  Bind("team-a", "ClusterRole", "edit");
  EXPECT_EQ(Bob("GET", "/api/v1/namespaces/team-a/pods"), 200);
  EXPECT_EQ(Bob("POST", "/api/v1/namespaces/team-a/pods", Pod("q")), 201);
  EXPECT_EQ(Bob("DELETE", "/api/v1/namespaces/team-a/pods/q"), 200);
  EXPECT_EQ(Bob("GET", "/api/v1/namespaces/team-b/pods"), 403);
  EXPECT_EQ(Bob("GET", "/api/v1/pods"), 403);
  EXPECT_EQ(Bob("GET", "/api/v1/namespaces/team-a"), 200);  // its own Namespace, not others
  EXPECT_EQ(Bob("GET", "/api/v1/namespaces/team-b"), 403);
  EXPECT_EQ(Bob("GET", "/api/v1/namespaces"), 403);
  EXPECT_EQ(Bob("GET", "/api/v1/nodes"), 403);
  EXPECT_EQ(Bob("GET", "/apis/scheduling.volcano.sh/v1beta1/queues"), 403);
  // edit may not grant: no roles or bindings.
  EXPECT_EQ(Bob("GET", std::string(kRbac) + "/namespaces/team-a/rolebindings"), 403);
  // Deleting the binding takes the access away.
  ASSERT_EQ(Do("DELETE", std::string(kRbac) + "/namespaces/team-a/rolebindings/bob-edit").status,
            200);
  EXPECT_EQ(Bob("GET", "/api/v1/namespaces/team-a/pods"), 403);
}

TEST_F(RbacAccessTest, ResourceNamesLimitToThoseObjects) {
  for (const char* name : {"settings", "other"}) {
    MustCreate("/api/v1/namespaces/team-a/configmaps", {{"metadata", {{"name", name}}}});
  }
  MustCreate(std::string(kRbac) + "/namespaces/team-a/roles",
             {{"metadata", {{"name", "settings"}}},
              {"rules",
               {{{"verbs", {"get", "update", "patch"}},
                 {"apiGroups", {""}},
                 {"resources", {"configmaps"}},
                 {"resourceNames", {"settings"}}}}}});
  Bind("team-a", "Role", "settings");
  EXPECT_EQ(Bob("GET", "/api/v1/namespaces/team-a/configmaps/settings"), 200);
  EXPECT_EQ(Bob("PATCH", "/api/v1/namespaces/team-a/configmaps/settings", {{"data", {{"k", "v"}}}},
                "application/merge-patch+json"),
            200);
  EXPECT_EQ(Bob("GET", "/api/v1/namespaces/team-a/configmaps/other"), 403);
  EXPECT_EQ(Bob("GET", "/api/v1/namespaces/team-a/configmaps"), 403);
  EXPECT_EQ(
      Bob("POST", "/api/v1/namespaces/team-a/configmaps", {{"metadata", {{"name", "settings2"}}}}),
      403);
}

TEST_F(RbacAccessTest, ARoleLabelledForAggregationWidensEditAtOnce) {
  Bind("team-a", "ClusterRole", "edit");
  json lease = {{"metadata", {{"name", "l"}}}, {"spec", {{"holderIdentity", "me"}}}};
  const std::string leases = "/apis/coordination.k8s.io/v1/namespaces/team-a/leases";
  EXPECT_EQ(Bob("POST", leases, lease), 403);
  MustCreate(std::string(kRbac) + "/clusterroles",
             {{"metadata",
               {{"name", "lease-editor"},
                {"labels", {{"rbac.authorization.k8s.io/aggregate-to-edit", "true"}}}}},
              {"rules",
               {{{"verbs", {"create"}},
                 {"apiGroups", {"coordination.k8s.io"}},
                 {"resources", {"leases"}}}}}});
  EXPECT_EQ(Bob("POST", leases, lease), 201);
}

TEST_F(RbacAccessTest, NobodyGrantsWhatTheyDoNotHold) {
  Bind("team-a", "ClusterRole", "admin");
  const std::string bindings = std::string(kRbac) + "/namespaces/team-a/rolebindings";
  const std::string roles = std::string(kRbac) + "/namespaces/team-a/roles";
  // admin may hand out edit in its namespace, not cluster-admin, and nothing elsewhere.
  EXPECT_EQ(Bob("POST", bindings, RoleBinding("carol-edit", "ClusterRole", "edit", "carol")), 201);
  auto refused =
      Do("POST", bindings, RoleBinding("bob-root", "ClusterRole", "cluster-admin", "bob").dump(),
         "application/json", "bob-token");
  EXPECT_EQ(refused.status, 403);
  EXPECT_NE(refused.body.find("attempting to grant RBAC permissions not currently held"),
            std::string::npos)
      << refused.body;
  EXPECT_EQ(Bob("POST", std::string(kRbac) + "/namespaces/team-b/rolebindings",
                RoleBinding("bob-edit", "ClusterRole", "edit", "bob")),
            403);
  EXPECT_EQ(Bob("POST", std::string(kRbac) + "/clusterrolebindings",
                RoleBinding("bob-edit", "ClusterRole", "edit", "bob")),
            403);
  // A Role may hold what bob holds, not nodes; nor may a patch add them.
  json pods_role = {
      {"metadata", {{"name", "pods"}}},
      {"rules", {{{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {"pods"}}}}}};
  EXPECT_EQ(Bob("POST", roles, pods_role), 201);
  json nodes_role = pods_role;
  nodes_role["metadata"]["name"] = "nodes";
  nodes_role["rules"][0]["resources"] = {"nodes"};
  EXPECT_EQ(Bob("POST", roles, nodes_role), 403);
  EXPECT_EQ(Bob("PATCH", roles + "/pods",
                {{"rules", {{{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}}}}},
                "application/merge-patch+json"),
            403);
  EXPECT_EQ(Do("GET", roles + "/pods").Json()["rules"][0]["resources"][0], "pods");
  EXPECT_EQ(
      Bob("PATCH", roles + "/pods",
          {{"rules", {{{"verbs", {"get", "list"}}, {"apiGroups", {""}}, {"resources", {"pods"}}}}}},
          "application/merge-patch+json"),
      200);
}

TEST_F(RbacAccessTest, ValidationNamesTheField) {
  auto r =
      Do("POST", std::string(kRbac) + "/namespaces/team-a/rolebindings",
         json{{"metadata", {{"name", "x"}}},
              {"roleRef",
               {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Nope"}, {"name", "edit"}}}}
             .dump());
  EXPECT_EQ(r.status, 422);
  EXPECT_NE(r.body.find("roleRef.kind"), std::string::npos) << r.body;
  r = Do("POST", std::string(kRbac) + "/namespaces/team-a/roles",
         json{{"metadata", {{"name", "x"}}},
              {"rules", {{{"verbs", {"get"}}, {"nonResourceURLs", {"/healthz"}}}}}}
             .dump());
  EXPECT_EQ(r.status, 422);
  EXPECT_NE(r.body.find("rules[0].nonResourceURLs"), std::string::npos) << r.body;
  Bind("team-a", "ClusterRole", "view");
  r = Do("PATCH", std::string(kRbac) + "/namespaces/team-a/rolebindings/bob-view",
         R"({"roleRef":{"name":"edit"}})", "application/merge-patch+json");
  EXPECT_EQ(r.status, 422);
  EXPECT_NE(r.body.find("cannot change roleRef"), std::string::npos) << r.body;
}

TEST_F(RbacAccessTest, AccessReviewsAnswerForTheRequesterAndOthers) {
  Bind("team-a", "ClusterRole", "view");
  EXPECT_TRUE(CanI("bob-token", "list", "pods", "team-a"));
  EXPECT_FALSE(CanI("bob-token", "create", "pods", "team-a"));
  EXPECT_FALSE(CanI("bob-token", "list", "pods", "team-b"));
  EXPECT_TRUE(CanI("bob-token", "get", "jobs", "team-a", "batch.volcano.sh"));
  EXPECT_TRUE(CanI("alice-token", "create", "pods", "team-a"));  // the YAML rules count too
  EXPECT_TRUE(CanI("admin-token", "delete", "nodes", ""));

  auto rules = Do("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                  R"({"spec":{"namespace":"team-a"}})", "application/json", "bob-token");
  ASSERT_EQ(rules.status, 201) << rules.body;
  bool pods = false;
  const json answer = rules.Json();
  for (const json& r : answer["status"]["resourceRules"]) {
    for (const json& res : r["resources"]) pods = pods || res == "pods";
  }
  EXPECT_TRUE(pods) << rules.body;

  json sar = {{"spec",
               {{"user", "bob"},
                {"resourceAttributes",
                 {{"verb", "list"}, {"resource", "pods"}, {"namespace", "team-a"}}}}}};
  auto r = Do("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar.dump());
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json()["status"]["allowed"], true);
  // Asking about others is for those allowed to.
  EXPECT_EQ(Bob("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar), 403);

  auto whoami = Do("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "{}",
                   "application/json", "bob-token");
  ASSERT_EQ(whoami.status, 201) << whoami.body;
  EXPECT_EQ(whoami.Json()["status"]["userInfo"]["username"], "bob");
}

TEST_F(RbacAccessTest, ImpersonationNeedsThePermissionAndActsAsTheOther) {
  Bind("team-a", "ClusterRole", "view");
  auto as_bob = [&](const std::string& token, const std::string& path) {
    return Do("GET", path, "", "", token, "", {{"impersonate-user", "bob"}}).status;
  };
  EXPECT_EQ(as_bob("admin-token", "/api/v1/namespaces/team-a/pods"), 200);
  EXPECT_EQ(as_bob("admin-token", "/api/v1/namespaces/team-b/pods"), 403);
  EXPECT_EQ(as_bob("alice-token", "/api/v1/namespaces/team-a/pods"), 403);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/pods", "", "", "admin-token", "",
               {{"impersonate-user", "bob"}, {"impersonate-extra-scopes", "x"}})
                .status,
            400);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/pods", "", "", "admin-token", "",
               {{"impersonate-group", "team-a"}})
                .status,
            400);
}

}  // namespace
}  // namespace etna::api::server
