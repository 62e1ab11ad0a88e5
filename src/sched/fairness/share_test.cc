#include "sched/fairness/share.h"

#include <gtest/gtest.h>

#include "sched/testing/cluster_builder.h"

namespace etna::sched::fairness {
namespace {

using testkit::Limit;
using testkit::Res;

TEST(FairnessShareTest, DominantShareIsTheLargestFraction) {
  ResourceVector total = Res("cpu=100,nvidia.com/gpu=10");
  Share s = DominantShare(Res("cpu=10,nvidia.com/gpu=5"), total);
  EXPECT_EQ(CompareShares(s, Share{1, 2}), 0) << s.num << "/" << s.den;
  EXPECT_EQ(CompareShares(DominantShare(Res("memory=1Gi"), total), Share{}), 0)
      << "a resource the cluster lacks does not count";
  EXPECT_EQ(CompareShares(DominantShare(ResourceVector(), ResourceVector()), Share{}), 0);
}

TEST(FairnessShareTest, WeightedComparisonIsExact) {
  // 1/3 vs 2/6 are equal; 1/3 with weight 2 (1/6) is below 1/4.
  EXPECT_EQ(CompareShares(Share{1, 3}, Share{2, 6}), 0);
  EXPECT_LT(CompareShares(Share{1, 3}, Share{1, 4}, 2, 1), 0);
  EXPECT_GT(CompareShares(Share{1, 3}, Share{1, 4}), 0);
  // Large byte counts do not overflow.
  Share big{int64_t{1} << 55, (int64_t{1} << 56) + 1};
  EXPECT_LT(CompareShares(big, Share{1, 2}, 1, 1), 0);
  EXPECT_GT(CompareShares(big, Share{1, 2}, 1, 65535), 0);
}

TEST(FairnessShareTest, ShareOfLimitTreatsZeroLimitAsFullWhenUsed) {
  ResourceLimit deserved = Limit("cpu=10,nvidia.com/gpu=0");
  EXPECT_EQ(CompareShares(ShareOfLimit(Res("cpu=5"), deserved), Share{1, 2}), 0);
  EXPECT_EQ(CompareShares(ShareOfLimit(Res("cpu=5,nvidia.com/gpu=1"), deserved), Share{1, 1}), 0);
  EXPECT_EQ(CompareShares(ShareOfLimit(Res("memory=1Gi"), deserved), Share{}), 0)
      << "dimensions the limit does not name do not count";
}

}  // namespace
}  // namespace etna::sched::fairness
