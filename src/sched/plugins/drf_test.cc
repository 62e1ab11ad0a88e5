#include <gtest/gtest.h>

#include "sched/testing/open_session.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::OpenSession;
using testkit::Schedule;

constexpr char kDrf[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: drf
)";

constexpr char kHdrf[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: drf
    enableHierarchy: true
)";

// Only this plugin votes on victims (gang in an earlier tier would decide otherwise).
constexpr char kAlone[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: drf
)";

TEST(DrfTest, SmallShareJobGoesFirst) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  // "big" is older, so without drf it would win the one free GPU.
  b.Job("big")
      .CreatedAt(1)
      .MinAvailable(1)
      .Running("w", 6, "nvidia.com/gpu=1", "n1")
      .Tasks("w", 1, "nvidia.com/gpu=1");
  b.Job("small")
      .CreatedAt(2)
      .MinAvailable(1)
      .Running("w", 1, "nvidia.com/gpu=1", "n1")
      .Tasks("w", 1, "nvidia.com/gpu=1");
  auto binds = BindMap(Schedule(b.Build(), kDrf));
  EXPECT_EQ(binds.size(), 1u);
  EXPECT_TRUE(binds.count("small-w-1"));
}

TEST(DrfTest, PreemptOnlyFromAHigherShare) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Job("rich").MinAvailable(1).Running("w", 5, "nvidia.com/gpu=1", "n1");
  b.Job("poor").MinAvailable(1).Running("w", 2, "nvidia.com/gpu=1", "n1");
  b.Job("me")
      .MinAvailable(1)
      .Running("w", 1, "nvidia.com/gpu=1", "n1")
      .Tasks("w", 1, "nvidia.com/gpu=1");
  OpenSession s(b.Build(), kAlone);
  // me with the task: 2/8. rich after losing victims: 4/8, 3/8, 2/8 (equal is allowed), 1/8.
  // poor after losing one: 1/8 < 2/8.
  auto allowed = s->Preemptable(s->task(s.Task("me-w-1")), s.Running());
  EXPECT_EQ(s.Names(allowed), (std::vector<std::string>{"rich-w-0", "rich-w-1", "rich-w-2"}));
}

TEST(DrfTest, HierarchyRespectsParentWeights) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  // heavy (weight 4) holds 2 GPUs: 2/8/4 = 1/16; light (weight 1) holds 1: 1/8.
  b.Queue("heavy").Weight(4);
  b.Queue("light").Weight(1);
  b.Queue("z-under-heavy").Parent("heavy");  // named to sort last without drf
  b.Queue("a-under-light").Parent("light");
  b.Job("h")
      .InQueue("z-under-heavy")
      .MinAvailable(1)
      .Running("w", 2, "nvidia.com/gpu=1", "n1")
      .Tasks("w", 5, "nvidia.com/gpu=1");
  b.Job("l")
      .InQueue("a-under-light")
      .MinAvailable(1)
      .Running("w", 1, "nvidia.com/gpu=1", "n1")
      .Tasks("w", 5, "nvidia.com/gpu=1");
  Snapshot snap = b.Build();
  {
    OpenSession s(snap, kHdrf);
    EXPECT_LT(s->CompareQueues(s.Queue("z-under-heavy"), s.Queue("a-under-light")), 0);
  }
  // 5 free GPUs, one task per queue pick (in 32nds): heavy 2 < light 4 → heavy; 3 < 4 → heavy;
  // 4 = 4 ties → light by name (light 8); heavy 4, 5 → heavy. Heavy gets 4, light 1; without
  // the hierarchy the name order would give light all 5.
  auto binds = BindMap(Schedule(snap, kHdrf));
  int heavy = 0, light = 0;
  for (const auto& [pod, node] : binds) (pod[0] == 'h' ? heavy : light)++;
  EXPECT_EQ(heavy, 4);
  EXPECT_EQ(light, 1);
}

TEST(DrfTest, HierarchyReclaimsOnlyFromAHigherWeightedShare) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("heavy").Weight(4);
  b.Queue("light").Weight(1);
  b.Job("h")
      .InQueue("heavy")
      .MinAvailable(1)
      .Running("w", 1, "nvidia.com/gpu=1", "n1")
      .Tasks("w", 1, "nvidia.com/gpu=1");
  b.Job("l").InQueue("light").MinAvailable(1).Running("w", 4, "nvidia.com/gpu=1", "n1");
  OpenSession s(b.Build(), R"(
actions: "allocate"
tiers:
- plugins:
  - name: drf
    enableHierarchy: true
)");
  // In 32nds: heavy with the task 2/8/4 = 2. light after each loss: 12, 8, 4, then 0 (< 2).
  auto allowed = s->Reclaimable(s->task(s.Task("h-w-1")), s.Running());
  EXPECT_EQ(s.Names(allowed), (std::vector<std::string>{"l-w-0", "l-w-1", "l-w-2"}));
}

TEST(DrfTest, RejectsUnknownArguments) {
  Result<SchedulerConf> conf = ParseSchedulerConf(R"(
actions: "allocate"
tiers:
- plugins:
  - name: drf
    arguments:
      drf.weight: 2
)",
                                                  BuiltinRegistry());
  ASSERT_FALSE(conf.ok());
  EXPECT_NE(conf.status().message().find("drf.weight"), std::string::npos)
      << conf.status().message();
}

}  // namespace
}  // namespace etna::sched
