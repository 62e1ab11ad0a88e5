// Regression tests for failures reported against Volcano (github.com/volcano-sh/volcano/issues).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include "sched/testing/cluster_builder.h"
#include "sched/testing/queueing_kit.h"

namespace etna::sched {
namespace {

using testkit::ApplyDecision;
using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::FindJob;
using testkit::Schedule;
using testkit::ScheduleWith;

constexpr char kConf[] = R"(
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
)";

int Holding(const Snapshot& s, const std::string& job_name) {
  for (const Job& j : s.jobs) {
    if (j.name != job_name) continue;
    int n = 0;
    for (TaskIdx t : j.tasks) n += HoldsNode(s.tasks[t].status);
    return n;
  }
  return -1;
}

// #3373: two gangs that each need the whole cluster must not split it between them.
TEST(VolcanoIssuesTest, Volcano3373_TwoGangsDoNotDeadlock) {
  ClusterBuilder b;
  for (int i = 0; i < 100; ++i) b.Node(fmt::format("n{:03}", i)).Resources("cpu=1,memory=4Gi");
  b.Job("a").Phase(PodGroupPhase::kPending).MinAvailable(100).Tasks("w", 100, "cpu=1,memory=2Gi");
  b.Job("b").Phase(PodGroupPhase::kPending).MinAvailable(100).Tasks("w", 100, "cpu=1,memory=2Gi");
  Snapshot s = b.Build();
  for (int cycle = 0; cycle < 4; ++cycle) {
    SCOPED_TRACE(cycle);
    Decision d = Schedule(s, kConf);
    std::map<std::string, int> binds_per_job;
    for (const auto& bind : d.binds) ++binds_per_job[bind.pod_name.substr(0, 1)];
    for (const auto& [job, n] : binds_per_job) {
      EXPECT_EQ(n, 100) << "job " << job << " got a partial gang";
    }
    ApplyDecision(d, s);
    int a = Holding(s, "a"), bb = Holding(s, "b");
    EXPECT_TRUE((a == 100 && bb == 0) || (a == 0 && bb == 100)) << a << " / " << bb;
    const char* loser = a == 100 ? "b" : "a";
    const JobUpdate* u = FindJob(d, s, loser);
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->condition, "Unschedulable");
    s.now_ms += 10'000;
  }
}

// #5006: an admitted job that cannot be placed must give its queue's room back, so a smaller
// job of the same queue is admitted and placed.
TEST(VolcanoIssuesTest, Volcano5006_UnplaceableInqueueJobsReleaseQueueResources) {
  constexpr char kQuotaConf[] = R"(
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: test-quota
)";
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Node("n2").Resources("cpu=64").Gpus(8);
  b.Queue("team").Capability("nvidia.com/gpu=16");
  // No node has 16 GPUs.
  b.Job("huge")
      .InQueue("team")
      .Phase(PodGroupPhase::kInqueue)
      .MinResources("nvidia.com/gpu=16")
      .Tasks("w", 1, "nvidia.com/gpu=16");
  b.Job("small")
      .InQueue("team")
      .Phase(PodGroupPhase::kPending)
      .MinResources("nvidia.com/gpu=4")
      .Tasks("w", 4, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  const Registry& registry = testkit::QuotaRegistry();

  Decision d1 = ScheduleWith(s, kQuotaConf, registry);
  EXPECT_TRUE(d1.binds.empty());
  const JobUpdate* huge = FindJob(d1, s, "huge");
  ASSERT_NE(huge, nullptr);
  EXPECT_EQ(huge->phase, PodGroupPhase::kPending) << "gives its admission back";
  EXPECT_NE(huge->message.find("Insufficient nvidia.com/gpu"), std::string::npos) << huge->message;
  const JobUpdate* small = FindJob(d1, s, "small");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->reason, "NotEnqueued") << "the queue's room is still held by huge";

  ApplyDecision(d1, s);
  s.now_ms += 100;  // huge is in backoff and nothing changed: it waits
  Decision d2 = ScheduleWith(s, kQuotaConf, registry);
  auto binds = BindMap(d2);
  EXPECT_EQ(binds.size(), 4u);
  EXPECT_TRUE(binds.count("small-w-0"));
  EXPECT_EQ(FindJob(d2, s, "small")->phase, PodGroupPhase::kRunning);
  const JobUpdate* huge2 = FindJob(d2, s, "huge");
  EXPECT_TRUE(huge2 == nullptr || huge2->phase == PodGroupPhase::kPending);
}

}  // namespace
}  // namespace etna::sched
