// Authentication, authorization and the agent credential's limits.
#include <gtest/gtest.h>

#include "api/server/server_test_kit.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

json Pod(const std::string& name, const std::string& node) {
  json pod = {{"metadata", {{"name", name}}},
              {"spec", {{"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  if (!node.empty()) pod["spec"]["nodeName"] = node;
  return pod;
}

class AccessTest : public testing::ServerTest {
 protected:
  void SetUp() override {
    MustCreate("/api/v1/namespaces", {{"metadata", {{"name", "team-a"}}}});
    MustCreate("/api/v1/namespaces", {{"metadata", {{"name", "team-b"}}}});
    MustCreate("/api/v1/namespaces/team-a/pods", Pod("mine", "n1"));
    MustCreate("/api/v1/namespaces/team-a/pods", Pod("theirs", "n2"));
  }
};

TEST_F(AccessTest, MissingOrWrongTokenIsUnauthorized) {
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/pods", "", "", "").status, 401);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/pods", "", "", "nope").status, 401);
  EXPECT_EQ(Do("GET", "/api", "", "", "").status, 401);
}

TEST_F(AccessTest, HealthAndVersionNeedNoToken) {
  EXPECT_EQ(Do("GET", "/healthz", "", "", "").body, "ok");
  EXPECT_EQ(Do("GET", "/version", "", "", "").Json()["major"], "1");
}

TEST_F(AccessTest, RulesGrantOneNamespaceOnly) {
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/pods", "", "", "alice-token").status, 200);
  auto denied = Do("GET", "/api/v1/namespaces/team-b/pods", "", "", "alice-token");
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.Json()["message"],
            "pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" "
            "in the namespace \"team-b\"");
  EXPECT_EQ(Do("GET", "/apis/scheduling.volcano.sh/v1beta1/queues", "", "", "alice-token").status,
            403);
}

TEST_F(AccessTest, AgentSeesOnlyItsOwnPods) {
  const std::string pods = "/api/v1/namespaces/team-a/pods";
  EXPECT_EQ(Do("GET", pods, "", "", "node-token").status, 403);
  EXPECT_EQ(Do("GET", pods + "?fieldSelector=spec.nodeName%3Dn1", "", "", "node-token").status,
            200);
  EXPECT_EQ(Do("GET", pods + "?fieldSelector=spec.nodeName%3Dn2", "", "", "node-token").status,
            403);
  EXPECT_EQ(Do("GET", pods + "/mine", "", "", "node-token").status, 200);
  EXPECT_EQ(Do("GET", pods + "/theirs", "", "", "node-token").status, 403);
  EXPECT_EQ(Do("PATCH", pods + "/mine/status", R"({"status":{"phase":"Running"}})",
               "application/merge-patch+json", "node-token")
                .status,
            200);
  EXPECT_EQ(Do("PATCH", pods + "/theirs/status", R"({"status":{"phase":"Running"}})",
               "application/merge-patch+json", "node-token")
                .status,
            403);
  EXPECT_EQ(Do("PATCH", pods + "/mine", R"({"spec":{"nodeName":"n2"}})",
               "application/merge-patch+json", "node-token")
                .status,
            403);
  EXPECT_EQ(Do("POST", pods, Pod("new", "n1").dump(), "application/json", "node-token").status,
            403);
}

TEST_F(AccessTest, AgentReadsTheSecretsAndConfigMapsItsPodsReference) {
  json pod = Pod("puller", "n1");
  pod["spec"]["imagePullSecrets"] = {{{"name", "registry"}}};
  pod["spec"]["volumes"] = {{{"name", "v"}, {"configMap", {{"name", "settings"}}}}};
  MustCreate("/api/v1/namespaces/team-a/pods", pod);
  json elsewhere = Pod("other", "n2");
  elsewhere["spec"]["containers"][0]["env"] = {
      {{"name", "X"}, {"valueFrom", {{"secretKeyRef", {{"name", "private"}, {"key", "k"}}}}}}};
  MustCreate("/api/v1/namespaces/team-a/pods", elsewhere);
  for (const char* name : {"registry", "private"}) {
    MustCreate("/api/v1/namespaces/team-a/secrets",
               {{"metadata", {{"name", name}}}, {"data", {{"k", "dg=="}}}});
  }
  MustCreate("/api/v1/namespaces/team-a/configmaps", {{"metadata", {{"name", "settings"}}}});
  const std::string ns = "/api/v1/namespaces/team-a";
  EXPECT_EQ(Do("GET", ns + "/secrets/registry", "", "", "node-token").status, 200);
  EXPECT_EQ(Do("GET", ns + "/configmaps/settings", "", "", "node-token").status, 200);
  // Referenced only by a pod of another node; a list is never allowed.
  EXPECT_EQ(Do("GET", ns + "/secrets/private", "", "", "node-token").status, 403);
  EXPECT_EQ(Do("GET", ns + "/secrets", "", "", "node-token").status, 403);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-b/secrets/registry", "", "", "node-token").status,
            403);
}

TEST_F(AccessTest, AgentListsThePeersOfItsJobsOnly) {
  auto job_pod = [](const std::string& name, const std::string& node, const std::string& job) {
    json pod = Pod(name, node);
    pod["metadata"]["labels"] = {{"volcano.sh/job-name", job}};
    return pod;
  };
  MustCreate("/api/v1/namespaces/team-a/pods", job_pod("train-0", "n1", "train"));
  MustCreate("/api/v1/namespaces/team-a/pods", job_pod("train-1", "n2", "train"));
  MustCreate("/api/v1/namespaces/team-a/pods", job_pod("other-0", "n2", "other"));
  const std::string pods = "/api/v1/namespaces/team-a/pods?labelSelector=volcano.sh%2Fjob-name%3D";
  auto peers = Do("GET", pods + "train", "", "", "node-token");
  ASSERT_EQ(peers.status, 200);
  EXPECT_EQ(peers.Json()["items"].size(), 2u);
  EXPECT_EQ(Do("GET", pods + "other", "", "", "node-token").status, 403);
  EXPECT_EQ(Do("GET", pods + "train,x%3Dy", "", "", "node-token").status, 403);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/services", "", "", "node-token").status, 200);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/endpoints", "", "", "node-token").status, 200);
}

TEST_F(AccessTest, AgentWritesOnlyItsOwnNodeAndLease) {
  json node = {{"metadata", {{"name", "n1"}}}};
  EXPECT_EQ(Do("POST", "/api/v1/nodes", node.dump(), "application/json", "node-token").status, 201);
  json other = {{"metadata", {{"name", "n2"}}}};
  EXPECT_EQ(Do("POST", "/api/v1/nodes", other.dump(), "application/json", "node-token").status,
            403);
  json lease = {{"metadata", {{"name", "n1"}}}, {"spec", {{"holderIdentity", "n1"}}}};
  EXPECT_EQ(Do("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
               lease.dump(), "application/json", "node-token")
                .status,
            201);
  EXPECT_EQ(Do("GET", "/apis/scheduling.volcano.sh/v1beta1/queues", "", "", "node-token").status,
            403);
}

TEST(AuthFilesTest, ATokenMayBeGivenAsItsSha256Digest) {
  // printf %s secret-token | sha256sum
  auto tokens = Authenticator::FromTokensText(
      "sha256:930bbdc51b6aed5c2a5678fd6e28dee7a05e8a4b643cfc0b4427c3efb86c0d94,hashed,1\n"
      "plain-token,plain,2\n",
      false);
  ASSERT_TRUE(tokens.ok()) << tokens.status().ToString();
  net::http::Request r;
  r.headers["authorization"] = "Bearer " + std::string("secret-token");
  auto hashed = tokens->Authenticate(r);
  ASSERT_TRUE(hashed.has_value());
  EXPECT_EQ(hashed->name, "hashed");
  r.headers["authorization"] = "Bearer plain-token";
  EXPECT_EQ(tokens->Authenticate(r)->name, "plain");
  r.headers["authorization"] =
      "Bearer sha256:930bbdc51b6aed5c2a5678fd6e28dee7a05e8a4b643cfc0b4427c3efb86c0d94";
  EXPECT_FALSE(tokens->Authenticate(r).has_value()) << "the digest is not the token";
  auto bad = Authenticator::FromTokensText("sha256:abc,user\n", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 1"), std::string::npos);
}

TEST(AuthFilesTest, MalformedFilesNameTheLine) {
  auto tokens = Authenticator::FromTokensText("ok,user\nbroken\n", false);
  ASSERT_FALSE(tokens.ok());
  EXPECT_NE(tokens.status().message().find("line 2"), std::string::npos);
  auto rules = Authorizer::FromRulesText(
      "- user: a\n  namespaces: [x]\n  resources: [y]\n"
      "  access: admin\n");
  ASSERT_FALSE(rules.ok());
  EXPECT_NE(rules.status().message().find("access"), std::string::npos);
}

}  // namespace
}  // namespace etna::api::server
