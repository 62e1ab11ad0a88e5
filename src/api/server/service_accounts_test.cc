// ServiceAccounts: every namespace's default account, TokenRequest, and what a token may do.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/server/server_test_kit.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using testing::Reply;

class ServiceAccountTest : public testing::ServerTest {
 protected:
  void SetUp() override {
    MustCreate("/api/v1/namespaces", {{"metadata", {{"name", "team-a"}}}});
    MustCreate("/api/v1/namespaces", {{"metadata", {{"name", "team-b"}}}});
    json pod = {
        {"metadata", {{"name", "trainer"}}},
        {"spec", {{"nodeName", "n1"}, {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
    MustCreate("/api/v1/namespaces/team-a/pods", pod);
  }
  Reply RequestToken(const std::string& token, const json& spec, const std::string& ns = "team-a") {
    return Do(
        "POST", "/api/v1/namespaces/" + ns + "/serviceaccounts/default/token",
        json{{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}}
            .dump(),
        "application/json", token);
  }
  json BoundToTrainer() {
    return {{"boundObjectRef", {{"kind", "Pod"}, {"apiVersion", "v1"}, {"name", "trainer"}}}};
  }
};

TEST_F(ServiceAccountTest, EveryNamespaceHasItsDefaultAccountAndPodsRunAsIt) {
  for (const char* ns : {"default", "kube-system", "team-a", "team-b"}) {
    EXPECT_EQ(Do("GET", fmt::format("/api/v1/namespaces/{}/serviceaccounts/default", ns)).status,
              200)
        << ns;
  }
  EXPECT_EQ(
      Do("GET", "/api/v1/namespaces/team-a/pods/trainer").Json()["spec"]["serviceAccountName"],
      "default");
}

TEST_F(ServiceAccountTest, AnAccountWithoutAutomountGivesItsPodsNoToken) {
  MustCreate("/api/v1/namespaces/team-a/serviceaccounts",
             {{"metadata", {{"name", "quiet"}}}, {"automountServiceAccountToken", false}});
  json pod = {
      {"metadata", {{"name", "p"}}},
      {"spec",
       {{"serviceAccountName", "quiet"}, {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  EXPECT_EQ(
      MustCreate("/api/v1/namespaces/team-a/pods", pod)["spec"]["automountServiceAccountToken"],
      false);
  pod["metadata"]["name"] = "asks";
  pod["spec"]["automountServiceAccountToken"] = true;  // the pod's own choice wins
  EXPECT_EQ(
      MustCreate("/api/v1/namespaces/team-a/pods", pod)["spec"]["automountServiceAccountToken"],
      true);
  EXPECT_FALSE(Do("GET", "/api/v1/namespaces/team-a/pods/trainer")
                   .Json()["spec"]
                   .contains("automountServiceAccountToken"));
}

TEST_F(ServiceAccountTest, ATokenHasItsAccountsRightsOnly) {
  Reply issued = RequestToken("admin-token", BoundToTrainer());
  ASSERT_EQ(issued.status, 201) << issued.body;
  std::string token = issued.Json()["status"]["token"];
  EXPECT_EQ(issued.Json()["spec"]["expirationSeconds"], 3600);
  EXPECT_EQ(
      Do("GET", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs", "", "", token).status,
      200);
  Reply other = Do("GET", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-b/jobs", "", "", token);
  EXPECT_EQ(other.status, 403);
  EXPECT_NE(other.Json()["message"].get<std::string>().find(
                "User \"system:serviceaccount:team-a:default\""),
            std::string::npos)
      << other.body;
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/secrets", "", "", token).status, 403);
  // The scheme is case-insensitive: the Python client sends "bearer".
  EXPECT_EQ(
      Do("GET", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs", "", "", "bearer " + token)
          .status,
      200);
  // Expired, tampered with, or outliving its pod: no longer a user.
  std::string tampered = token;
  tampered[tampered.size() - 2] = tampered[tampered.size() - 2] == 'A' ? 'B' : 'A';
  EXPECT_EQ(
      Do("GET", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs", "", "", tampered).status,
      401);
  ASSERT_EQ(Do("DELETE", "/api/v1/namespaces/team-a/pods/trainer?gracePeriodSeconds=0").status,
            200);
  EXPECT_EQ(
      Do("GET", "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs", "", "", token).status,
      401);
}

TEST_F(ServiceAccountTest, TokensExpire) {
  Reply issued = RequestToken("admin-token", {{"expirationSeconds", 600}});
  ASSERT_EQ(issued.status, 201) << issued.body;
  std::string token = issued.Json()["status"]["token"];
  const std::string jobs = "/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs";
  EXPECT_EQ(Do("GET", jobs, "", "", token).status, 200);
  clock_.Advance(600'000);
  EXPECT_EQ(Do("GET", jobs, "", "", token).status, 401);
}

TEST_F(ServiceAccountTest, BadRequestsAreRefusedByField) {
  Reply short_lived = RequestToken("admin-token", {{"expirationSeconds", 10}});
  EXPECT_EQ(short_lived.status, 422);
  EXPECT_NE(short_lived.body.find("spec.expirationSeconds"), std::string::npos);
  Reply secret =
      RequestToken("admin-token", {{"boundObjectRef", {{"kind", "Secret"}, {"name", "x"}}}});
  EXPECT_EQ(secret.status, 422);
  EXPECT_NE(secret.body.find("spec.boundObjectRef"), std::string::npos);
  Reply missing =
      RequestToken("admin-token", {{"boundObjectRef", {{"kind", "Pod"}, {"name", "nobody"}}}});
  EXPECT_EQ(missing.status, 422);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/team-a/serviceaccounts/default/token").status, 405);
}

TEST_F(ServiceAccountTest, AnAgentGetsTokensOnlyForItsOwnPods) {
  EXPECT_EQ(RequestToken("node-token", BoundToTrainer()).status, 201);
  EXPECT_EQ(RequestToken("node-token", json::object()).status, 403);  // bound to no pod
  MustCreate(
      "/api/v1/namespaces/team-b/pods",
      {{"metadata", {{"name", "elsewhere"}}},
       {"spec", {{"nodeName", "n2"}, {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}});
  EXPECT_EQ(RequestToken("node-token",
                         {{"boundObjectRef", {{"kind", "Pod"}, {"name", "elsewhere"}}}}, "team-b")
                .status,
            403);
  EXPECT_EQ(RequestToken("alice-token", BoundToTrainer()).status, 201);  // write on team-a
}

}  // namespace
}  // namespace etna::api::server
