#include "api/types/deployment.h"

#include <gtest/gtest.h>

namespace etna::api::types {
namespace {

TEST(DeploymentTest, ReplicasDefaultToOneAndCountsToZero) {
  Json empty = Json::object();
  Deployment d(empty);
  EXPECT_EQ(d.replicas(), 1);
  EXPECT_EQ(d.ready_replicas(), 0);
  EXPECT_EQ(d.updated_replicas(), 0);
  EXPECT_EQ(d.available_replicas(), 0);
  EXPECT_TRUE(d.containers().empty());
  EXPECT_EQ(d.selector(), nullptr);
}

TEST(DeploymentTest, ReadsSpecAndStatus) {
  Json j = {{"metadata", {{"name", "web"}}},
            {"spec",
             {{"replicas", 3},
              {"selector", {{"matchLabels", {{"app", "web"}}}}},
              {"template", {{"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}}}}},
            {"status", {{"readyReplicas", 2}, {"updatedReplicas", 3}, {"availableReplicas", 1}}}};
  Deployment d(j);
  EXPECT_EQ(d.name(), "web");
  EXPECT_EQ(d.replicas(), 3);
  EXPECT_EQ(d.ready_replicas(), 2);
  EXPECT_EQ(d.updated_replicas(), 3);
  EXPECT_EQ(d.available_replicas(), 1);
  ASSERT_EQ(d.containers().size(), 1u);
  EXPECT_EQ(d.containers()[0]["image"], "nginx");
  ASSERT_NE(d.selector(), nullptr);
  EXPECT_EQ((*d.selector())["matchLabels"]["app"], "web");
}

TEST(DeploymentTest, ZeroReplicasIsNotTheDefault) {
  Json scaled_down = {{"spec", {{"replicas", 0}}}};
  EXPECT_EQ(Deployment(scaled_down).replicas(), 0);
}

}  // namespace
}  // namespace etna::api::types
