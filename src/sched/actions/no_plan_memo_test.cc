// Tests of NoPlanMemo: what it remembers, and what makes it forget.
#include "sched/actions/no_plan_memo.h"

#include <gtest/gtest.h>

#include "sched/framework/statement.h"
#include "sched/testing/open_session.h"

namespace etna::sched {
namespace {

using testkit::ClusterBuilder;
using testkit::OpenSession;

constexpr const char* kConf = testkit::kAllocatePriorityGangConf;

Snapshot TwoNodes() {
  ClusterBuilder b;
  b.Node("n0").Resources("cpu=8").Gpus(2);
  b.Node("n1").Resources("cpu=8").Gpus(2);
  b.Job("low").Priority(1).Running("w", 2, "nvidia.com/gpu=1", "n0");
  b.Job("high").Priority(100).Tasks("w", 2, "nvidia.com/gpu=1");
  auto nowhere = std::make_shared<PodSpec>();
  nowhere->node_selector.emplace("pool", "b");
  b.Job("picky").Priority(100).Tasks("w", 1, "nvidia.com/gpu=1", nowhere);
  return b.Build();
}

using Scope = NoPlanMemo::Scope;

// Records node `n` as holding no plan for `cls`.
void Fail(NoPlanMemo& memo, const NoPlanMemo::Class& cls, NodeIdx n, Scope scope) {
  NoPlanMemo::Pass pass = memo.Begin(cls, true, scope);
  pass.Failed(n);
  pass.Finish();
}

bool Known(NoPlanMemo& memo, const NoPlanMemo::Class& cls, NodeIdx n, bool use_global = true) {
  return memo.Begin(cls, use_global, std::nullopt).Known(n);
}

// A memo over TwoNodes() and the class of high-w-0.
class TwoNodesMemo : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cls); }
  OpenSession s{TwoNodes(), kConf};
  NoPlanMemo memo{*s};
  std::optional<NoPlanMemo::Class> cls = NoPlanMemo::ClassOf(*s, s->task(s.Task("high-w-0")));
};

TEST_F(TwoNodesMemo, RemembersPerClassUntilTheNodeChanges) {
  EXPECT_FALSE(Known(memo, *cls, 0));
  Fail(memo, *cls, 0, Scope::kGlobal);
  EXPECT_TRUE(Known(memo, *cls, 0));
  EXPECT_FALSE(Known(memo, *cls, 0, /*use_global=*/false)) << "global entries only when asked";
  EXPECT_FALSE(Known(memo, *cls, 1)) << "another node";
  NoPlanMemo::Class bigger = *cls;
  bigger.request = bigger.request + bigger.request;
  EXPECT_FALSE(Known(memo, bigger, 0)) << "another class";

  Statement st(*s);
  ASSERT_TRUE(st.Evict(s.Task("low-w-0"), "Preempted", "", "").ok());
  EXPECT_FALSE(Known(memo, *cls, 0)) << "the node changed";
  Fail(memo, *cls, 0, Scope::kGlobal);
  EXPECT_TRUE(Known(memo, *cls, 0));
  st.Discard();  // the undo is a change too
  EXPECT_FALSE(Known(memo, *cls, 0));
}

TEST_F(TwoNodesMemo, FailuresAreStampedAfterTheTrialEvictionsOfTheirPass) {
  NoPlanMemo::Pass pass = memo.Begin(*cls, true, Scope::kGlobal);
  {
    Statement trial(*s);  // planning node 0 tries an eviction and undoes it
    ASSERT_TRUE(trial.Evict(s.Task("low-w-0"), "", "", "").ok());
  }
  pass.Failed(0);
  pass.Finish();
  EXPECT_TRUE(Known(memo, *cls, 0));
}

TEST_F(TwoNodesMemo, TouchForgetOtherQueuesAndJobScope) {
  Fail(memo, *cls, 0, Scope::kGlobal);
  Fail(memo, *cls, 1, Scope::kGlobal);
  memo.Touch(1);
  EXPECT_TRUE(Known(memo, *cls, 0));
  EXPECT_FALSE(Known(memo, *cls, 1)) << "touched";
  memo.ForgetOtherQueues(cls->queue);
  EXPECT_TRUE(Known(memo, *cls, 0)) << "the class's own queue";
  memo.ForgetOtherQueues(cls->queue + 1);
  EXPECT_FALSE(Known(memo, *cls, 0)) << "forgotten with the other queues";

  Fail(memo, *cls, 0, Scope::kJob);
  EXPECT_TRUE(Known(memo, *cls, 0, /*use_global=*/false)) << "job entries always count";
  memo.ForgetOtherQueues(cls->queue + 1);
  EXPECT_TRUE(Known(memo, *cls, 0, false)) << "forgetting global entries keeps the job's";
  memo.ClearJob();
  EXPECT_FALSE(Known(memo, *cls, 0, false));
}

TEST_F(TwoNodesMemo, AfterAPassFindsNothingTheNextVisitsOnlyChangedNodes) {
  {
    NoPlanMemo::Pass pass = memo.Begin(*cls, true, Scope::kGlobal);
    EXPECT_EQ(pass.Nodes(), nullptr) << "nothing known yet: every node";
    pass.Failed(0);
    pass.Failed(1);
    pass.Finish();
  }
  EXPECT_EQ(*memo.Begin(*cls, true, std::nullopt).Nodes(), std::vector<NodeIdx>{});
  Statement st(*s);
  ASSERT_TRUE(st.Evict(s.Task("low-w-0"), "Preempted", "", "").ok());
  EXPECT_EQ(*memo.Begin(*cls, true, std::nullopt).Nodes(), std::vector<NodeIdx>{0});
  EXPECT_EQ(memo.Begin(*cls, false, std::nullopt).Nodes(), nullptr)
      << "without the global entries nothing is known";
  {
    NoPlanMemo::Pass pass = memo.Begin(*cls, true, Scope::kGlobal);
    pass.Found(0);  // node 0 now holds a plan
    pass.Finish();
  }
  EXPECT_EQ(*memo.Begin(*cls, true, std::nullopt).Nodes(), std::vector<NodeIdx>{0})
      << "a pass that found a plan leaves the last complete one standing";
}

TEST(NoPlanMemoTest, ReservedNodesAreNeverRemembered) {
  ClusterBuilder b;
  b.Node("n0").Resources("cpu=8").Gpus(2);
  b.Node("n1").Resources("cpu=8").Gpus(2);
  b.Job("high").Priority(100).Tasks("w", 1, "nvidia.com/gpu=1");
  Snapshot snap = b.Build();
  snap.reservations.push_back({snap.jobs[0].uid, {{1, snap.nodes[1].allocatable}}, 0});
  OpenSession s(snap, kConf);
  NoPlanMemo memo(*s);
  auto cls = NoPlanMemo::ClassOf(*s, s->task(s.Task("high-w-0")));
  ASSERT_TRUE(cls);
  Fail(memo, *cls, 0, Scope::kGlobal);
  Fail(memo, *cls, 1, Scope::kGlobal);
  EXPECT_TRUE(Known(memo, *cls, 0));
  EXPECT_FALSE(Known(memo, *cls, 1));
  EXPECT_EQ(*memo.Begin(*cls, true, std::nullopt).Nodes(), std::vector<NodeIdx>{1});
}

TEST(NoPlanMemoTest, ConstrainedTasksHaveNoClass) {
  OpenSession s(TwoNodes(), kConf);
  EXPECT_FALSE(NoPlanMemo::ClassOf(*s, s->task(s.Task("picky-w-0"))));
  auto a = NoPlanMemo::ClassOf(*s, s->task(s.Task("high-w-0")));
  auto b = NoPlanMemo::ClassOf(*s, s->task(s.Task("high-w-1")));
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(*a == *b) << "identical tasks share a class";
}

}  // namespace
}  // namespace etna::sched
