#include "agent/gpu/cluster_profile.h"

#include <gtest/gtest.h>

#include <set>

#include "api/types/well_known.h"

namespace etna::agent {
namespace {

TEST(ClusterProfile, DevProfileDeclaresTheDefaultCluster) {
  auto nodes = LoadClusterProfile(std::string(ETNA_SOURCE_DIR) + "/examples/clusters/dev.yaml");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  ASSERT_EQ(nodes->size(), 8u);
  std::set<std::string> uuids;
  int h100 = 0, a100 = 0, t4 = 0;
  for (const auto& n : *nodes) {
    for (const auto& g : n.gpus) uuids.insert(g.uuid);
    if (n.name.rfind("h100-", 0) == 0) {
      ++h100;
      EXPECT_EQ(n.switch_name, "sw-a");
      ASSERT_EQ(n.gpus.size(), 8u);
      for (const auto& g : n.gpus) EXPECT_EQ(g.nvlink_domain, 0);
      EXPECT_EQ(n.gpus[7].model, "NVIDIA-H100-80GB-HBM3");
    } else if (n.name.rfind("a100mig-", 0) == 0) {
      ++a100;
      EXPECT_EQ(n.switch_name, "sw-b");
      ASSERT_EQ(n.gpus.size(), 4u);
      EXPECT_EQ(n.gpus[3].nvlink_domain, 1);  // pairs: 0-1, 2-3
      ASSERT_EQ(n.gpus[0].mig.size(), 4u);
      EXPECT_EQ(n.gpus[0].mig[0].profile, "1g.10gb");
      EXPECT_EQ(n.gpus[0].mig[3].profile, "3g.40gb");
    } else {
      ++t4;
      EXPECT_EQ(n.gpus.size(), 2u);
      EXPECT_EQ(n.gpus[0].nvlink_domain, -1);
    }
  }
  EXPECT_EQ(h100, 4);
  EXPECT_EQ(a100, 2);
  EXPECT_EQ(t4, 2);
  EXPECT_EQ(uuids.size(), 4u * 8 + 2 * 4 + 2 * 2);  // every GPU its own UUID
}

TEST(ClusterProfile, UuidsAreStableAndWellFormed) {
  EXPECT_EQ(SimulatedGpuUuid("h100-0", 3), SimulatedGpuUuid("h100-0", 3));
  EXPECT_NE(SimulatedGpuUuid("h100-0", 3), SimulatedGpuUuid("h100-1", 3));
  std::string u = SimulatedGpuUuid("n", 0);
  ASSERT_EQ(u.size(), 40u);
  EXPECT_EQ(u.substr(0, 4), "GPU-");
  EXPECT_EQ(u[12], '-');
}

TEST(ClusterProfile, PerIndexMigLayoutLabelsAndTaints) {
  auto nodes = ParseClusterProfile(R"(
nodeGroups:
- name: m
  labels: {team: a}
  taints: [{key: gpu, value: "yes", effect: NoSchedule}]
  gpus: {model: NVIDIA-A100-SXM4-80GB, count: 2, memoryMiB: 81920, mig: {1: ["7g.80gb"]}}
)");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  ASSERT_EQ(nodes->size(), 1u);
  const NodeSpec& n = (*nodes)[0];
  EXPECT_EQ(n.name, "m-0");
  EXPECT_EQ(n.labels.at("team"), "a");
  EXPECT_EQ(n.taints[0]["effect"], "NoSchedule");
  EXPECT_TRUE(n.gpus[0].mig.empty());
  ASSERT_EQ(n.gpus[1].mig.size(), 1u);
  EXPECT_EQ(n.gpus[1].mig[0].profile, "7g.80gb");
}

TEST(ClusterProfile, ErrorsNameTheField) {
  struct Case {
    const char* yaml;
    const char* field;
  };
  for (const Case& c : {
           Case{"nodeGroups: [{name: a}, {name: b, gpus: {model: X, count: -1, memoryMiB: 1}}]",
                "nodeGroups[1].gpus.count: must be >= 0"},
           Case{"nodeGroups: [{name: a, gpus: {model: X, count: 1, memoryMiB: 1, nvlink: ring}}]",
                "nodeGroups[0].gpus.nvlink"},
           Case{"nodeGroups: [{name: a, gpus: {model: NVIDIA-A100-SXM4-80GB, count: 1, "
                "memoryMiB: 1, mig: [\"9g.99gb\"]}}]",
                "nodeGroups[0].gpus.mig"},
           Case{"nodeGroups: [{name: a, cpu: lots}]", "nodeGroups[0].cpu"},
           Case{"nodeGroups: [{name: a, colour: red}]", "nodeGroups[0].colour: unknown field"},
           Case{"nodeGroups: [{name: a}, {name: a}]", "nodeGroups[1].name: node a-0"},
           Case{"nodes: []", "nodeGroups: required"},
           Case{"nodeGroups: [{count: 1}]", "nodeGroups[0].name: required"},
       }) {
    auto r = ParseClusterProfile(c.yaml);
    ASSERT_FALSE(r.ok()) << c.yaml;
    EXPECT_NE(r.status().message().find(c.field), std::string::npos)
        << c.yaml << " -> " << r.status().message();
  }
}

TEST(ClusterProfile, FindProfileNodeListsTheNodesOnAMiss) {
  auto nodes = ParseClusterProfile("nodeGroups: [{name: a, count: 2}]");
  ASSERT_TRUE(nodes.ok());
  EXPECT_TRUE(FindProfileNode(*nodes, "a-1").ok());
  auto miss = FindProfileNode(*nodes, "b-0");
  ASSERT_FALSE(miss.ok());
  EXPECT_NE(miss.status().message().find("a-0, a-1"), std::string::npos);
}

}  // namespace
}  // namespace etna::agent
