#include "agent/gpu/cluster_profile.h"

#include <fmt/format.h>
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

// Found by src/fuzz/cluster_profile_fuzz.cc: a name, label or taint that is not UTF-8 was
// accepted, and the agent threw when it wrote the Node as JSON.
TEST(ClusterProfile, RejectsStringsThatAreNotUtf8) {
  struct Case {
    std::string yaml;
    const char* field;
  };
  for (const Case& c : {
           Case{"nodeGroups: [{name: \"a\xff\"}]", "nodeGroups[0].name: is not valid UTF-8"},
           Case{"nodeGroups: [{name: a, switch: \"\xc3\"}]", "nodeGroups[0].switch"},
           Case{"nodeGroups: [{name: a, labels: {\"k\xfe\": v}}]", "nodeGroups[0].labels key"},
           Case{"nodeGroups: [{name: a, labels: {k: \"\xe2\x82\"}}]", "nodeGroups[0].labels.k"},
           Case{"nodeGroups: [{name: a, taints: [{key: \"\xc0\x80\", effect: NoSchedule}]}]",
                "nodeGroups[0].taints[0].key"},
           Case{"nodeGroups: [{name: a, taints: [{key: k, value: \"v\xff\", effect: "
                "NoSchedule}]}]",
                "nodeGroups[0].taints[0].value"},
           Case{"nodeGroups: [{name: a, gpus: {model: \"T\xff\", count: 1, memoryMiB: 1}}]",
                "nodeGroups[0].gpus.model"},
       }) {
    auto r = ParseClusterProfile(c.yaml);
    ASSERT_FALSE(r.ok()) << c.yaml;
    EXPECT_NE(r.status().message().find(c.field), std::string::npos)
        << c.yaml << " -> " << r.status().message();
  }
  auto ok = ParseClusterProfile("nodeGroups: [{name: a, labels: {zone: \"同一节点\"}}]");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].labels.at("zone"), "同一节点");
}

// Inputs written for src/fuzz/cluster_profile_fuzz.cc: `count: 100000000` built every node before
// any check and ran out of memory.
TEST(ClusterProfile, BoundsTheNumberOfNodes) {
  auto big = ParseClusterProfile("nodeGroups: [{name: a, count: 100000000}]");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("nodeGroups[0].count: a profile declares at most 10000"),
            std::string::npos)
      << big.status().message();
  auto over = ParseClusterProfile("nodeGroups: [{name: a, count: 6000}, {name: b, count: 5000}]");
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("nodeGroups[1].count"), std::string::npos)
      << over.status().message();
  auto full = ParseClusterProfile("nodeGroups: [{name: a, count: 6000}, {name: b, count: 4000}]");
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(full->size(), 10000u);
  // And each node copies its group's labels: 10000 nodes of 3000 labels (38 KB of YAML) were 30
  // million labels.
  std::string labels = "nodeGroups:\n- name: a\n  count: 10000\n  labels:\n";
  for (int i = 0; i < 101; ++i) labels += fmt::format("    k{}: v\n", i);
  auto copied = ParseClusterProfile(labels);
  ASSERT_FALSE(copied.ok());
  EXPECT_NE(copied.status().message().find(
                "nodeGroups[0]: 10000 nodes of 101 labels, taints, GPUs and MIG instances each"),
            std::string::npos)
      << copied.status().message();
  auto pods = ParseClusterProfile("nodeGroups: [{name: a, pods: 4294967297}]");
  ASSERT_FALSE(pods.ok());
  EXPECT_NE(pods.status().message().find("nodeGroups[0].pods: must be <= 2147483647"),
            std::string::npos)
      << pods.status().message();
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
