#include "sched/fairness/quota.h"

#include <gtest/gtest.h>

#include "sched/testing/cluster_builder.h"

namespace etna::sched::fairness {
namespace {

using testkit::Limit;
using testkit::Res;

int64_t Gpus(const ResourceVector& v) { return v.Get(kGpu) / 1000; }

TEST(FairnessQuotaTest, RealCapabilityLeavesOtherQueuesGuarantees) {
  ResourceVector total = Res("cpu=100,nvidia.com/gpu=100");
  ResourceVector all_guarantees = Res("nvidia.com/gpu=30");
  // No capability, no own guarantee: total − 30.
  EXPECT_EQ(Gpus(RealCapability(total, all_guarantees, {}, {})), 70);
  // Own guarantee 20 of the 30: total − 10.
  EXPECT_EQ(Gpus(RealCapability(total, all_guarantees, Limit("nvidia.com/gpu=20"), {})), 90);
  // Capability is the tighter bound; cpu stays unbounded by it.
  ResourceVector r = RealCapability(total, all_guarantees, {}, Limit("nvidia.com/gpu=25"));
  EXPECT_EQ(Gpus(r), 25);
  EXPECT_EQ(r.Get(kCpu), 100'000);
}

struct FillCase {
  const char* name;
  int64_t total_gpus;
  std::vector<WaterFillQueue> queues;  // GPU-only
  std::vector<int64_t> want_gpus;
};

WaterFillQueue Q(int32_t w, int64_t request, int64_t real_cap, int64_t guarantee = 0) {
  WaterFillQueue q;
  q.weight = w;
  q.request.Set(kGpu, request * 1000);
  q.real_capability.Set(kGpu, real_cap * 1000);
  q.guarantee.Set(kGpu, guarantee * 1000);
  return q;
}

TEST(FairnessQuotaTest, WaterFillTable) {
  const FillCase cases[] = {
      // Plenty of demand, no limits: 100 by weight 4/3/2/1 → 40/30/20/10.
      {"by weight",
       100,
       {Q(4, 100, 100), Q(3, 100, 100), Q(2, 100, 100), Q(1, 100, 100)},
       {40, 30, 20, 10}},
      // Pass 1 (Σw 10): A +40 → clamped to its request 30 (met); B +30 → its capability 24
      // (met); C +20 → raised to its guarantee 30; D +10. Handed out 94, 6 left.
      // Pass 2 (Σw 3, C and D): C +4 → 34; D +2 → 12. Nothing left.
      // (real capabilities: total − the guarantee 30 of C, so 70 for the others.)
      {"request, capability, guarantee",
       100,
       {Q(4, 30, 70), Q(3, 100, 24), Q(2, 100, 100, 30), Q(1, 100, 70)},
       {30, 24, 34, 12}},
      // A queue with no demand gets nothing; its weight goes to the others. Pass 1 (Σw 4):
      // B 2.25, C 4.5, 2.25 left; pass 2 (Σw 3): B +0.75 → 3, C +1.5 → 6.
      {"no demand", 9, {Q(1, 0, 9), Q(1, 9, 9), Q(2, 9, 9)}, {0, 3, 6}},
      // Demand below the total: everyone gets its request.
      {"underloaded", 100, {Q(1, 10, 100), Q(5, 20, 100)}, {10, 20}},
  };
  for (const auto& c : cases) {
    ResourceVector total;
    total.Set(kGpu, c.total_gpus * 1000);
    auto got = WaterFill(total, c.queues);
    ASSERT_EQ(got.size(), c.want_gpus.size()) << c.name;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].Get(kGpu), c.want_gpus[i] * 1000) << c.name << " queue " << i;
      EXPECT_LE(got[i].Get(kGpu),
                std::max(c.queues[i].real_capability.Get(kGpu), c.queues[i].guarantee.Get(kGpu)))
          << c.name << ": never above the real capability";
    }
  }
}

TEST(FairnessQuotaTest, ExceedOnRequestChecksOnlyRequestedDimensions) {
  ResourceVector limit = Res("cpu=4,nvidia.com/gpu=8");
  EXPECT_EQ(ExceedOnRequest(Res("cpu=10,nvidia.com/gpu=7"), Res("nvidia.com/gpu=1"), limit), 0u);
  EXPECT_EQ(ExceedOnRequest(Res("nvidia.com/gpu=8"), Res("nvidia.com/gpu=1"), limit), 1u << kGpu);
  // A limit that does not name a dimension leaves it unbounded.
  EXPECT_EQ(ExceedOnRequest(Res("cpu=100"), Res("cpu=1"), Limit("nvidia.com/gpu=1")), 0u);
  EXPECT_EQ(DescribeExceed("q1", "its deserved share", "deserved", 1u << kGpu,
                           Res("nvidia.com/gpu=8"), Res("nvidia.com/gpu=1"), limit),
            "queue q1: nvidia.com/gpu would exceed its deserved share (allocated 8, request 1, "
            "deserved 8)");
}

TEST(FairnessQuotaTest, CanGiveUpOnlyAboveDeserved) {
  ResourceLimit deserved = Limit("cpu=8,nvidia.com/gpu=4");
  ResourceVector victim = Res("cpu=1,nvidia.com/gpu=1");
  EXPECT_TRUE(CanGiveUp(Res("cpu=8,nvidia.com/gpu=6"), deserved, victim))
      << "GPU stays at 5 ≥ 4 even though cpu drops below deserved";
  EXPECT_TRUE(CanGiveUp(Res("nvidia.com/gpu=5"), deserved, victim)) << "down to exactly 4";
  EXPECT_FALSE(CanGiveUp(Res("cpu=4,nvidia.com/gpu=4"), deserved, victim)) << "at deserved";
  EXPECT_FALSE(CanGiveUp(Res("memory=100Gi"), Limit("nvidia.com/gpu=0"), Res("memory=1Gi")))
      << "unbounded dimensions never qualify";
}

}  // namespace
}  // namespace etna::sched::fairness
