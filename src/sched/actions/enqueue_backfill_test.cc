#include <gtest/gtest.h>

#include "sched/framework/cycle.h"
#include "sched/framework/session.h"
#include "sched/testing/cluster_builder.h"
#include "sched/testing/queueing_kit.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::FindJob;
using testkit::Schedule;

constexpr char kConf[] = R"(
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
)";

constexpr char kQuotaConf[] = R"(
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: test-quota
)";

TEST(EnqueueTest, AdmitsPendingJobsAndAllocatePlacesThem) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=16").Gpus(8);
  b.Job("j").Phase(PodGroupPhase::kPending).Tasks("w", 2, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  EXPECT_EQ(BindMap(d).size(), 2u);
  const JobUpdate* u = FindJob(d, s, "j");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->phase, PodGroupPhase::kRunning);
}

TEST(EnqueueTest, WithoutEnqueueActionAllocateLeavesPendingJobsAlone) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=16").Gpus(8);
  b.Job("j").Phase(PodGroupPhase::kPending).Tasks("w", 2, "nvidia.com/gpu=1");
  constexpr char kNoEnqueue[] = R"(
actions: "allocate, backfill"
tiers:
- plugins:
  - name: gang
)";
  // allocate admits on its own when enqueue is absent.
  EXPECT_EQ(BindMap(Schedule(b.Build(), kNoEnqueue)).size(), 2u);
}

TEST(EnqueueTest, ClosedQueueDoesNotAdmit) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=16").Gpus(8);
  b.Queue("closed").State(QueueState::kClosed);
  b.Job("j").InQueue("closed").Phase(PodGroupPhase::kPending).Tasks("w", 1, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  EXPECT_TRUE(d.binds.empty());
  const JobUpdate* u = FindJob(d, s, "j");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason, "QueueNotOpen");
  EXPECT_NE(u->message.find("closed"), std::string::npos) << u->message;
}

TEST(EnqueueTest, ClosingQueueAdmitsNothingNewButRunsWhatItAdmitted) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=16").Gpus(8);
  b.Queue("closing").State(QueueState::kClosing);
  b.Job("new").InQueue("closing").Phase(PodGroupPhase::kPending).Tasks("w", 1, "nvidia.com/gpu=1");
  b.Job("admitted")
      .InQueue("closing")
      .Phase(PodGroupPhase::kInqueue)
      .Tasks("w", 1, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  auto binds = BindMap(d);
  EXPECT_EQ(binds.count("admitted-w-0"), 1u);
  EXPECT_EQ(binds.count("new-w-0"), 0u);
  const JobUpdate* u = FindJob(d, s, "new");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason, "QueueNotOpen");
  EXPECT_NE(u->message.find("Closing"), std::string::npos) << u->message;
}

TEST(EnqueueTest, InvalidJobIsNotAdmitted) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=16").Gpus(8);
  b.Job("j").Phase(PodGroupPhase::kPending).MinAvailable(3).Tasks("w", 2, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  EXPECT_TRUE(d.binds.empty());
  const JobUpdate* u = FindJob(d, s, "j");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->phase, PodGroupPhase::kPending);
  EXPECT_EQ(u->reason, "NotEnoughTasks");
}

TEST(EnqueueTest, JobInBackoffIsNotAdmitted) {
  ClusterBuilder b;
  b.Generation(3);
  b.Node("n1").Resources("cpu=16").Gpus(8);
  Backoff backoff{/*not_before_ms=*/1'700'000'005'000, /*delay_ms=*/5000, /*failures=*/3,
                  /*capacity_generation=*/3};
  b.Job("j").Phase(PodGroupPhase::kPending).WithBackoff(backoff).Tasks("w", 1, "nvidia.com/gpu=1");
  EXPECT_TRUE(Schedule(b.Build(), kConf).binds.empty());
  b.Generation(4);
  EXPECT_EQ(Schedule(b.Build(), kConf).binds.size(), 1u) << "capacity grew: admitted again";
}

TEST(EnqueueTest, QuotaRejectionNamesMinResourcesAndQueue) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=16").Gpus(8);
  b.Queue("team").Capability("nvidia.com/gpu=4");
  b.Job("big")
      .InQueue("team")
      .Phase(PodGroupPhase::kPending)
      .MinResources("nvidia.com/gpu=8")
      .Tasks("w", 8, "nvidia.com/gpu=1");
  b.Job("small")
      .InQueue("team")
      .Phase(PodGroupPhase::kPending)
      .MinResources("nvidia.com/gpu=2")
      .Tasks("w", 2, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = testkit::ScheduleWith(s, kQuotaConf, testkit::QuotaRegistry());
  auto binds = BindMap(d);
  EXPECT_EQ(binds.size(), 2u);
  EXPECT_TRUE(binds.count("small-w-0"));
  const JobUpdate* u = FindJob(d, s, "big");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->phase, PodGroupPhase::kPending);
  EXPECT_EQ(u->reason, "NotEnqueued");
  EXPECT_NE(u->message.find("nvidia.com/gpu=8"), std::string::npos) << u->message;
  EXPECT_NE(u->message.find("team"), std::string::npos) << u->message;
}

TEST(EnqueueTest, EachQueueAdmitsWithinItsOwnQuota) {
  // Each queue may admit one 4-GPU job; with round-robin both queues get one, in job order.
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=16").Gpus(8);
  b.Queue("a").Capability("nvidia.com/gpu=4");
  b.Queue("b").Capability("nvidia.com/gpu=4");
  for (const char* q : {"a", "b"}) {
    for (int i = 0; i < 2; ++i) {
      b.Job(std::string(q) + std::to_string(i))
          .InQueue(q)
          .Phase(PodGroupPhase::kPending)
          .MinResources("nvidia.com/gpu=4")
          .Tasks("w", 4, "nvidia.com/gpu=1");
    }
  }
  Snapshot s = b.Build();
  Decision d = testkit::ScheduleWith(s, kQuotaConf, testkit::QuotaRegistry());
  auto binds = BindMap(d);
  EXPECT_EQ(binds.size(), 8u);
  EXPECT_TRUE(binds.count("a0-w-0"));
  EXPECT_TRUE(binds.count("b0-w-0"));
  EXPECT_EQ(FindJob(d, s, "a1")->reason, "NotEnqueued");
  EXPECT_EQ(FindJob(d, s, "b1")->reason, "NotEnqueued");
}

TEST(BackfillTest, PlacesBestEffortTasksWithoutGangCheck) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=1").Gpus(1);
  b.Job("full").Running("w", 1, "cpu=1,nvidia.com/gpu=1", "n1");
  b.Job("be").MinAvailable(1).Tasks("w", 2, "");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  auto binds = BindMap(d);
  EXPECT_EQ(binds.size(), 2u);
  EXPECT_EQ(binds["be-w-0"], "n1") << "a full node still takes zero-request tasks";
  EXPECT_EQ(FindJob(d, s, "be")->condition, "Scheduled");
}

TEST(BackfillTest, SkipsUnschedulableNodesAndPendingJobs) {
  ClusterBuilder b;
  b.Node("cordoned").Resources("cpu=1").Cordoned();
  b.Job("be").Tasks("w", 1, "");
  Snapshot s = b.Build();
  Decision d = Schedule(s, "actions: \"backfill\"\ntiers:\n- plugins:\n  - name: gang\n");
  EXPECT_TRUE(d.binds.empty());
  EXPECT_EQ(FindJob(d, s, "be")->reason, "NotEnoughResources");

  ClusterBuilder b2;
  b2.Node("n1").Resources("cpu=1");
  b2.Job("be").Phase(PodGroupPhase::kPending).Tasks("w", 1, "");
  Decision d2 = Schedule(b2.Build(), "actions: \"backfill\"\ntiers:\n- plugins:\n  - name: gang\n");
  EXPECT_TRUE(d2.binds.empty()) << "a Pending (not admitted) job is enqueue's work first";
}

}  // namespace
}  // namespace etna::sched
