#include <gtest/gtest.h>

#include "sched/testing/cluster_builder.h"
#include "sched/testing/open_session.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::FindJob;
using testkit::NominationMap;
using testkit::Schedule;

constexpr const char* kConf = testkit::kAllocatePriorityGangConf;

TEST(GangTest, JobWithFewerTasksThanMinAvailableIsInvalid) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=8").Gpus(8);
  b.Job("j").MinAvailable(4).Tasks("w", 3, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  EXPECT_TRUE(d.binds.empty());
  const JobUpdate* u = FindJob(d, s, "j");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason, "NotEnoughTasks");
  EXPECT_NE(u->message.find("fewer than minAvailable 4"), std::string::npos) << u->message;
}

TEST(GangTest, ElasticTasksBeyondMinAvailableAreBestEffort) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=8").Gpus(3);
  b.Job("j").MinAvailable(2).Tasks("w", 5, "nvidia.com/gpu=1");
  Decision d = Schedule(b.Build(), kConf);
  EXPECT_EQ(d.binds.size(), 3u) << "the gang of 2 plus one elastic task";
}

TEST(GangTest, MinTaskMemberPerRoleMustBeMet) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=8").Gpus(3);
  b.Job("j")
      .MinAvailable(3)
      .MinTaskMember("ps", 2)
      .Tasks("worker", 2, "nvidia.com/gpu=1")
      .Tasks("ps", 2, "nvidia.com/gpu=1");
  Decision d = Schedule(b.Build(), kConf);
  auto binds = BindMap(d);
  EXPECT_EQ(binds.size(), 3u);
  EXPECT_TRUE(binds.count("j-ps-0") && binds.count("j-ps-1")) << "roles with a minimum go first";
}

TEST(GangTest, PartialGangAlreadyRunningCompletesWhenRoomAppears) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=8").Gpus(4);
  b.Job("j")
      .MinAvailable(4)
      .Running("w", 2, "nvidia.com/gpu=1", "n1")
      .Tasks("w", 2, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  EXPECT_EQ(d.binds.size(), 2u);
  EXPECT_EQ(FindJob(d, s, "j")->phase, PodGroupPhase::kRunning);
}

TEST(GangTest, PipelinedGangBindsNobodyUntilAllCan) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=8").Gpus(4);
  b.Job("old").Running("w", 2, "nvidia.com/gpu=1", "n1");
  b.Job("new").Tasks("w", 4, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  s.tasks[0].status = TaskStatus::kReleasing;  // being evicted
  s.tasks[1].status = TaskStatus::kReleasing;
  Decision d = Schedule(s, kConf);
  EXPECT_TRUE(d.binds.empty()) << "two members could bind now, but the gang needs four";
  EXPECT_EQ(NominationMap(d).size(), 4u);
}

TEST(GangTest, WholeGangEvictionScopeAllowsEveryMemberWithoutTouchingMinAvailable) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=8").Gpus(4);
  b.Job("gang").Priority(10).MinAvailable(4).MinTaskMember("w", 4).Running(
      "w", 4, "nvidia.com/gpu=1", "n1");
  b.Job("high").Priority(100).Tasks("w", 1, "nvidia.com/gpu=2");
  testkit::OpenSession s(b.Build(), kConf);
  const Task& preemptor = s->task(s.Task("high-w-0"));
  std::vector<TaskIdx> members = s.Running();
  ASSERT_EQ(members.size(), 4u);

  EXPECT_EQ(s.Names(s->Preemptable(preemptor, members, EvictionScope::kSpareMembers)),
            std::vector<std::string>{})
      << "one by one, a gang at its minimum spares nobody";
  EXPECT_EQ(s.Names(s->Preemptable(preemptor, members, EvictionScope::kWholeGang)),
            (std::vector<std::string>{"gang-w-0", "gang-w-1", "gang-w-2", "gang-w-3"}));
  EXPECT_EQ(s.Names(s->Reclaimable(preemptor, members, EvictionScope::kWholeGang)).size(), 4u);
  EXPECT_EQ(s.Job("gang").min_available, 4);
  EXPECT_EQ(s.Job("gang").min_task_member.at("w"), 4);
}

}  // namespace
}  // namespace etna::sched
