#include "api/types/queue.h"

#include <gtest/gtest.h>

namespace etna::api::types {
namespace {

TEST(QueueTest, DefaultsOfAnEmptySpec) {
  Json empty = Json::object();
  Queue q(empty);
  EXPECT_EQ(q.weight(), 1);
  EXPECT_EQ(q.priority(), 0);
  EXPECT_TRUE(q.reclaimable());
  EXPECT_TRUE(q.capability().empty());
  EXPECT_TRUE(q.deserved().empty());
  EXPECT_EQ(q.Guarantee(), Json::object());
  EXPECT_EQ(q.State(), "Open");
  EXPECT_EQ(q.parent(), "");
}

TEST(QueueTest, ReadsTheSpec) {
  Json j = {{"metadata", {{"name", "research"}}},
            {"spec",
             {{"weight", 4},
              {"priority", 7},
              {"reclaimable", false},
              {"capability", {{"nvidia.com/gpu", "8"}}},
              {"deserved", {{"nvidia.com/gpu", "4"}}},
              {"parent", "org"}}}};
  Queue q(j);
  EXPECT_EQ(q.name(), "research");
  EXPECT_EQ(q.weight(), 4);
  EXPECT_EQ(q.priority(), 7);
  EXPECT_FALSE(q.reclaimable());
  EXPECT_EQ(q.capability(), Json({{"nvidia.com/gpu", "8"}}));
  EXPECT_EQ(q.deserved(), Json({{"nvidia.com/gpu", "4"}}));
  EXPECT_EQ(q.parent(), "org");
}

TEST(QueueTest, GuaranteeFoldsEveryForm) {
  Json volcano = {{"spec", {{"guarantee", {{"resource", {{"cpu", "2"}}}}}}}};
  Json flat = {{"spec", {{"guarantee", {{"cpu", "2"}}}}}};
  Json dotted = {{"spec", {{"guarantee", {{"resource.cpu", "2"}}}}}};
  Json mixed = {
      {"spec", {{"guarantee", {{"resource", {{"cpu", "2"}}}, {"resource.memory", "1Gi"}}}}}};
  EXPECT_EQ(Queue(volcano).Guarantee(), Json({{"cpu", "2"}}));
  EXPECT_EQ(Queue(flat).Guarantee(), Json({{"cpu", "2"}}));
  EXPECT_EQ(Queue(dotted).Guarantee(), Json({{"cpu", "2"}}));
  EXPECT_EQ(Queue(mixed).Guarantee(), Json({{"cpu", "2"}, {"memory", "1Gi"}}));
}

TEST(QueueTest, StatusStateWinsOverSpecState) {
  Json spec_only = {{"spec", {{"state", "Closed"}}}};
  Json both = {{"spec", {{"state", "Open"}}}, {"status", {{"state", "Closing"}}}};
  EXPECT_EQ(Queue(spec_only).State(), "Closed");
  EXPECT_EQ(Queue(both).State(), "Closing");
}

TEST(QueueTest, SpecClosingOrClosedWinsOverAnOpenStatus) {
  auto queue = [](const char* spec, const char* status) {
    return Json{{"spec", {{"state", spec}}}, {"status", {{"state", status}}}};
  };
  EXPECT_EQ(Queue(queue("Closing", "Open")).State(), "Closing");
  EXPECT_EQ(Queue(queue("Closed", "Open")).State(), "Closed");
  EXPECT_EQ(Queue(queue("Closing", "Closed")).State(), "Closed") << "the controller finished";
  EXPECT_EQ(Queue(Json{{"spec", {{"state", "Closing"}}}}).State(), "Closing");
}

}  // namespace
}  // namespace etna::api::types
