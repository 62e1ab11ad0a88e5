#include "sim/replay.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "sched/placement/gpu_frag.h"
#include "sim/report.h"

namespace etna::sim {
namespace {

using sched::GpuFragModel;
using sched::GpuNodeState;

TEST(GpuFragTest, TypicalShapesCoverThreshold) {
  // 10 + 5 + 4 of 20 tasks reach 95 %; the rarest shape is dropped and the rest renormalised.
  std::vector<sched::WeightedShape> counts = {{{1000, 1, 500, ""}, 5},
                                              {{1000, 0, 0, ""}, 10},
                                              {{2000, 1, 1000, ""}, 4},
                                              {{3000, 8, 1000, ""}, 1}};
  auto typical = sched::TypicalShapes(counts, 95);
  ASSERT_EQ(typical.size(), 3u);
  EXPECT_EQ(typical[0].shape.num_gpu, 0);
  EXPECT_DOUBLE_EQ(typical[0].weight, 10.0 / 19);
  EXPECT_DOUBLE_EQ(typical[2].weight, 4.0 / 19);
}

TEST(GpuFragTest, HandCheckedNodeFragmentation) {
  // Typical: a 500-milli share with 1 CPU (p=½) and a 2-CPU CPU-only task (p=½).
  GpuFragModel m({{{1000, 1, 500, ""}, 0.5}, {{2000, 0, 0, ""}, 0.5}});
  GpuNodeState s{m.ModelId("T4"), 4000, {1000, 300}};
  // Share fits on GPU0; GPU1's 300 is a sliver: ½·300. CPU-only: all 1300 idle: ½·1300.
  EXPECT_DOUBLE_EQ(m.Frag(s), 150 + 650);
  s.cpu_left = 500;  // the share no longer fits (CPU): all idle GPU is fragment for both
  EXPECT_DOUBLE_EQ(m.Frag(s), 1300);
  GpuFragModel v({{{1000, 1, 500, "V100M32"}, 1.0}});
  GpuNodeState t4{v.ModelId("T4"), 4000, {1000, 1000}};
  EXPECT_DOUBLE_EQ(v.Frag(t4), 2000);  // wrong model: all of it
  GpuNodeState v100{v.ModelId("V100M32"), 4000, {1000, 200}};
  EXPECT_DOUBLE_EQ(v.Frag(v100), 200);
}

class ReplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto n = LoadNodes(ETNA_SIM_TESTDATA "/nodes.csv");
    auto p = LoadPods(ETNA_SIM_TESTDATA "/pods.csv");
    ASSERT_TRUE(n.ok() && p.ok());
    nodes_ = *n;
    pods_ = *p;
  }
  std::vector<TraceNode> nodes_;
  std::vector<TracePod> pods_;
};

TEST_F(ReplayTest, EveryPolicyPlacesTheFixtureCompletely) {
  // 3 of 8 GPUs asked, plenty of room: every order and policy places everything, so the
  // final allocation is 3000 milli (37.5 %), bucket 38 (37.5 rounds to even).
  for (const auto& policy : Policies()) {
    for (uint64_t seed : {42, 43}) {
      auto r = Replay(nodes_, pods_, {policy, seed, /*tune=*/0});
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_EQ(r->total_gpu_milli, 8000);
      EXPECT_EQ(r->pods, 4);
      EXPECT_EQ(r->failed, 0) << policy.name;
      EXPECT_EQ(r->events.back().used_milli, 3000);
      EXPECT_EQ(r->events.back().idle_milli, 5000);
      ASSERT_TRUE(r->alloc[38].has_value());
      EXPECT_DOUBLE_EQ(*r->alloc[38], 37.5);
      EXPECT_FALSE(r->alloc[60].has_value());
    }
  }
}

TEST_F(ReplayTest, FgdFinalFragmentationIsHandChecked) {
  // FGD on the fixture; typical tasks = the four shapes, ¼ each. The V100 share can only go to
  // the V100 node. Hand-computed final fragmentation for FGD's two possible end states:
  //  (a) both shares on one V100 GPU, the 2-GPU task on T4:
  //      T4 {1000,1000,0,0}, 24 CPUs left: share 0, V100 share no access 2000, 2×1000 fits 0,
  //      CPU-only 2000 → 1000. V100 {0,1000,1000,1000}, 24 CPUs: 0, 0, 0, 3000 → 750.  1750.
  //  (b) the unconstrained share and the 2-GPU task on T4 {500,1000,0,0} (24 CPUs):
  //      0, 1500, 1500, 1500 → 1125; V100 {500,1000,1000,1000} (28 CPUs): 0, 0, 500, 3500 →
  //      1000.  2125.
  // Any other placement (e.g. a share alone on a fresh GPU next to the 2-GPU task) is worse.
  auto fgd = FindPolicy("fgd");
  ASSERT_TRUE(fgd.ok());
  bool packed = false;
  for (uint64_t seed : {42, 43, 44, 45, 46}) {
    auto r = Replay(nodes_, pods_, {*fgd, seed, /*tune=*/0});
    ASSERT_TRUE(r.ok());
    double f = r->events.back().frag_milli;
    EXPECT_TRUE(f == 1750 || f == 2125) << "seed " << seed << ": " << f;
    packed |= f == 1750;
  }
  EXPECT_TRUE(packed);
}

TEST(ReplayBalanceTest, EtnaKeepsCpuForTheGpusOfACpuPoorNode) {
  // Node a: 4 GPUs, 12 CPUs (three 4-CPU GPU tasks fill its CPU); node b: 4 GPUs, 64 CPUs. Eight
  // 1-GPU tasks with 4 CPUs and one 4-CPU CPU-only task: a holds at most 3 GPU tasks, so at most
  // 7 GPUs can be used, and only if the CPU-only task stays off a. While a still fits a GPU task
  // after it, FGD scores both nodes alike and its node order decides; etna's balance tie-break
  // (workload r = 36000 / 8000 CPU per GPU: a's skew −1333, b's +10222) sends it to b.
  std::vector<TraceNode> nodes = {{"a", 12000, 131072, 4, "T4"}, {"b", 64000, 131072, 4, "T4"}};
  std::vector<TracePod> pods;
  for (int i = 0; i < 8; ++i) pods.push_back({fmt::format("g{}", i), 4000, 1024, 1, 1000, ""});
  pods.push_back({"c", 4000, 1024, 0, 0, ""});
  int fgd_short = 0;
  for (uint64_t seed = 42; seed <= 51; ++seed) {
    auto etna = Replay(nodes, pods, {*FindPolicy("etna"), seed, /*tune=*/0});
    auto fgd = Replay(nodes, pods, {*FindPolicy("fgd"), seed, /*tune=*/0});
    ASSERT_TRUE(etna.ok() && fgd.ok());
    EXPECT_EQ(etna->events.back().used_milli, 7000) << "seed " << seed;
    EXPECT_LE(fgd->events.back().used_milli, 7000);
    fgd_short += fgd->events.back().used_milli < 7000;
  }
  EXPECT_GT(fgd_short, 0);  // the scenario does separate the two
}

TEST_F(ReplayTest, TuneResamplesToTheTarget) {
  auto bestfit = FindPolicy("bestfit");
  ASSERT_TRUE(bestfit.ok());
  auto r = Replay(nodes_, pods_, {*bestfit, 7, /*tune=*/1.3});
  ASSERT_TRUE(r.ok());
  // Re-sampled until the next pod would pass 1.3 × 8000 milli.
  EXPECT_LE(r->events.back().arrived_milli, 10400);
  EXPECT_GT(r->events.back().arrived_milli, 10400 - 2000);
  EXPECT_GT(r->failed, 0);  // 130 % cannot all fit
  EXPECT_LE(r->events.back().used_milli, 8000);
  auto again = Replay(nodes_, pods_, {*bestfit, 7, 1.3});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->events.back().used_milli, r->events.back().used_milli);  // deterministic
}

TEST(ReplayTestReport, OpenbLineFormat) {
  RunSummary run;
  run.workload = "tiny";
  run.policy = *FindPolicy("fgd");
  ReplayResult a, b;
  a.total_gpu_milli = b.total_gpu_milli = 1000 * 100;
  a.alloc[100] = 90;
  b.alloc[100] = 92;
  a.alloc[130] = 95;
  b.alloc[130] = 97;
  run.seeds = {a, b};
  run.seconds = 1.5;
  EXPECT_EQ(OpenbLine(run),
            "OPENB workload=tiny policy=fgd seeds=2 alloc_at_100=91.00 alloc_at_130=96.00 "
            "unalloc_gpus_at_130=4.0 seconds=1.50");
}

TEST(OpenbDataTest, DefaultTraceFgdOneSeed) {
  const std::string dir = ETNA_OPENB_DATA;
  ASSERT_TRUE(std::filesystem::exists(dir + "/openb_pod_list_default.csv"))
      << "openb data missing: " << dir << "/openb_pod_list_default.csv (testdata/openb)";
  auto nodes = LoadNodes(dir + "/openb_node_list_gpu_node.csv");
  auto pods = LoadPods(dir + "/openb_pod_list_default.csv");
  ASSERT_TRUE(nodes.ok() && pods.ok());
  EXPECT_EQ(nodes->size(), 1213u);
  EXPECT_EQ(pods->size(), 8152u);
  auto r = Replay(*nodes, *pods, {*FindPolicy("fgd"), 42, 1.3});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->total_gpu_milli, 6212000);
  ASSERT_TRUE(r->alloc[130].has_value());
  // Published FGD mean at 130 % arrived: 95.39 %; the harness must land within a point.
  EXPECT_NEAR(*r->alloc[130], 95.39, 1.0);
}

}  // namespace
}  // namespace etna::sim
