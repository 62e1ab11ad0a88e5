// The seed's preemption rules over several cycles (decisions fed back into the snapshot as the
// cluster would carry them out): whole-gang eviction of fixed-size gangs, the per-job limit over a
// job's run, and one eviction budget for preempt and reclaim together.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "sched/builtins.h"
#include "sched/framework/conf.h"
#include "sched/testing/cluster_builder.h"
#include "sched/testing/queueing_kit.h"

namespace etna::sched {
namespace {

using testkit::ApplyDecision;
using testkit::ClusterBuilder;
using testkit::Evicted;
using testkit::NominationMap;
using Names = std::vector<std::string>;

constexpr char kGpu1[] = "cpu=1,memory=1Gi,nvidia.com/gpu=1";
constexpr char kGpu2[] = "cpu=1,memory=1Gi,nvidia.com/gpu=2";

Decision DefaultCycle(const Snapshot& s) {
  return testkit::ScheduleWith(s, std::string(DefaultSchedulerConfYaml()), BuiltinRegistry());
}

const Job& JobNamed(const Snapshot& s, std::string_view name) {
  for (const Job& j : s.jobs) {
    if (j.name == name) return j;
  }
  ADD_FAILURE() << "no job " << name;
  return s.jobs.front();
}

int RunningMembers(const Snapshot& s, std::string_view job) {
  int n = 0;
  for (TaskIdx ti : JobNamed(s, job).tasks) n += s.tasks[ti].status == TaskStatus::kRunning;
  return n;
}

void FinishJob(Snapshot& s, std::string_view job) {
  for (TaskIdx ti : JobNamed(s, job).tasks) {
    s.tasks[ti].status = TaskStatus::kSucceeded;
    s.tasks[ti].node = kNone;
    s.tasks[ti].devices.clear();
  }
  ++s.capacity_generation;
}

// The seed's queues at their volcano-queues.yaml sizes on 10 nodes × 8 GPUs. experiment-training
// is full (40 GPUs) of fixed-size gangs (minAvailable = replicas, as the seed's training job and
// Python client write them): four of priority 10 started at different times, six of priority 50.
// An urgent production job of 10 single-GPU workers (minAvailable 10) arrives; production is
// not reclaimable and its other jobs have the urgent job's priority, so only whole gangs of the
// other queues can make room (offline-batch's have priority 50). The victims are the three
// lowest-priority, longest-running experiment gangs, each evicted whole; they wait Pending and are
// whole again once the urgent job finishes.
TEST(PreemptionRulesTest, SeedUrgentJobEvictsWholeLowestPriorityLongestRunningGangs) {
  ClusterBuilder b;
  b.Now(1'000'000);
  for (int i = 0; i < 10; ++i)
    b.Node(fmt::format("n{}", i)).Resources("cpu=64,memory=512Gi").Gpus(8);
  b.Queue("production-training")
      .Weight(40)
      .Capability("nvidia.com/gpu=80")
      .Guarantee("nvidia.com/gpu=40")
      .Reclaimable(false);
  b.Queue("experiment-training")
      .Weight(30)
      .Capability("nvidia.com/gpu=40")
      .Guarantee("nvidia.com/gpu=20");
  b.Queue("offline-batch").Weight(20).Capability("nvidia.com/gpu=20").Guarantee("nvidia.com/gpu=0");
  b.Queue("dev-test").Weight(10).Capability("nvidia.com/gpu=8");
  // experiment: e0..e9, two per node on n0..n4, each 2 workers × 2 GPUs on one node.
  const std::map<int, TimeMs> low_start = {{1, 40'000}, {3, 10'000}, {6, 30'000}, {8, 20'000}};
  for (int g = 0; g < 10; ++g) {
    bool low = low_start.count(g) > 0;
    b.Job(fmt::format("e{}", g))
        .InQueue("experiment-training")
        .Priority(low ? 10 : 50)
        .Running("w", 2, kGpu2, fmt::format("n{}", g / 2), low ? low_start.at(g) : 5'000);
  }
  for (int p = 0; p < 3; ++p) {
    b.Job(fmt::format("prod{}", p))
        .InQueue("production-training")
        .Priority(100)
        .Running("w", 8, kGpu1, fmt::format("n{}", 5 + p), 1'000);
  }
  // offline-batch holds the last two nodes with Normal-priority gangs; dev-test (outside its
  // hours) is empty.
  b.Job("batch0").InQueue("offline-batch").Priority(50).Running("w", 8, kGpu1, "n8", 1'000);
  b.Job("batch1").InQueue("offline-batch").Priority(50).Running("w", 8, kGpu1, "n9", 1'000);
  b.Job("urgent")
      .InQueue("production-training")
      .Priority(100)
      .Phase(PodGroupPhase::kPending)
      .Tasks("w", 10, kGpu1);
  Snapshot s = b.Build();

  Decision d = DefaultCycle(s);
  EXPECT_EQ(Evicted(d), (Names{"e3-w-0", "e3-w-1", "e6-w-0", "e6-w-1", "e8-w-0", "e8-w-1"}))
      << "priority 10 first, longest-running first; e1 (started last) stays";
  for (const auto& e : d.evictions) {
    EXPECT_EQ(e.reason, "Reclaimed");
    EXPECT_NE(e.message.find("whole gang"), std::string::npos) << e.message;
  }
  EXPECT_EQ(NominationMap(d).size(), 10u);
  ApplyDecision(d, s);
  for (const char* victim : {"e3", "e6", "e8"}) {
    EXPECT_EQ(JobNamed(s, victim).phase, PodGroupPhase::kPending) << victim;
    EXPECT_EQ(RunningMembers(s, victim), 0) << victim << " is never left broken";
  }

  s.now_ms += 1'000;
  d = DefaultCycle(s);
  EXPECT_TRUE(d.evictions.empty());
  ApplyDecision(d, s);
  EXPECT_EQ(RunningMembers(s, "urgent"), 10);
  for (const char* victim : {"e3", "e6", "e8"}) EXPECT_EQ(RunningMembers(s, victim), 0) << victim;

  FinishJob(s, "urgent");
  for (int cycle = 0; cycle < 3; ++cycle) {
    s.now_ms += 1'000;
    d = DefaultCycle(s);
    EXPECT_TRUE(d.evictions.empty());
    ApplyDecision(d, s);
  }
  for (const char* victim : {"e3", "e6", "e8"}) {
    EXPECT_EQ(RunningMembers(s, victim), 2) << victim << " is whole again";
    EXPECT_EQ(JobNamed(s, victim).phase, PodGroupPhase::kRunning) << victim;
    EXPECT_TRUE(JobNamed(s, victim).evicted_in_run.IsZero()) << victim;
  }
  for (int g : {0, 1, 2, 4, 5, 7, 9}) EXPECT_EQ(RunningMembers(s, fmt::format("e{}", g)), 2);
}

// Among gangs of equal rank, the longest-running goes first, or with least-work-lost the one
// whose oldest member checkpoint is most recent (a gang resumes from what all members saved).
TEST(PreemptionRulesTest, WholeGangOrderLongestRunningOrLeastWorkLost) {
  for (const char* order : {"longest-running", "least-work-lost"}) {
    SCOPED_TRACE(order);
    ClusterBuilder b;
    b.Now(1'000'000);
    b.Node("n1").Resources("cpu=64,memory=512Gi").Gpus(4);
    b.Job("old").Priority(10).Running("w", 2, kGpu1, "n1", 100'000);  // nothing saved
    b.Job("saved")
        .Priority(10)
        .Running("w", 1, kGpu1, "n1", 200'000)
        .LastTaskCheckpoint(990'000)
        .Running("w", 1, kGpu1, "n1", 200'000)
        .LastTaskCheckpoint(980'000);
    b.Job("high").Priority(100).Tasks("w", 1, kGpu2);
    Decision d = testkit::Schedule(b.Build(), fmt::format(R"(
actions: "allocate, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: preemption
    arguments: {{preemption.maxClusterFraction: 1.0, preemption.victimOrder: {}}}
)",
                                                          order));
    EXPECT_EQ(Evicted(d), std::string(order) == "longest-running"
                              ? (Names{"old-w-0", "old-w-1"})
                              : (Names{"saved-w-0", "saved-w-1"}));
  }
}

std::string PreemptConf(std::string_view args,
                        std::string_view actions = "allocate, preempt, reclaim") {
  return fmt::format(R"(
actions: "{}"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: capacity
  - name: preemption
    arguments: {{{}}}
)",
                     actions, args);
}

// A job that lost half of itself in one cycle loses nothing more in the next ones, until it is
// whole again; then the count starts afresh.
TEST(PreemptionRulesTest, HalfOfAJobOverItsRunNotPerCycle) {
  ClusterBuilder b;
  b.Now(1'000'000);
  b.Node("n1").Resources("cpu=64,memory=512Gi").Gpus(4);
  b.Job("a").Priority(10).MinAvailable(1).Running("w", 4, kGpu1, "n1", 1'000);
  b.Job("high1").Priority(100).Tasks("w", 2, kGpu1);
  b.Job("high2").Priority(90).Tasks("w", 1, kGpu1);
  Snapshot s = b.Build();
  const std::string conf =
      PreemptConf("preemption.maxClusterFraction: 1.0, preemption.wholeGang: false");

  std::set<std::string> evicted;
  for (int cycle = 0; cycle < 4; ++cycle) {
    Decision d = testkit::Schedule(s, conf);
    for (const std::string& e : Evicted(d)) evicted.insert(e);
    ApplyDecision(d, s);
    s.now_ms += 1'000;
  }
  EXPECT_EQ(evicted, (std::set<std::string>{"a-w-0", "a-w-1"}))
      << "half of a in the first cycle, nothing later";
  EXPECT_EQ(JobNamed(s, "a").evicted_in_run.Get(kGpu), 2000);

  // high1 ends: a gets one member back but is not whole yet (high2 took the other GPU), so the
  // count stays; high2 ends: a is whole again and the count is cleared.
  FinishJob(s, "high1");
  for (int cycle = 0; cycle < 2; ++cycle) {
    Decision d = testkit::Schedule(s, conf);
    EXPECT_TRUE(d.evictions.empty());
    ApplyDecision(d, s);
    s.now_ms += 1'000;
  }
  EXPECT_EQ(RunningMembers(s, "a"), 3);
  EXPECT_EQ(JobNamed(s, "a").evicted_in_run.Get(kGpu), 2000);
  FinishJob(s, "high2");
  Decision d = testkit::Schedule(s, conf);
  ApplyDecision(d, s);
  EXPECT_EQ(RunningMembers(s, "a"), 4);
  EXPECT_TRUE(JobNamed(s, "a").evicted_in_run.IsZero());
}

// What a job lost in earlier cycles of its run counts against its limit (the converter fills
// evicted_in_run from the PodGroup's status).
TEST(PreemptionRulesTest, EarlierLossOfTheRunCountsAgainstTheJobLimit) {
  for (const char* lost : {"nvidia.com/gpu=0", "nvidia.com/gpu=2"}) {
    SCOPED_TRACE(lost);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=64,memory=512Gi").Gpus(4);
    b.Job("a").Priority(10).MinAvailable(1).EvictedInRun(lost).Running("w", 4, kGpu1, "n1");
    b.Job("high").Priority(100).Tasks("w", 1, kGpu1);
    Decision d = testkit::Schedule(
        b.Build(), PreemptConf("preemption.maxClusterFraction: 1.0, preemption.wholeGang: false"));
    EXPECT_EQ(Evicted(d).size(), std::string(lost) == "nvidia.com/gpu=0" ? 1u : 0u);
  }
}

// One cycle's preempt and reclaim share the 30% cluster budget: 10 GPUs allow 3; preempt takes
// 2 inside qa, so reclaim may not take 2 more from qc for qb.
TEST(PreemptionRulesTest, PreemptAndReclaimShareOneClusterBudget) {
  for (const char* actions : {"allocate, reclaim", "allocate, preempt, reclaim"}) {
    SCOPED_TRACE(actions);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=64,memory=512Gi").Gpus(10);
    b.Queue("qa").Guarantee("nvidia.com/gpu=4");
    b.Queue("qb").Guarantee("nvidia.com/gpu=4");
    b.Queue("qc").Guarantee("nvidia.com/gpu=2");
    b.Job("low").InQueue("qa").Priority(10).MinAvailable(1).Running("w", 4, kGpu1, "n1");
    b.Job("hog").InQueue("qc").Priority(10).MinAvailable(1).Running("w", 6, kGpu1, "n1");
    b.Job("high").InQueue("qa").Priority(100).Tasks("w", 2, kGpu1);
    b.Job("want").InQueue("qb").Priority(100).Tasks("w", 2, kGpu1);
    Decision d = testkit::Schedule(
        b.Build(),
        PreemptConf("preemption.maxJobFraction: 1.0, preemption.wholeGang: false", actions));
    Names evicted = Evicted(d);
    if (std::string(actions) == "allocate, reclaim") {
      EXPECT_EQ(evicted, (Names{"hog-w-0", "hog-w-1"})) << "reclaim alone may take 2";
    } else {
      EXPECT_EQ(evicted, (Names{"low-w-0", "low-w-1"})) << "2 + 2 > 3: reclaim gets nothing";
    }
  }
}

}  // namespace
}  // namespace etna::sched
