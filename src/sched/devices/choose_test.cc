#include "sched/devices/choose.h"

#include <gtest/gtest.h>

#include "gpu/mig_catalog.h"
#include "sched/devices/inventory.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched::devices {
namespace {

Node MakeNode(const std::string& model, int count, std::map<int, std::vector<std::string>> mig) {
  Node n;
  n.name = "n";
  NodeGpuSpec spec{"n", model, count, 1, 0, std::move(mig)};
  auto gpus = BuildGpus(spec);
  EXPECT_TRUE(gpus.ok()) << gpus.status().ToString();
  n.gpus = std::move(gpus).value();
  return n;
}

// Applies allocations the way the session accounts them.
void Hold(Node& n, const std::vector<DeviceAllocation>& devices) {
  for (const auto& d : devices) {
    GpuDevice& g = n.gpus[d.gpu];
    g.used_milli += d.milli;
    g.used_memory_mib += d.memory_mib;
    if (d.mig_instance >= 0) {
      ASSERT_FALSE(g.mig[d.mig_instance].used) << "double-booked MIG instance";
      g.mig[d.mig_instance].used = true;
    }
  }
}

TEST(ChooseMigTest, TakesFreeInstancesAndNeverDoubleBooks) {
  Node n = MakeNode("H100-80GB", 2, {{0, {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}}});
  std::string reason;
  for (int i = 0; i < 2; ++i) {
    auto c = ChooseMig(n, {{"1g.10gb", 1}}, {}, DevicePolicy::kBinpack, &reason);
    ASSERT_TRUE(c.has_value());
    ASSERT_EQ(c->size(), 1u);
    EXPECT_EQ(c->at(0).gpu, 0);
    EXPECT_EQ(n.gpus[0].mig[c->at(0).mig_instance].profile, "1g.10gb");
    Hold(n, *c);
  }
  EXPECT_FALSE(ChooseMig(n, {{"1g.10gb", 1}}, {}, DevicePolicy::kBinpack, &reason));
  EXPECT_EQ(reason, "node(s) had no free MIG instance of profile 1g.10gb");
  // Two of one profile in one request get two different instances.
  Node m = MakeNode("A100-40GB", 1, {{0, std::vector<std::string>(7, "1g.5gb")}});
  auto c = ChooseMig(m, {{"1g.5gb", 3}}, {}, DevicePolicy::kBinpack, &reason);
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(c->size(), 3u);
  EXPECT_NE(c->at(0).mig_instance, c->at(1).mig_instance);
  EXPECT_NE(c->at(1).mig_instance, c->at(2).mig_instance);
  EXPECT_FALSE(ChooseMig(m, {{"1g.5gb", 8}}, {}, DevicePolicy::kBinpack, &reason));
}

TEST(ChooseMigTest, BinpackAndSpreadAndHealth) {
  Node n = MakeNode("A100-80GB", 2,
                    {{0, {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}},
                     {1, {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}}});
  Hold(n, {{1, 0, 0, 0, 0}});  // GPU 1's 3g.40gb is in use: GPU 1 is fuller
  std::string reason;
  auto bin = ChooseMig(n, {{"1g.10gb", 1}}, {}, DevicePolicy::kBinpack, &reason);
  auto spread = ChooseMig(n, {{"1g.10gb", 1}}, {}, DevicePolicy::kSpread, &reason);
  ASSERT_TRUE(bin && spread);
  EXPECT_EQ(bin->at(0).gpu, 1);
  EXPECT_EQ(spread->at(0).gpu, 0);
  // An unhealthy GPU's instances get no new work.
  n.gpus[1].healthy = false;
  bin = ChooseMig(n, {{"1g.10gb", 1}}, {}, DevicePolicy::kBinpack, &reason);
  ASSERT_TRUE(bin);
  EXPECT_EQ(bin->at(0).gpu, 0);
  n.gpus[0].healthy = false;
  EXPECT_FALSE(ChooseMig(n, {{"1g.10gb", 1}}, {}, DevicePolicy::kBinpack, &reason));
}

DeviceRequest Vgpu(int number, int64_t memory, int cores) {
  DeviceRequest r;
  r.vgpu_number = number;
  r.vgpu_memory_mib = memory;
  r.vgpu_cores = cores;
  return r;
}

TEST(ChooseSharesTest, MemoryAndCoresLimits) {
  Node n = MakeNode("A100-80GB", 1, {});
  ShareState st;
  st.shares = {0};
  std::string reason;
  auto a = ChooseShares(n, Vgpu(1, 40000, 30), st, DevicePolicy::kBinpack, &reason);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->at(0).memory_mib, 40000);
  EXPECT_EQ(a->at(0).cores_percent, 30);
  EXPECT_EQ(a->at(0).milli, 300);
  Hold(n, *a);
  st.shares = {1};
  EXPECT_FALSE(ChooseShares(n, Vgpu(1, 41921, 10), st, DevicePolicy::kBinpack, &reason));
  EXPECT_EQ(reason, "node(s) had insufficient GPU memory for the share");
  EXPECT_FALSE(ChooseShares(n, Vgpu(1, 1000, 71), st, DevicePolicy::kBinpack, &reason));
  EXPECT_EQ(reason, "node(s) had insufficient GPU cores for the share");
  EXPECT_TRUE(ChooseShares(n, Vgpu(1, 41920, 70), st, DevicePolicy::kBinpack, &reason));
  // Exclusive (100%) needs an unshared device.
  EXPECT_FALSE(ChooseShares(n, Vgpu(1, 1000, 100), st, DevicePolicy::kBinpack, &reason));
  // No memory given: the whole device's memory, as in Volcano.
  EXPECT_FALSE(ChooseShares(n, Vgpu(1, 0, 0), st, DevicePolicy::kBinpack, &reason));
  // Split count.
  st.shares = {kDefaultSplitCount};
  EXPECT_FALSE(ChooseShares(n, Vgpu(1, 1, 0), st, DevicePolicy::kBinpack, &reason));
  EXPECT_EQ(reason, "node(s) had too few GPUs free for sharing");
}

TEST(ChooseSharesTest, NeverOnWholeMigOrUnhealthyDevices) {
  Node n = MakeNode("H100-80GB", 4, {{1, {"7g.80gb"}}});
  Hold(n, {{0, 1000, 0, 0, -1}});  // GPU 0 held whole
  n.gpus[2].healthy = false;
  ShareState st;
  st.shares = {0, 0, 0, 0};
  std::string reason;
  auto c = ChooseShares(n, Vgpu(1, 100, 10), st, DevicePolicy::kBinpack, &reason);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->at(0).gpu, 3);
  EXPECT_FALSE(ChooseShares(n, Vgpu(2, 100, 10), st, DevicePolicy::kBinpack, &reason));
}

TEST(ChooseSharesTest, BinpackFillsSpreadSpreadsDistinctDevices) {
  Node n = MakeNode("H100-80GB", 3, {});
  Hold(n, {{1, 200, 20000, 20, -1}});
  ShareState st;
  st.shares = {0, 1, 0};
  std::string reason;
  auto bin = ChooseShares(n, Vgpu(1, 10000, 10), st, DevicePolicy::kBinpack, &reason);
  auto spread = ChooseShares(n, Vgpu(1, 10000, 10), st, DevicePolicy::kSpread, &reason);
  ASSERT_TRUE(bin && spread);
  EXPECT_EQ(bin->at(0).gpu, 1);
  EXPECT_EQ(spread->at(0).gpu, 0);
  auto two = ChooseShares(n, Vgpu(2, 10000, 10), st, DevicePolicy::kBinpack, &reason);
  ASSERT_TRUE(two);
  EXPECT_NE(two->at(0).gpu, two->at(1).gpu);
  EXPECT_GT(ScoreChoice(n, *bin, DevicePolicy::kBinpack),
            ScoreChoice(n, *spread, DevicePolicy::kBinpack));
  EXPECT_GT(ScoreChoice(n, *spread, DevicePolicy::kSpread),
            ScoreChoice(n, *bin, DevicePolicy::kSpread));
}

TEST(ChooseSharesTest, LegacyMemoryShareAndModels) {
  Node n = MakeNode("H100-80GB", 2, {});
  n.gpus[1].model = "A100-80GB";
  ShareState st;
  st.shares = {0, 0};
  st.models = {"a100-80gb"};
  DeviceRequest r;
  r.gpu_memory_mib = 8000;
  std::string reason;
  auto c = ChooseShares(n, r, st, DevicePolicy::kBinpack, &reason);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->at(0).gpu, 1);
  EXPECT_EQ(c->at(0).milli, 0);
  EXPECT_EQ(c->at(0).memory_mib, 8000);
}

TEST(DeviceRequestTest, ParsesDeviceResources) {
  ResourceVector v = testkit::Res(
      "volcano.sh/vgpu-number=2,volcano.sh/vgpu-memory=3000,volcano.sh/vgpu-cores=25,"
      "nvidia.com/mig-2g.20gb=1,cpu=1");
  DeviceRequest r = ParseDeviceRequest(v, DeviceResourceIds::Lookup());
  EXPECT_EQ(r.vgpu_number, 2);
  EXPECT_EQ(r.vgpu_memory_mib, 3000);
  EXPECT_EQ(r.vgpu_cores, 25);
  ASSERT_EQ(r.mig.size(), 1u);
  EXPECT_EQ(r.mig[0].profile, "2g.20gb");
  EXPECT_EQ(r.mig[0].count, 1);
  DeviceRequest plain =
      ParseDeviceRequest(testkit::Res("nvidia.com/gpu=2"), DeviceResourceIds::Lookup());
  EXPECT_FALSE(plain.Any());
  EXPECT_EQ(plain.gpu_milli, 2000);
}

TEST(DeviceRequestTest, GpuModels) {
  EXPECT_EQ(ParseGpuModels("V100M16|V100M32"), (std::vector<std::string>{"V100M16", "V100M32"}));
  EXPECT_EQ(ParseGpuModels(" A100 , H100 "), (std::vector<std::string>{"A100", "H100"}));
  EXPECT_TRUE(ParseGpuModels("").empty());
  EXPECT_TRUE(GpuModelAllowed({}, "anything"));
  EXPECT_TRUE(GpuModelAllowed({"h100"}, "H100"));
  EXPECT_FALSE(GpuModelAllowed({"A100"}, "H100"));
}

TEST(InventoryTest, AdvertisesMixedStrategy) {
  NodeGpuSpec spec{"n", "A100-40GB",
                   4,   1,
                   0,   {{2, {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}, {3, {"7g.40gb"}}}};
  auto gpus = BuildGpus(spec);
  ASSERT_TRUE(gpus.ok());
  (*gpus)[1].healthy = false;
  ResourceVector a;
  ASSERT_TRUE(AdvertiseDevices(*gpus, {10, false}, &a).ok());
  auto id = [](const char* name) { return *ResourceNames::Global().Find(name); };
  EXPECT_EQ(a.Get(kGpu), 1000);  // GPU 0 only
  EXPECT_EQ(a.Get(id("nvidia.com/mig-1g.5gb")), 2000);
  EXPECT_EQ(a.Get(id("nvidia.com/mig-7g.40gb")), 1000);
  EXPECT_EQ(a.Get(id(kVgpuNumber)), 10'000);
  EXPECT_EQ(a.Get(id(kVgpuMemory)), 40960'000);
  spec.mig[0] = {"4g.20gb", "4g.20gb"};
  EXPECT_FALSE(BuildGpus(spec).ok());
}

}  // namespace
}  // namespace etna::sched::devices
