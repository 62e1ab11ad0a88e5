// The actions' Placer and the simulators' IncrementalPlacer judge nodes through one NodeFilter:
// a predicate or a score registered once steers both.
#include "sched/placement/node_filter.h"

#include <gtest/gtest.h>

#include "sched/builtins.h"
#include "sched/framework/conf.h"
#include "sched/framework/incremental.h"
#include "sched/framework/registry.h"
#include "sched/placement/placer.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::ClusterBuilder;

// Test-only: rejects node "n1" and prefers node "n3".
class SteeringPlugin : public Plugin {
 public:
  std::string_view name() const override { return "steering"; }
  void OnSessionOpen(Session& s) override {
    s.AddPredicateFn([](const Task&, const Node& n) {
      return n.name == "n1" ? PredicateResult::Fail("node(s) were steered away")
                            : PredicateResult::Pass();
    });
    s.AddNodeOrderFn([](const Task&, const Node& n) { return n.name == "n3" ? 10.0 : 0.0; });
  }
};

const Registry& SteeringRegistry() {
  static const Registry* registry = [] {
    auto* r = new Registry();
    RegisterBuiltins(*r);
    r->AddPlugin("steering", [](PluginBuildContext&) -> Result<std::unique_ptr<Plugin>> {
      return std::unique_ptr<Plugin>(new SteeringPlugin());
    });
    return r;
  }();
  return *registry;
}

class NodeFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClusterBuilder b;
    for (const char* n : {"n1", "n2", "n3"}) b.Node(n).Resources("cpu=8,memory=32Gi").Gpus(2);
    b.Job("j").Tasks("w", 1, "cpu=1,nvidia.com/gpu=1");
    auto conf = ParseSchedulerConf(
        "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: steering\n", SteeringRegistry());
    ASSERT_TRUE(conf.ok()) << conf.status().ToString();
    conf_ = *conf;
    session_ = std::make_unique<Session>(b.Build(), conf_, SteeringRegistry());
    ASSERT_TRUE(session_->Open().ok());
  }
  NodeIdx NodeNamed(const std::string& name) const {
    for (const Node& n : session_->nodes()) {
      if (n.name == name) return session_->IndexOf(n);
    }
    return kNone;
  }
  SchedulerConf conf_;
  std::unique_ptr<Session> session_;
};

TEST_F(NodeFilterTest, FiltersByResourcesThenPredicatesWithTheReason) {
  NodeFilter filter(*session_);
  const Task& t = session_->task(0);
  FitErrors errors;
  EXPECT_FALSE(filter.FitsNow(t, NodeNamed("n1"), &errors));
  EXPECT_NE(errors.ToString().find("node(s) were steered away"), std::string::npos)
      << errors.ToString();
  EXPECT_TRUE(filter.FitsNow(t, NodeNamed("n2"), nullptr));
  EXPECT_DOUBLE_EQ(filter.Score(t, NodeNamed("n3")), 10.0);
  EXPECT_DOUBLE_EQ(filter.Score(t, NodeNamed("n2")), 0.0);
}

TEST_F(NodeFilterTest, PlacerAndIncrementalPlacerFollowTheSamePredicateAndScore) {
  Placer placer(*session_, PlacerOptions{.feasible_nodes = 0});
  Placer::Choice choice = placer.FindNode(0, /*allow_pipeline=*/false, nullptr);
  ASSERT_TRUE(choice);
  EXPECT_EQ(session_->node(choice.node).name, "n3");

  IncrementalPlacer incremental(*session_, {});
  NodeIdx placed = incremental.Place(0);
  ASSERT_NE(placed, kNone);
  EXPECT_EQ(session_->node(placed).name, "n3");
}

}  // namespace
}  // namespace etna::sched
