#include "api/types/node.h"

#include <gtest/gtest.h>

namespace etna::api::types {
namespace {

TEST(NodeTest, ReadyTaintsAndAddresses) {
  Json j = Json::parse(R"({"spec": {"unschedulable": true, "taints": [{"key": "t1"}]},
      "status": {"conditions": [{"type": "MemoryPressure", "status": "True"},
                                {"type": "Ready", "status": "True"}],
                 "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
                 "allocatable": {"cpu": "4"}}})");
  Node node(j);
  EXPECT_EQ(node.ReadyStatus(), "True");
  EXPECT_TRUE(node.IsReady());
  EXPECT_TRUE(node.unschedulable());
  EXPECT_TRUE(node.HasTaint("t1"));
  EXPECT_FALSE(node.HasTaint("t2"));
  EXPECT_EQ(node.Address("InternalIP"), "10.0.0.1");
  EXPECT_EQ(node.Address("ExternalIP"), "");
  EXPECT_EQ(node.allocatable()["cpu"], "4");
  j["status"]["conditions"][1]["status"] = "Unknown";
  EXPECT_EQ(node.ReadyStatus(), "Unknown");
  EXPECT_FALSE(node.IsReady());
}

TEST(NodeTest, MissingFieldsReadAsNotReadyAndSchedulable) {
  Json j = Json::object();
  Node node(j);
  EXPECT_EQ(node.ReadyStatus(), "");
  EXPECT_FALSE(node.IsReady());
  EXPECT_FALSE(node.unschedulable());
  EXPECT_TRUE(node.taints().empty());
}

}  // namespace
}  // namespace etna::api::types
