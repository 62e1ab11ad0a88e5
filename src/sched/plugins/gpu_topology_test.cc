#include "sched/plugins/gpu_topology.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "sched/framework/registry.h"
#include "sched/framework/session.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::Schedule;

// 8 GPUs: domain 0 = 0..3, domain 1 = 4..7; PCIe switch = index / 2; `busy` GPUs held whole.
Node EightGpus(std::vector<int> busy) {
  ClusterBuilder b;
  b.Node("n").Resources("cpu=64,memory=512Gi").Gpus(8, "H100", 2);
  Node n = b.Build().nodes[0];
  for (auto& g : n.gpus) g.pcie_switch = g.index / 2;
  for (int i : busy) n.gpus[i].used_milli = 1000;
  return n;
}

std::vector<int32_t> Indices(const std::optional<std::vector<DeviceAllocation>>& d) {
  std::vector<int32_t> out;
  if (d) {
    for (const auto& a : *d) out.push_back(a.gpu);
  }
  return out;
}

TEST(GpuTopologyTest, ChoosesDevicesByNvlinkThenPcie) {
  struct Case {
    const char* name;
    std::vector<int> busy;
    int count;
    std::vector<int32_t> want;
    bool pcie_preferred = false;
  };
  const Case cases[] = {
      {"tightest domain that fits", {0}, 3, {1, 2, 3}},
      {"never split when a domain has room", {0}, 2, {2, 3}},  // same PCIe switch inside
      {"the bigger domain when only it fits", {0}, 4, {4, 5, 6, 7}},
      {"nvlink before pcie", {0, 2}, 2, {1, 3}},
      {"pciePreferred: pcie before nvlink", {0, 2}, 2, {4, 5}, true},
      {"split: largest domain, then tightest for the rest", {0}, 5, {1, 4, 5, 6, 7}},
      {"not enough free GPUs", {0, 1, 2, 3, 4}, 4, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Node n = EightGpus(c.busy);
    GpuTopologyPlugin::Options o;
    o.pcie_preferred = c.pcie_preferred;
    EXPECT_EQ(Indices(GpuTopologyPlugin::Choose(o, n, c.count)), c.want);
  }
}

TEST(GpuTopologyTest, ScorePrefersOneDomainAndTightFit) {
  Node whole = EightGpus({});                  // a domain of 4 free
  Node tight = EightGpus({0, 1});              // domain 0: exactly 2 free
  Node split = EightGpus({0, 1, 2, 4, 5, 6});  // one free per domain
  EXPECT_GT(GpuTopologyPlugin::Score(tight, 2), GpuTopologyPlugin::Score(whole, 2));
  EXPECT_GT(GpuTopologyPlugin::Score(whole, 2), GpuTopologyPlugin::Score(split, 2));
  EXPECT_DOUBLE_EQ(GpuTopologyPlugin::Score(split, 2), 25.0);
  EXPECT_DOUBLE_EQ(GpuTopologyPlugin::Score(split, 3), 0.0);
}

constexpr char kConf[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: gang
  - name: predicates
  - name: gpu-topology
)";

// A node of 8 GPUs in 4 NVLink domains of 2: no domain holds 4.
Snapshot FourGpuTask(bool required, bool with_whole_node) {
  ClusterBuilder b;
  b.Node("split").Resources("cpu=64,memory=512Gi").Gpus(8, "H100", 4);
  if (with_whole_node) {
    b.Node("whole").Resources("cpu=64,memory=512Gi").Gpus(8, "H100", 1);
    b.Job("busy").Running("w", 1, "cpu=1,nvidia.com/gpu=2", "whole");  // 6 left in one domain
  }
  auto spec = std::make_shared<PodSpec>();
  spec->require_full_nvlink = required;
  b.Job("train").Tasks("w", 1, "cpu=1,nvidia.com/gpu=4", spec);
  return b.Build();
}

TEST(GpuTopologyTest, PreferredTopologyFullIsARequirement) {
  Snapshot snap = FourGpuTask(/*required=*/true, /*with_whole_node=*/false);
  Decision d = Schedule(snap, kConf);
  EXPECT_TRUE(d.binds.empty());
  const JobUpdate* u = testkit::FindJob(d, snap, "train");
  ASSERT_NE(u, nullptr);
  EXPECT_NE(u->message.find("node(s) had no NVLink domain with 4 free GPUs"), std::string::npos)
      << u->message;
}

TEST(GpuTopologyTest, SplitsAcrossDomainsWhenNotRequired) {
  Snapshot snap = FourGpuTask(/*required=*/false, /*with_whole_node=*/false);
  Decision d = Schedule(snap, kConf);
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(d.binds[0].node, "split");
  EXPECT_EQ(d.binds[0].gpu_indices, (std::vector<int32_t>{0, 1, 2, 3}));  // two whole domains
}

TEST(GpuTopologyTest, RequiredTaskGoesWhereOneDomainHasRoom) {
  for (bool required : {true, false}) {
    SCOPED_TRACE(required ? "required" : "preferred (score)");
    Snapshot snap = FourGpuTask(required, /*with_whole_node=*/true);
    Decision d = Schedule(snap, kConf);
    EXPECT_EQ(BindMap(d), (std::map<std::string, std::string>{{"train-w-0", "whole"}}));
  }
}

TEST(GpuTopologyTest, BadArgumentIsNamed) {
  Arguments args(std::map<std::string, std::string>{{"gpu-topology.weight", "-1"}});
  PluginBuildContext ctx{args};
  auto plugin = GpuTopologyPlugin::Create(ctx);
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(plugin.status().message().find("gpu-topology.weight"), std::string::npos)
      << plugin.status().message();
}

}  // namespace
}  // namespace etna::sched
