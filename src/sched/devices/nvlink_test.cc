#include "sched/devices/nvlink.h"

#include <gtest/gtest.h>

#include <vector>

namespace etna::sched::devices {
namespace {

// A node whose GPU i is in NVLink domain domains[i]; GPUs listed in `busy` are held whole.
Node NodeWithDomains(const std::vector<int32_t>& domains, const std::vector<int>& busy = {}) {
  Node n;
  n.name = "n";
  for (size_t i = 0; i < domains.size(); ++i) {
    GpuDevice g;
    g.index = static_cast<int32_t>(i);
    g.nvlink_domain = domains[i];
    n.gpus.push_back(g);
  }
  for (int i : busy) n.gpus[i].used_milli = 1000;
  return n;
}

TEST(TightestNvlinkDomainTest, PicksTheDomainWithFewestFreeGpusThatHoldsThemAll) {
  // Domain 0 has 4 free GPUs, domain 1 has 2 (two of its four are busy).
  Node n = NodeWithDomains({0, 0, 0, 0, 1, 1, 1, 1}, {4, 5});
  auto fit = TightestNvlinkDomain(n, 2);
  ASSERT_TRUE(fit.has_value());
  EXPECT_EQ(fit->domain, 1);
  EXPECT_EQ(fit->free, 2u);
  fit = TightestNvlinkDomain(n, 3);
  ASSERT_TRUE(fit.has_value());
  EXPECT_EQ(fit->domain, 0);
  EXPECT_EQ(fit->free, 4u);
}

TEST(TightestNvlinkDomainTest, NoneWhenNoDomainHoldsTheRequest) {
  Node n = NodeWithDomains({0, 0, 1, 1});
  EXPECT_FALSE(TightestNvlinkDomain(n, 3).has_value());
}

TEST(TightestNvlinkDomainTest, GpusWithoutADomainBelongToNone) {
  Node n = NodeWithDomains({-1, -1, -1, 2, 2});
  auto fit = TightestNvlinkDomain(n, 1);
  ASSERT_TRUE(fit.has_value());
  EXPECT_EQ(fit->domain, 2);
  EXPECT_EQ(fit->free, 2u);
  EXPECT_FALSE(TightestNvlinkDomain(n, 3).has_value());
}

TEST(TightestNvlinkDomainTest, EqualDomainsGoToTheOneWhoseFreeGpuComesFirst) {
  Node n = NodeWithDomains({5, 3, 5, 3});
  auto fit = TightestNvlinkDomain(n, 2);
  ASSERT_TRUE(fit.has_value());
  EXPECT_EQ(fit->domain, 5);
}

}  // namespace
}  // namespace etna::sched::devices
