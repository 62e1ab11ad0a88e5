#include <gtest/gtest.h>

#include "sched/testing/open_session.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::FindJob;
using testkit::OpenSession;
using testkit::Res;
using testkit::Schedule;

constexpr char kConf[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: proportion
)";

// Only this plugin votes on victims (gang in an earlier tier would decide otherwise).
constexpr char kAlone[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: proportion
)";

TEST(ProportionTest, CapabilityIsNeverExceeded) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("q1").Capability("nvidia.com/gpu=4");
  b.Job("elastic").InQueue("q1").MinAvailable(1).Tasks("w", 8, "nvidia.com/gpu=1");
  EXPECT_EQ(BindMap(Schedule(b.Build(), kConf)).size(), 4u) << "8 GPUs free, capability 4";
}

TEST(ProportionTest, AllocatableMessageNamesQueueResourceAndNumbers) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("q1").Capability("nvidia.com/gpu=4");
  b.Job("gang").InQueue("q1").Tasks("w", 8, "nvidia.com/gpu=1");  // minAvailable 8
  Snapshot snap = b.Build();
  Decision d = Schedule(snap, kConf);
  EXPECT_TRUE(d.binds.empty());
  const JobUpdate* u = FindJob(d, snap, "gang");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason, "QueueLimit");
  EXPECT_EQ(u->message,
            "queue q1: nvidia.com/gpu would exceed its deserved share (allocated 4, request 1, "
            "deserved 4)");
}

TEST(ProportionTest, OverusedQueueIsSkipped) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("q1");
  b.Queue("q2");
  // Requests 8 and 4 of 8 GPUs, equal weights: deserved 4 and 4. q1 holds its 4 already.
  b.Job("hog")
      .InQueue("q1")
      .CreatedAt(1)
      .MinAvailable(1)
      .Running("w", 4, "nvidia.com/gpu=1", "n1")
      .Tasks("w", 4, "nvidia.com/gpu=1");
  b.Job("fair").InQueue("q2").CreatedAt(2).MinAvailable(1).Tasks("w", 4, "nvidia.com/gpu=1");
  Snapshot snap = b.Build();
  Decision d = Schedule(snap, kConf);
  auto binds = BindMap(d);
  EXPECT_EQ(binds.size(), 4u);
  for (const auto& [pod, node] : binds) EXPECT_EQ(pod.rfind("fair-", 0), 0u) << pod;
  const JobUpdate* u = FindJob(d, snap, "hog");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason, "QueueOverused");
}

TEST(ProportionTest, ReclaimOnlyFromQueuesAboveDeserved) {
  struct Case {
    const char* name;
    bool over_reclaimable;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      // deserved 4/4/4: "over" holds 8 so may give up 4; "at" holds exactly 4.
      {"reclaimable", true, {"over-w-0", "over-w-1", "over-w-2", "over-w-3"}},
      {"not reclaimable", false, {}},
  };
  for (const auto& c : cases) {
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=64").Gpus(12);
    b.Queue("over").Reclaimable(c.over_reclaimable);
    b.Queue("at");
    b.Queue("starved");
    b.Job("over").InQueue("over").MinAvailable(1).Running("w", 8, "nvidia.com/gpu=1", "n1");
    b.Job("at").InQueue("at").MinAvailable(1).Running("w", 4, "nvidia.com/gpu=1", "n1");
    b.Job("s").InQueue("starved").MinAvailable(1).Tasks("w", 4, "nvidia.com/gpu=1");
    OpenSession s(b.Build(), kAlone);
    const Task& reclaimer = s->task(s.Task("s-w-0"));
    EXPECT_EQ(s.Names(s->Reclaimable(reclaimer, s.Running())), c.want) << c.name;
    EXPECT_TRUE(s->Preemptive(s.Queue("starved"), reclaimer)) << c.name;
    EXPECT_FALSE(s->Preemptive(s.Queue("at"), reclaimer)) << c.name;
    EXPECT_TRUE(s->Overused(s.Queue("over"))) << c.name;
    EXPECT_FALSE(s->Overused(s.Queue("starved"))) << c.name;
  }
}

TEST(ProportionTest, EnqueueAgainstRealCapabilityCountsInqueueJobs) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("q1").Capability("nvidia.com/gpu=4");
  b.Job("too-big")
      .InQueue("q1")
      .Phase(PodGroupPhase::kPending)
      .MinResources("nvidia.com/gpu=5")
      .Tasks("w", 5, "nvidia.com/gpu=1");
  b.Job("a")
      .InQueue("q1")
      .Phase(PodGroupPhase::kPending)
      .MinResources("nvidia.com/gpu=3")
      .Tasks("w", 3, "nvidia.com/gpu=1");
  b.Job("b")
      .InQueue("q1")
      .Phase(PodGroupPhase::kPending)
      .MinResources("nvidia.com/gpu=2")
      .Tasks("w", 2, "nvidia.com/gpu=1");
  OpenSession s(b.Build(), kConf);
  EXPECT_FALSE(s->JobEnqueueable(s.Job("too-big")));
  EXPECT_TRUE(s->JobEnqueueable(s.Job("b")));
  s->JobEnqueued(s.Job("a"));  // 3 of 4 now spoken for
  EXPECT_FALSE(s->JobEnqueueable(s.Job("b")));
}

TEST(ProportionTest, RejectsUnknownArguments) {
  Result<SchedulerConf> conf = ParseSchedulerConf(R"(
actions: "allocate"
tiers:
- plugins:
  - name: proportion
    arguments:
      proportion.weight: 2
)",
                                                  BuiltinRegistry());
  ASSERT_FALSE(conf.ok());
  EXPECT_NE(conf.status().message().find("proportion.weight"), std::string::npos);
}

}  // namespace
}  // namespace etna::sched
