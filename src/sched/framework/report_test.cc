// What a cycle reports beside its decisions: each queue's allocation and fair share (for the
// scheduler's Volcano queue gauges) and, with a clock injected, where the time went.
#include <gtest/gtest.h>

#include "sched/framework/cycle.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::ClusterBuilder;

constexpr char kConf[] = R"(
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: proportion
)";

Decision RunReported(Snapshot snap, std::function<double()> clock = {}) {
  auto conf = ParseSchedulerConf(kConf, BuiltinRegistry());
  EXPECT_TRUE(conf.ok()) << conf.status().ToString();
  auto d = RunCycle(std::move(snap), *conf, BuiltinRegistry(), std::move(clock));
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? *d : Decision{};
}

TEST(CycleReportTest, QueuesReportAllocatedRequestDeservedAndShare) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("q1").Weight(1);
  b.Queue("q2").Weight(1).Capability("nvidia.com/gpu=2");
  b.Job("a").InQueue("q1").MinAvailable(1).Tasks("w", 6, "nvidia.com/gpu=1");
  b.Job("b").InQueue("q2").MinAvailable(1).Tasks("w", 4, "nvidia.com/gpu=1");
  Decision d = RunReported(b.Build());
  const QueueReport* found[2] = {nullptr, nullptr};
  for (const QueueReport& q : d.queues) {
    if (q.name == "q1") found[0] = &q;
    if (q.name == "q2") found[1] = &q;
  }
  ASSERT_TRUE(found[0] && found[1]);
  const QueueReport& q1 = *found[0];
  const QueueReport& q2 = *found[1];
  // q2 is capped at 2 GPUs, so q1 deserves the other 6 and gets them.
  EXPECT_EQ(q1.allocated.Get(kGpu), 6000);
  EXPECT_EQ(q2.allocated.Get(kGpu), 2000);
  EXPECT_EQ(q1.request.Get(kGpu), 6000);
  EXPECT_EQ(q2.request.Get(kGpu), 4000) << "2 held + 2 still pending";
  ASSERT_TRUE(q1.deserved.Has(kGpu));
  EXPECT_EQ(q1.deserved.value().Get(kGpu), 6000);
  EXPECT_EQ(q2.deserved.value().Get(kGpu), 2000);
  EXPECT_EQ(q2.real_capability.Get(kGpu), 2000);
  EXPECT_EQ(q1.real_capability.Get(kGpu), 8000);
  EXPECT_DOUBLE_EQ(q1.share, 1.0);
  EXPECT_TRUE(q2.overused);
  EXPECT_TRUE(d.timings.actions.empty()) << "no clock, no timings";
}

TEST(CycleReportTest, InjectedClockTimesEveryActionAndPlugin) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=8").Gpus(1);
  b.Queue("q1");
  b.Job("a").InQueue("q1").Tasks("w", 1, "nvidia.com/gpu=1");
  double t = 0;
  Decision d = RunReported(b.Build(), [&t] { return t += 1; });  // each reading 1 ms later
  ASSERT_EQ(d.timings.actions.size(), 2u);
  EXPECT_EQ(d.timings.actions[0].name, "enqueue");
  EXPECT_EQ(d.timings.actions[1].name, "allocate");
  EXPECT_DOUBLE_EQ(d.timings.actions[0].ms, 1);
  ASSERT_EQ(d.timings.plugins.size(), 6u) << "3 plugins opened and closed";
  EXPECT_EQ(d.timings.plugins[0].name, "priority");
  EXPECT_EQ(d.timings.plugins[0].phase, "OnSessionOpen");
  EXPECT_EQ(d.timings.plugins[5].name, "proportion");
  EXPECT_EQ(d.timings.plugins[5].phase, "OnSessionClose");
}

// nodes_after hands back the snapshot's nodes with their devices (what the daemon needs to
// annotate a bind) and the cycle's placements counted on them.
TEST(CycleReportTest, NodesAfterTheCycleKeepTheirDevicesAndCarryThePlacements) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=8").Gpus(2);
  b.Queue("q1");
  b.Job("a").InQueue("q1").Tasks("w", 1, "nvidia.com/gpu=1");
  Snapshot snap = b.Build();
  const std::vector<GpuDevice> gpus = snap.nodes[0].gpus;
  auto conf = ParseSchedulerConf(kConf, BuiltinRegistry());
  ASSERT_TRUE(conf.ok());
  std::vector<Node> nodes;
  auto d = RunCycle(std::move(snap), *conf, BuiltinRegistry(), {}, &nodes);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->binds.size(), 1u);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].name, "n1");
  ASSERT_EQ(nodes[0].gpus.size(), gpus.size());
  for (size_t i = 0; i < gpus.size(); ++i) EXPECT_EQ(nodes[0].gpus[i].uuid, gpus[i].uuid);
  EXPECT_EQ(nodes[0].used.Get(kGpu), 1000);
}

}  // namespace
}  // namespace etna::sched
