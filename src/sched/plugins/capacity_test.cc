#include <gtest/gtest.h>

#include "sched/testing/open_session.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::FindJob;
using testkit::OpenSession;
using testkit::Schedule;

constexpr char kFlat[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: capacity
)";

constexpr char kTree[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: capacity
    enableHierarchy: true
)";

// Only this plugin votes on victims (gang in an earlier tier would decide otherwise).
constexpr char kAlone[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: capacity
)";

int CountPrefix(const std::map<std::string, std::string>& binds, const std::string& prefix) {
  int n = 0;
  for (const auto& [pod, node] : binds) n += pod.rfind(prefix, 0) == 0;
  return n;
}

Snapshot Elastic(int min_available) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("q1").Deserved("nvidia.com/gpu=2").Capability("nvidia.com/gpu=6");
  b.Job("j").InQueue("q1").MinAvailable(min_available).Tasks("w", 7, "nvidia.com/gpu=1");
  return b.Build();
}

TEST(CapacityTest, ElasticUpToCapabilityPastDeserved) {
  Snapshot snap = Elastic(7);
  Decision d = Schedule(snap, kFlat);
  EXPECT_TRUE(d.binds.empty());
  const JobUpdate* u = FindJob(d, snap, "j");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason, "QueueLimit");
  EXPECT_EQ(u->message,
            "queue q1: nvidia.com/gpu would exceed its capability (allocated 6, request 1, "
            "capability 6)");
  EXPECT_EQ(BindMap(Schedule(Elastic(1), kFlat)).size(), 6u) << "past deserved 2, up to 6";
}

TEST(CapacityTest, ChildCannotExceedParentCapability) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("p").Capability("nvidia.com/gpu=4");
  b.Queue("c1").Parent("p").Capability("nvidia.com/gpu=8");
  b.Queue("c2").Parent("p");
  b.Job("run").InQueue("c2").MinAvailable(1).Running("w", 1, "nvidia.com/gpu=1", "n1");
  b.Job("more").InQueue("c2").MinAvailable(1).Tasks("w", 6, "nvidia.com/gpu=1");
  b.Job("gang").InQueue("c1").Tasks("w", 4, "nvidia.com/gpu=1");
  Snapshot snap = b.Build();
  Decision d = Schedule(snap, kTree);
  auto binds = BindMap(d);
  EXPECT_EQ(CountPrefix(binds, "more-") + CountPrefix(binds, "gang-"), 3)
      << "c2 holds 1 of the parent's 4; 7 GPUs are free";
  const JobUpdate* u = FindJob(d, snap, "gang");
  ASSERT_NE(u, nullptr);
  EXPECT_NE(u->message.find("the capability of its parent queue p"), std::string::npos)
      << u->message;
  // Without the hierarchy the parent's limit does not apply.
  EXPECT_EQ(BindMap(Schedule(snap, kFlat)).size(), 7u);
}

TEST(CapacityTest, ReclaimDownToDeservedOnly) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(12);
  b.Queue("over").Deserved("nvidia.com/gpu=4");
  b.Queue("at").Deserved("nvidia.com/gpu=4");
  b.Queue("guaranteed").Guarantee("nvidia.com/gpu=2");  // no deserved: guarantee stands in
  b.Queue("starved").Deserved("nvidia.com/gpu=4");
  b.Job("over").InQueue("over").MinAvailable(1).Running("w", 6, "nvidia.com/gpu=1", "n1");
  b.Job("at").InQueue("at").MinAvailable(1).Running("w", 4, "nvidia.com/gpu=1", "n1");
  b.Job("g").InQueue("guaranteed").MinAvailable(1).Running("w", 2, "nvidia.com/gpu=1", "n1");
  b.Job("s").InQueue("starved").MinAvailable(1).Tasks("w", 4, "nvidia.com/gpu=1");
  OpenSession s(b.Build(), kAlone);
  const Task& reclaimer = s->task(s.Task("s-w-0"));
  EXPECT_EQ(s.Names(s->Reclaimable(reclaimer, s.Running())),
            (std::vector<std::string>{"over-w-0", "over-w-1"}));
  EXPECT_TRUE(s->Preemptive(s.Queue("starved"), reclaimer));
  EXPECT_FALSE(s->Preemptive(s.Queue("at"), reclaimer));
  EXPECT_FALSE(s->Overused(s.Queue("over"))) << "capacity registers no Overused";
}

TEST(CapacityTest, QueueOrderByPriorityThenShare) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("busy").Deserved("nvidia.com/gpu=4");
  b.Queue("idle").Deserved("nvidia.com/gpu=4");
  b.Queue("vip").Deserved("nvidia.com/gpu=1").Priority(10);
  b.Job("busy").InQueue("busy").MinAvailable(1).Running("w", 2, "nvidia.com/gpu=1", "n1");
  b.Job("vip").InQueue("vip").MinAvailable(1).Running("w", 1, "nvidia.com/gpu=1", "n1");
  OpenSession s(b.Build(), kFlat);
  EXPECT_LT(s->CompareQueues(s.Queue("idle"), s.Queue("busy")), 0);
  EXPECT_LT(s->CompareQueues(s.Queue("vip"), s.Queue("idle")), 0);
}

TEST(CapacityTest, EnqueueChecksAncestors) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("p").Capability("nvidia.com/gpu=4");
  b.Queue("c").Parent("p");
  b.Job("big")
      .InQueue("c")
      .Phase(PodGroupPhase::kPending)
      .MinResources("nvidia.com/gpu=5")
      .Tasks("w", 5, "nvidia.com/gpu=1");
  b.Job("fits")
      .InQueue("c")
      .Phase(PodGroupPhase::kPending)
      .MinResources("nvidia.com/gpu=4")
      .Tasks("w", 4, "nvidia.com/gpu=1");
  OpenSession s(b.Build(), kTree);
  EXPECT_FALSE(s->JobEnqueueable(s.Job("big")));
  EXPECT_TRUE(s->JobEnqueueable(s.Job("fits")));
}

}  // namespace
}  // namespace etna::sched
