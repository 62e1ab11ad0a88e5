#include "sched/framework/statement.h"

#include <gtest/gtest.h>

#include "sched/framework/registry.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::ClusterBuilder;
using testkit::Conf;

class StatementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=8,memory=32Gi").Gpus(4);
    b.Job("run").Running("w", 2, "cpu=2,nvidia.com/gpu=1", "n1");
    b.Job("new").Tasks("w", 2, "cpu=2,nvidia.com/gpu=2");
    conf_ = Conf("actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n");
    session_ = std::make_unique<Session>(b.Build(), conf_, BuiltinRegistry());
    ASSERT_TRUE(session_->Open().ok());
  }
  SchedulerConf conf_;
  std::unique_ptr<Session> session_;
};

TEST_F(StatementTest, DiscardRestoresEveryAccount) {
  Session& s = *session_;
  ResourceVector used_before = s.node(0).used;
  ResourceVector queue_before = s.queue(0).allocated;
  {
    Statement stmt(s);
    ASSERT_TRUE(stmt.Allocate(2, 0).ok());
    EXPECT_EQ(s.node(0).used.Get(kGpu), 4000);
    EXPECT_EQ(s.task(2).devices.size(), 2u);
    EXPECT_FALSE(stmt.Allocate(3, 0).ok()) << "no idle GPUs left";
    ASSERT_TRUE(stmt.Evict(0, "Preempted", "test", "uid-new").ok());
    EXPECT_EQ(s.node(0).releasing.Get(kGpu), 1000);
    EXPECT_FALSE(stmt.Pipeline(3, 0).ok()) << "only one GPU will be released, it needs two";
  }  // destroyed uncommitted: discarded
  EXPECT_EQ(s.node(0).used, used_before);
  EXPECT_TRUE(s.node(0).releasing.IsZero());
  EXPECT_TRUE(s.node(0).pipelined.IsZero());
  EXPECT_EQ(s.queue(0).allocated, queue_before);
  EXPECT_EQ(s.task(0).status, TaskStatus::kRunning);
  EXPECT_EQ(s.task(2).status, TaskStatus::kPending);
  EXPECT_TRUE(s.task(2).devices.empty());
  for (const auto& g : s.node(0).gpus) EXPECT_EQ(g.used_milli, g.index < 2 ? 1000 : 0);
  Decision d = s.Close();
  EXPECT_TRUE(d.binds.empty());
  EXPECT_TRUE(d.evictions.empty());
}

TEST_F(StatementTest, CommitProducesDecisions) {
  Session& s = *session_;
  Statement stmt(s);
  ASSERT_TRUE(stmt.Allocate(2, 0).ok());
  ASSERT_TRUE(stmt.Evict(0, "Preempted", "by new", "uid-new").ok());
  stmt.Commit();
  Decision d = s.Close();
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(d.binds[0].pod_name, "new-w-0");
  EXPECT_EQ(d.binds[0].gpu_indices, (std::vector<int32_t>{2, 3}));
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(d.evictions[0].pod_name, "run-w-0");
  EXPECT_EQ(d.evictions[0].reason, "Preempted");
}

TEST_F(StatementTest, RejectsInvalidTransitions) {
  Session& s = *session_;
  Statement stmt(s);
  EXPECT_FALSE(stmt.Allocate(0, 0).ok()) << "running task";
  EXPECT_FALSE(stmt.Evict(2, "Preempted", "", "").ok()) << "pending task";
  EXPECT_TRUE(stmt.empty());
}

}  // namespace
}  // namespace etna::sched
