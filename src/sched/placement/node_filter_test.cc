// The actions' Placer and the simulators' IncrementalPlacer judge nodes through one NodeFilter:
// a predicate or a score registered once steers both.
#include "sched/placement/node_filter.h"

#include <gtest/gtest.h>

#include "sched/framework/incremental.h"
#include "sched/framework/registry.h"
#include "sched/placement/placer.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::ClusterBuilder;

class NodeFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClusterBuilder b;
    for (const char* n : {"n1", "n2", "n3"}) b.Node(n).Resources("cpu=8,memory=32Gi").Gpus(2);
    b.Job("j").Tasks("w", 1, "cpu=1,nvidia.com/gpu=1");
    b.Job("big").Tasks("w", 1, "cpu=16");
    conf_ = testkit::Conf("actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n");
    session_ = std::make_unique<Session>(b.Build(), conf_, BuiltinRegistry());
    ASSERT_TRUE(session_->Open().ok());
    // Registered once, on the session: n1 is rejected, n3 preferred.
    session_->AddPredicateFn([](const Task&, const Node& n) {
      return n.name == "n1" ? PredicateResult::Fail("node(s) were steered away")
                            : PredicateResult::Pass();
    });
    session_->AddNodeOrderFn(
        [](const Task&, const Node& n) { return n.name == "n3" ? 10.0 : 0.0; });
  }
  NodeIdx NodeNamed(const std::string& name) const {
    for (const Node& n : session_->nodes()) {
      if (n.name == name) return session_->IndexOf(n);
    }
    return kNone;
  }
  TaskIdx TaskNamed(const std::string& name) const {
    for (const Task& t : session_->tasks()) {
      if (t.name == name) return session_->IndexOf(t);
    }
    return kNone;
  }
  SchedulerConf conf_;
  std::unique_ptr<Session> session_;
};

TEST_F(NodeFilterTest, FiltersByResourcesThenPredicatesWithTheReason) {
  NodeFilter filter(*session_);
  const Task& t = session_->task(TaskNamed("j-w-0"));
  FitErrors errors;
  EXPECT_FALSE(filter.FitsNow(t, NodeNamed("n1"), &errors));
  EXPECT_NE(errors.ToString().find("node(s) were steered away"), std::string::npos)
      << errors.ToString();
  EXPECT_TRUE(filter.FitsNow(t, NodeNamed("n2"), nullptr));
  FitErrors big;
  EXPECT_FALSE(filter.FitsNow(session_->task(TaskNamed("big-w-0")), NodeNamed("n2"), &big));
  EXPECT_NE(big.ToString().find("Insufficient cpu"), std::string::npos) << big.ToString();
  EXPECT_DOUBLE_EQ(filter.Score(t, NodeNamed("n3")), 10.0);
  EXPECT_DOUBLE_EQ(filter.Score(t, NodeNamed("n2")), 0.0);
}

TEST_F(NodeFilterTest, PlacerAndIncrementalPlacerFollowTheSamePredicateAndScore) {
  Placer placer(*session_, PlacerOptions{.feasible_nodes = 0});
  Placer::Choice choice = placer.FindNode(TaskNamed("j-w-0"), /*allow_pipeline=*/false, nullptr);
  ASSERT_TRUE(choice);
  EXPECT_EQ(session_->node(choice.node).name, "n3");

  IncrementalPlacer incremental(*session_, {});
  NodeIdx placed = incremental.Place(TaskNamed("j-w-0"));
  ASSERT_NE(placed, kNone);
  EXPECT_EQ(session_->node(placed).name, "n3");
}

}  // namespace
}  // namespace etna::sched
