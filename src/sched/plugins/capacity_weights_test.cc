// Queue weights under the default configuration: capacity's deserved shares come from the
// weighted water-fill, so allocation, reclaim and the reported deserved follow spec.weight.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sched/framework/conf.h"
#include "sched/testing/cluster_builder.h"
#include "sched/testing/queueing_kit.h"

namespace etna::sched {
namespace {

using testkit::ApplyDecision;
using testkit::ClusterBuilder;
using testkit::Schedule;

constexpr int kNodes = 12;  // × 8 GPUs = 96

void AddNodes(ClusterBuilder& b) {
  for (int i = 0; i < kNodes; ++i) {
    b.Node("n" + std::to_string(i)).Resources("cpu=64,memory=512Gi").Gpus(8);
  }
}

// GPUs held by each queue's running tasks.
std::map<std::string, int64_t> GpusHeld(const Snapshot& s) {
  std::map<std::string, int64_t> held;
  for (const Queue& q : s.queues) held[q.name] = 0;
  for (const Task& t : s.tasks) {
    if (t.job == kNone || !HoldsNode(t.status)) continue;
    held[s.queues[s.jobs[t.job].queue].name] += t.request.Get(kGpu) / 1000;
  }
  return held;
}

// The GPUs of the deserved share a cycle reports for a queue.
int64_t DeservedGpus(const Decision& d, std::string_view queue) {
  for (const QueueReport& r : d.queues) {
    if (r.name == queue) return r.deserved.value().Get(kGpu) / 1000;  // milli-GPUs
  }
  ADD_FAILURE() << "no report for queue " << queue;
  return -1;
}

// Runs default-configuration cycles, feeding each decision back, until nothing changes.
void RunCycles(Snapshot& s, int max_cycles = 20) {
  for (int i = 0; i < max_cycles; ++i) {
    Decision d = Schedule(s, DefaultSchedulerConfYaml());
    ApplyDecision(d, s);
    s.now_ms += 10'000;
    if (d.binds.empty() && d.evictions.empty()) return;
  }
}

// Each queue asks for 120 single-GPU jobs, more than the whole cluster. (Single-task jobs: a gang
// stops starving, and so stops reclaiming, once minAvailable of it runs.)
void AddDemand(ClusterBuilder& b, const std::string& queue) {
  for (int j = 0; j < 120; ++j) {
    b.Job(queue + "-j" + std::to_string(j)).InQueue(queue).Tasks("w", 1, "cpu=1,nvidia.com/gpu=1");
  }
}

TEST(CapacityWeightsTest, WeightsSplitTheClusterThenTheOthersAbsorbAFinishedQueue) {
  ClusterBuilder b;
  AddNodes(b);
  b.Queue("a").Weight(1);
  b.Queue("b").Weight(2);
  b.Queue("c").Weight(3);
  // c came first and holds the whole cluster: reaching 1:2:3 takes reclaim.
  for (int i = 0; i < kNodes; ++i) {
    b.Job("c-old" + std::to_string(i))
        .InQueue("c")
        .MinAvailable(1)
        .Running("w", 8, "cpu=1,nvidia.com/gpu=1", "n" + std::to_string(i));
  }
  for (const char* q : {"a", "b", "c"}) AddDemand(b, q);
  Snapshot s = b.Build();

  RunCycles(s);
  auto held = GpusHeld(s);
  EXPECT_NEAR(held["a"], 16, 1);
  EXPECT_NEAR(held["b"], 32, 1);
  EXPECT_NEAR(held["c"], 48, 1);

  // a's work is done: its tasks succeed and nothing of it is pending.
  for (Task& t : s.tasks) {
    if (t.job == kNone || s.queues[s.jobs[t.job].queue].name != "a") continue;
    t.status = TaskStatus::kSucceeded;
    t.node = kNone;
    t.devices.clear();
  }
  RunCycles(s);
  held = GpusHeld(s);
  EXPECT_EQ(held["a"], 0);
  EXPECT_NEAR(held["b"], 96.0 * 2 / 5, 1);
  EXPECT_NEAR(held["c"], 96.0 * 3 / 5, 1);
  EXPECT_EQ(held["b"] + held["c"], 96);
}

TEST(CapacityWeightsTest, GuaranteesFirstThenTheRestByWeight) {
  ClusterBuilder b;
  AddNodes(b);
  b.Queue("a").Weight(1).Guarantee("nvidia.com/gpu=40");
  b.Queue("b").Weight(1);
  b.Queue("c").Weight(2);
  for (const char* q : {"a", "b", "c"}) AddDemand(b, q);
  Snapshot s = b.Build();

  // 96 − 40 = 56 left above the guarantee, split 1:1:2.
  Decision first = Schedule(s, DefaultSchedulerConfYaml());
  EXPECT_EQ(DeservedGpus(first, "a"), 40 + 14);
  EXPECT_EQ(DeservedGpus(first, "b"), 14);
  EXPECT_EQ(DeservedGpus(first, "c"), 28);

  RunCycles(s);
  auto held = GpusHeld(s);
  EXPECT_NEAR(held["a"], 54, 1);
  EXPECT_NEAR(held["b"], 14, 1);
  EXPECT_NEAR(held["c"], 28, 1);
}

TEST(CapacityWeightsTest, ExplicitDeservedWinsAndTheRestIsWaterFilled) {
  ClusterBuilder b;
  AddNodes(b);
  b.Queue("fixed").Weight(100).Deserved("nvidia.com/gpu=36");
  b.Queue("b").Weight(1);
  b.Queue("c").Weight(2);
  for (const char* q : {"fixed", "b", "c"}) AddDemand(b, q);
  Decision first = Schedule(b.Build(), DefaultSchedulerConfYaml());
  EXPECT_EQ(DeservedGpus(first, "fixed"), 36);
  EXPECT_EQ(DeservedGpus(first, "b"), 20);
  EXPECT_EQ(DeservedGpus(first, "c"), 40);
}

TEST(CapacityWeightsTest, HierarchyWaterFillsSiblingsWithinTheParentsShare) {
  constexpr char kTree[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: capacity
    enableHierarchy: true
)";
  ClusterBuilder b;
  AddNodes(b);
  b.Queue("p").Weight(1);
  b.Queue("other").Weight(1);
  b.Queue("c1").Parent("p").Weight(1);
  b.Queue("c2").Parent("p").Weight(3);
  for (const char* q : {"other", "c1", "c2"}) AddDemand(b, q);
  Decision first = Schedule(b.Build(), kTree);
  EXPECT_EQ(DeservedGpus(first, "p"), 48);
  EXPECT_EQ(DeservedGpus(first, "other"), 48);
  EXPECT_EQ(DeservedGpus(first, "c1"), 12);
  EXPECT_EQ(DeservedGpus(first, "c2"), 36);
}

}  // namespace
}  // namespace etna::sched
