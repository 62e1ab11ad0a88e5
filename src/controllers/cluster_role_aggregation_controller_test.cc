// Aggregated ClusterRoles get the rules of the roles their selectors match written into them,
// through chains (admin selects edit, which selects view) and as labelled roles come and go.
#include "controllers/cluster_role_aggregation_controller.h"

#include <gtest/gtest.h>

#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

using nlohmann::json;

json Aggregated(const std::string& name, const std::string& label, json labels = json::object()) {
  return {{"metadata", {{"name", name}, {"labels", labels}}},
          {"aggregationRule", {{"clusterRoleSelectors", {{{"matchLabels", {{label, "true"}}}}}}}}};
}

json Labelled(const std::string& name, const std::string& label, const std::string& resource) {
  return {{"metadata", {{"name", name}, {"labels", {{label, "true"}}}}},
          {"rules", {{{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {resource}}}}}};
}

class ClusterRoleAggregationTest : public testing::ControllerTest {
 protected:
  void SetUp() override { c_ = std::make_unique<ClusterRoleAggregationController>(Options()); }
  std::vector<std::string> Resources(const std::string& role) {
    std::vector<std::string> out;
    json object = Get("clusterroles", "", role).value_or(json::object());
    for (const json& rule : object.value("rules", json::array())) {
      for (const json& r : rule["resources"]) out.push_back(r);
    }
    return out;
  }
  std::unique_ptr<ClusterRoleAggregationController> c_;
};

TEST_F(ClusterRoleAggregationTest, WritesTheSelectedRulesThroughChains) {
  MustCreate("clusterroles", "", Aggregated("top", "to-top"));
  MustCreate("clusterroles", "", Aggregated("middle", "to-middle", {{"to-top", "true"}}));
  MustCreate("clusterroles", "", Labelled("pods", "to-middle", "pods"));
  MustCreate("clusterroles", "", Labelled("secrets", "to-top", "secrets"));
  MustCreate("clusterroles", "", Labelled("other", "elsewhere", "nodes"));
  ASSERT_TRUE(SyncUntilIdle({c_.get()}));
  EXPECT_EQ(Resources("middle"), std::vector<std::string>{"pods"});
  EXPECT_EQ(Resources("top"), (std::vector<std::string>{"pods", "secrets"}));
  ASSERT_TRUE(rest().Delete(client::Path("clusterroles", "", "pods")).ok());
  ASSERT_TRUE(SyncUntilIdle({c_.get()}));
  EXPECT_TRUE(Resources("middle").empty());
  EXPECT_EQ(Resources("top"), std::vector<std::string>{"secrets"});
}

}  // namespace
}  // namespace etna::controllers
