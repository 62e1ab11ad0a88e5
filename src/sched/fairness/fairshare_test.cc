#include "sched/fairness/fairshare.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "sched/framework/conf.h"
#include "sched/framework/registry.h"
#include "sched/testing/cluster_builder.h"
#include "sched/testing/open_session.h"

namespace etna::sched::fairness {
namespace {

using ::testing::HasSubstr;
using testkit::ClusterBuilder;
using testkit::OpenSession;
using testkit::Res;

constexpr TimeMs kHour = 3600 * 1000;

// The builder's queues by name (it adds "default" first).
Queue& Q(Snapshot& snap, std::string_view name) {
  for (auto& q : snap.queues) {
    if (q.name == name) return q;
  }
  ADD_FAILURE() << "no queue " << name;
  return snap.queues.front();
}
size_t I(const Snapshot& snap, std::string_view name) {
  for (size_t i = 0; i < snap.queues.size(); ++i) {
    if (snap.queues[i].name == name) return i;
  }
  ADD_FAILURE() << "no queue " << name;
  return 0;
}

constexpr char kCapacity[] = R"(
actions: "allocate, reclaim"
tiers:
- plugins:
  - name: capacity
    arguments:
      fairshare: true
      fairshare.halfLife: 1h
)";

TEST(DecayedUsageTest, OneHalfLifeWithNothingHeldHalvesUsageExactly) {
  DecayedUsage u;
  u.Accrue(Res("nvidia.com/gpu=8"), 5 * kHour, kHour);
  const double before = u.Get(kGpu);
  ASSERT_GT(before, 0);
  u.Accrue(ResourceVector(), kHour, kHour);
  EXPECT_EQ(u.Get(kGpu), before / 2);
  u.Accrue(ResourceVector(), 3 * kHour, kHour);
  EXPECT_EQ(u.Get(kGpu), before / 16);
}

TEST(DecayedUsageTest, HoldingIsIntegratedExactlyWhateverTheSteps) {
  DecayedUsage whole, steps;
  ResourceVector held = Res("nvidia.com/gpu=2");
  whole.Accrue(held, 90 * 60 * 1000, kHour);
  for (int i = 0; i < 90; ++i) steps.Accrue(held, 60 * 1000, kHour);
  EXPECT_NEAR(whole.Get(kGpu) / steps.Get(kGpu), 1.0, 1e-9);
  // Short against the half-life, it is nearly plain milli-GPU-seconds: 2 GPUs for one second,
  // the older half of that second already worth a little less (1 − ln 2 / 7200).
  DecayedUsage brief;
  brief.Accrue(held, 1000, kHour);
  EXPECT_NEAR(brief.Get(kGpu), 2000.0 * (1 - std::log(2.0) / 7200), 1e-3);
  // Held for ever, it tends to held × τ (τ = T / ln 2).
  DecayedUsage forever;
  forever.Accrue(held, 60 * kHour, kHour);
  EXPECT_NEAR(forever.Get(kGpu), 2000.0 * MeanLifeSeconds(kHour), 1e-6);
}

TEST(DecayedUsageTest, NormalizedIsTheDominantDecayedShareOfTheCluster) {
  DecayedUsage u;
  u.Accrue(Res("cpu=8,nvidia.com/gpu=4,pods=100"), 60 * kHour, kHour);
  // Half the GPUs, an eighth of the CPUs; the pod count is no resource to share.
  EXPECT_NEAR(u.Normalized(Res("cpu=64,nvidia.com/gpu=8,pods=100"), kHour), 0.5, 1e-9);
  EXPECT_EQ(DecayedUsage().Normalized(Res("nvidia.com/gpu=8"), kHour), 0);
}

TEST(FairshareTest, FactorIsOneUnusedAndHalfAtExactlyItsShare) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("fair").Weight(3);  // with "default", weight 1: entitled to 3/4
  Snapshot snap = b.Build();
  // "fair" held 6 of 8 GPUs all along.
  Q(snap, "fair").usage.Accrue(Res("nvidia.com/gpu=6"), 60 * kHour, kHour);
  QueueTree flat(snap.queues, false);
  auto fs = ComputeFairshare(snap.queues, flat, Res("cpu=64,nvidia.com/gpu=8"), kHour);
  const QueueFairshare& idle = fs[I(snap, "default")];
  const QueueFairshare& fair = fs[I(snap, "fair")];
  EXPECT_EQ(idle.factor, 1.0);
  EXPECT_DOUBLE_EQ(idle.share, 0.25);
  EXPECT_DOUBLE_EQ(fair.share, 0.75);
  EXPECT_NEAR(fair.usage, 0.75, 1e-9);
  EXPECT_NEAR(fair.factor, 0.5, 1e-9);
  EXPECT_EQ(OverQuotaWeight(3, fair.factor), 1500);
  EXPECT_EQ(OverQuotaWeight(0, 1.0), 1000) << "a weight under 1 counts as 1";
  EXPECT_EQ(OverQuotaWeight(1, 0.0), 1) << "never 0";
}

TEST(FairshareTest, HierarchyMultipliesSharesAndChargesParentsForChildren) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("org");  // beside "default": half the cluster
  b.Queue("team").Parent("org");
  b.Queue("team2").Parent("org").Weight(3);
  Snapshot snap = b.Build();
  Q(snap, "team").usage.Accrue(Res("nvidia.com/gpu=2"), 60 * kHour, kHour);  // a quarter
  QueueTree tree(snap.queues, true);
  auto fs = ComputeFairshare(snap.queues, tree, Res("nvidia.com/gpu=8"), kHour);
  EXPECT_DOUBLE_EQ(fs[I(snap, "team")].share, 0.5 * 0.25);
  EXPECT_DOUBLE_EQ(fs[I(snap, "team2")].share, 0.5 * 0.75);
  EXPECT_NEAR(fs[I(snap, "org")].usage, 0.25, 1e-9) << "org is charged for team";
  EXPECT_NEAR(fs[I(snap, "org")].factor, std::exp2(-0.25 / 0.5), 1e-9);
  EXPECT_NEAR(fs[I(snap, "team")].factor, std::exp2(-0.25 / 0.125), 1e-9);
  EXPECT_EQ(fs[I(snap, "default")].factor, 1.0);
  EXPECT_EQ(fs[I(snap, "team2")].factor, 1.0);
}

// Two queues of equal weight, both asking for the whole cluster, nothing allocated: the one that
// used less recently goes first, and it flips when their usages cross.
TEST(FairshareTest, QueueOrderFlipsWhenUsageCrosses) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("a");
  b.Queue("b");
  b.Job("ja").InQueue("a").Tasks("w", 8, "nvidia.com/gpu=1");
  b.Job("jb").InQueue("b").Tasks("w", 8, "nvidia.com/gpu=1");
  Snapshot snap = b.Build();
  Q(snap, "a").usage.Accrue(Res("nvidia.com/gpu=4"), 2 * kHour, kHour);
  Q(snap, "b").usage.Accrue(Res("nvidia.com/gpu=3"), 2 * kHour, kHour);
  {
    OpenSession s(snap, kCapacity);
    EXPECT_LT(s->CompareQueues(s.Queue("b"), s.Queue("a")), 0) << "a used more";
  }
  auto first_started = [&] {
    Decision d = testkit::Schedule(snap, kCapacity);
    EXPECT_EQ(d.binds.size(), 8u) << "one whole-cluster gang fits";
    return d.binds.empty() ? "" : snap.jobs[snap.tasks[d.binds[0].task].job].name;
  };
  EXPECT_EQ(first_started(), "jb");
  // An hour later a held nothing and b held 8 GPUs: b has now used more.
  Q(snap, "a").usage.Accrue(ResourceVector(), kHour, kHour);
  Q(snap, "b").usage.Accrue(Res("nvidia.com/gpu=8"), kHour, kHour);
  ASSERT_GT(Q(snap, "b").usage.Get(kGpu), Q(snap, "a").usage.Get(kGpu));
  OpenSession s(snap, kCapacity);
  EXPECT_LT(s->CompareQueues(s.Queue("a"), s.Queue("b")), 0) << "b used more";
  EXPECT_EQ(first_started(), "ja");
}

// A queue that held the whole cluster for a long time keeps an eighth of its equal-weight
// deserved share: the other queue reclaims 7 of its 8 GPUs instead of 4.
TEST(FairshareTest, AHotQueueIsReclaimedFurther) {
  auto victims = [](bool hot) {
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=64").Gpus(8);
    b.Queue("hot");
    b.Queue("starved");
    b.Job("h").InQueue("hot").MinAvailable(1).Running("w", 8, "nvidia.com/gpu=1", "n1");
    b.Job("s").InQueue("starved").MinAvailable(1).Tasks("w", 8, "nvidia.com/gpu=1");
    Snapshot snap = b.Build();
    if (hot) Q(snap, "hot").usage.Accrue(Res("nvidia.com/gpu=8"), 60 * kHour, kHour);
    OpenSession s(snap, kCapacity);
    return s->Reclaimable(s->task(s.Task("s-w-0")), s.Running())->size();
  };
  EXPECT_EQ(victims(false), 4u);
  // With "default" beside them: u 1, s ⅓, F ⅛, so deserved 8 × 1/9 ≈ 0.9 GPUs.
  EXPECT_EQ(victims(true), 7u);
}

TEST(FairshareTest, HierarchicalDrfDividesEachQueuesShareByItsFairWeight) {
  constexpr char kDrf[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: drf
    enableHierarchy: true
    arguments: {fairshare: true, fairshare.halfLife: 1h}
)";
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("a");
  b.Queue("b");
  b.Job("ja").InQueue("a").MinAvailable(1).Running("w", 2, "nvidia.com/gpu=1", "n1");
  b.Job("jb").InQueue("b").MinAvailable(1).Running("w", 2, "nvidia.com/gpu=1", "n1");
  Snapshot snap = b.Build();
  {
    OpenSession s(snap, kDrf);
    EXPECT_LT(s->CompareQueues(s.Queue("a"), s.Queue("b")), 0)
        << "same share, same usage: the session's tie-break puts a first";
  }
  Q(snap, "a").usage.Accrue(Res("nvidia.com/gpu=4"), 3 * kHour, kHour);
  OpenSession s(snap, kDrf);
  EXPECT_LT(s->CompareQueues(s.Queue("b"), s.Queue("a")), 0) << "a ran hot";
}

TEST(FairshareTest, TheDecisionReportsEachQueuesUsageAndFactor) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Queue("hot");
  Snapshot snap = b.Build();
  Q(snap, "hot").usage.Accrue(Res("nvidia.com/gpu=8"), 60 * kHour, kHour);
  Decision d = testkit::Schedule(snap, kCapacity);
  ASSERT_EQ(d.queues.size(), 2u);
  const QueueReport& hot = d.queues[I(snap, "hot")];
  EXPECT_TRUE(hot.fairshare);
  EXPECT_NEAR(hot.usage_share, 1.0, 1e-9);
  EXPECT_NEAR(hot.fairshare_factor, 0.25, 1e-9) << "u 1, s ½";
  EXPECT_EQ(d.queues[I(snap, "default")].fairshare_factor, 1.0);
}

Result<SchedulerConf> Parse(std::string_view yaml) {
  return ParseSchedulerConf(yaml, BuiltinRegistry());
}

// The error a configuration whose second tier is `plugins` gets; "" (and a failure) when loaded.
std::string Refusal(std::string_view plugins) {
  auto conf = Parse(fmt::format("actions: \"allocate\"\ntiers:\n- plugins:\n{}", plugins));
  EXPECT_FALSE(conf.ok()) << plugins;
  return conf.ok() ? "" : conf.status().message();
}

TEST(FairshareConfTest, ArgumentsAreCheckedAndNamed) {
  EXPECT_THAT(Refusal("  - name: proportion\n    arguments: {fairshare.halfLife: 1h}\n"),
              HasSubstr("fairshare.halfLife: set without fairshare: true"));
  EXPECT_THAT(Refusal("  - name: drf\n    arguments: {fairshare: true}\n"),
              HasSubstr("enableHierarchy"));
  EXPECT_THAT(Refusal("  - name: capacity\n"
                      "    arguments: {fairshare: true, fairshare.halfLife: 0s}\n"),
              HasSubstr("fairshare.halfLife: must be longer than 0"));
  EXPECT_THAT(Refusal("  - name: drf\n"
                      "    enableHierarchy: true\n"
                      "    arguments: {fairshare: true, fairshare.halfLife: 2h}\n"
                      "  - name: capacity\n"
                      "    arguments: {fairshare: true}\n"),
              HasSubstr("drf and capacity"));
}

TEST(FairshareConfTest, EtnasDefaultKeepsItWithSlurmsHalfLife) {
  auto conf = Parse(DefaultSchedulerConfYaml());
  ASSERT_TRUE(conf.ok()) << conf.status().message();
  auto fs = FairshareOf(*conf);
  ASSERT_TRUE(fs.ok());
  EXPECT_TRUE(fs->enabled);
  EXPECT_EQ(fs->half_life_ms, 7 * 24 * kHour);
  auto volcano = Parse(R"(
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
)");
  ASSERT_TRUE(volcano.ok());
  EXPECT_FALSE(FairshareOf(*volcano)->enabled) << "off in Volcano's default";
}

}  // namespace
}  // namespace etna::sched::fairness
