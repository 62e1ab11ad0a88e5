// Queue time windows in the core (framework/time_windows.h): a queue outside its windows starts
// no work; what runs keeps running unless the queue asks to be suspended.
#include "sched/framework/time_windows.h"

#include <gtest/gtest.h>

#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::Evicted;
using testkit::FindJob;
using testkit::Schedule;
using Names = std::vector<std::string>;

constexpr char kConf[] = R"(
actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: preemption
    arguments: {preemption.maxClusterFraction: 1.0, preemption.maxJobFraction: 1.0}
)";
constexpr TimeMs kMonday9 = 1'796'630'400'000;  // 2026-12-07T09:00:00+01:00
constexpr char kExpected[] = "queue dev is outside its time windows (next opens Mon 09:00)";

TEST(TimeWindowsTest, QueueOutsideItsWindowsAllocatesNothingOneInsideDoes) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=32").Gpus(8);
  b.Queue("dev").OutsideWindow(kMonday9, "Mon 09:00");
  b.Queue("prod");
  b.Job("late").InQueue("dev").Phase(PodGroupPhase::kPending).Tasks("w", 2, "nvidia.com/gpu=1");
  b.Job("admitted").InQueue("dev").Phase(PodGroupPhase::kInqueue).Tasks("w", 1, "nvidia.com/gpu=1");
  b.Job("ok").InQueue("prod").Phase(PodGroupPhase::kPending).Tasks("w", 2, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  auto binds = BindMap(d);
  EXPECT_EQ(binds.size(), 2u);
  EXPECT_TRUE(binds.count("ok-w-0") && binds.count("ok-w-1"));
  for (const char* job : {"late", "admitted"}) {
    const JobUpdate* u = FindJob(d, s, job);
    ASSERT_NE(u, nullptr) << job;
    EXPECT_EQ(u->reason, "OutsideTimeWindow") << job;
    EXPECT_EQ(u->message, kExpected) << job;
  }
  EXPECT_EQ(FindJob(d, s, "late")->phase, PodGroupPhase::kPending);
}

TEST(TimeWindowsTest, RunningJobsKeepRunningButGetNoMoreTasks) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=32").Gpus(16);
  b.Queue("dev").OutsideWindow(kMonday9, "Mon 09:00");
  // An elastic job: two tasks run, two more wait with room for them on the node.
  b.Job("elastic")
      .InQueue("dev")
      .Phase(PodGroupPhase::kRunning)
      .MinAvailable(1)
      .Running("w", 2, "nvidia.com/gpu=4", "n1")
      .Tasks("w", 2, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  EXPECT_TRUE(d.binds.empty());
  EXPECT_TRUE(d.evictions.empty());
  EXPECT_TRUE(d.nominations.empty());
  const JobUpdate* u = FindJob(d, s, "elastic");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason, "OutsideTimeWindow");
  EXPECT_EQ(u->message, kExpected);

  // Inside its windows the same queue places the waiting tasks: the test above is not vacuous.
  for (auto& q : s.queues) q.window = {};
  EXPECT_EQ(Schedule(s, kConf).binds.size(), 2u);
}

TEST(TimeWindowsTest, SuspendEvictsTheQueuesRunningJobsWhole) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=32").Gpus(8);
  b.Queue("dev").OutsideWindow(kMonday9, "Mon 09:00", /*suspend=*/true);
  b.Queue("prod");
  b.Job("train")
      .InQueue("dev")
      .Phase(PodGroupPhase::kRunning)
      .MinAvailable(2)
      .Running("w", 2, "nvidia.com/gpu=2", "n1");
  b.Job("serve")
      .InQueue("prod")
      .Phase(PodGroupPhase::kRunning)
      .Running("w", 1, "nvidia.com/gpu=2", "n1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  EXPECT_EQ(Evicted(d), (Names{"train-w-0", "train-w-1"}));
  for (const EvictDecision& e : d.evictions) {
    EXPECT_EQ(e.reason, "OutsideTimeWindow");
    EXPECT_EQ(e.message, kExpected);
  }
  EXPECT_TRUE(d.binds.empty());
  // Not preemption: the job's run-loss count (the per-job preemption limit) stays empty.
  for (const JobUpdate& u : d.jobs) {
    EXPECT_TRUE(u.evicted_in_run.IsZero()) << u.job_uid;
  }

  // KeepRunning (the default): nothing is evicted.
  for (auto& q : s.queues) q.window.suspend = false;
  EXPECT_TRUE(Schedule(s, kConf).evictions.empty());
}

}  // namespace
}  // namespace etna::sched
