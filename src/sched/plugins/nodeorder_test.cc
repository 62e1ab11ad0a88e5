#include "sched/plugins/nodeorder.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>

#include "sched/framework/registry.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::Res;
using testkit::Schedule;
using E = Taint::Effect;

// Every score off except those a case turns on.
std::string ConfWith(const std::string& weights) {
  return fmt::format(R"(
actions: "allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: predicates
  - name: nodeorder
    arguments:
      leastrequested.weight: 0
      mostrequested.weight: 0
      balancedresource.weight: 0
      nodeaffinity.weight: 0
      podaffinity.weight: 0
      tainttoleration.weight: 0
{})",
                     weights);
}

std::shared_ptr<PodSpec> Spec(const std::function<void(PodSpec&)>& fill) {
  auto spec = std::make_shared<PodSpec>();
  fill(*spec);
  return spec;
}

TEST(NodeOrderTest, KubeResourceScores) {
  Node n;
  n.allocatable = Res("cpu=10,memory=10Gi");
  n.used = Res("cpu=2,memory=6Gi");
  Task t;
  t.request = Res("cpu=2,memory=2Gi");
  // After the task: cpu 40% used, memory 80% used.
  EXPECT_EQ(NodeOrderPlugin::LeastRequested(t, n), (60 + 20) / 2);
  EXPECT_EQ(NodeOrderPlugin::MostRequested(t, n), (40 + 80) / 2);
  EXPECT_EQ(NodeOrderPlugin::BalancedResource(t, n), 80);  // 100 × (1 − |0.4 − 0.8| / 2)
  t.request = Res("cpu=20");
  EXPECT_EQ(NodeOrderPlugin::LeastRequested(t, n), (0 + 40) / 2) << "overflow scores 0";
}

struct Case {
  const char* name;
  const char* weights;
  std::function<void(ClusterBuilder&)> cluster;
  std::shared_ptr<PodSpec> spec;
  std::string want_node;
};

void TwoNodes(ClusterBuilder& b) {
  b.Node("n1").Resources("cpu=16,memory=64Gi").Label("zone", "a");
  b.Node("n2").Resources("cpu=16,memory=64Gi").Label("zone", "b");
}

TEST(NodeOrderTest, ScoresPickTheNode) {
  auto busy_n1 = [](ClusterBuilder& b) {
    TwoNodes(b);
    b.Job("other").Running("w", 1, "cpu=8,memory=32Gi", "n1").LastTaskLabels({{"app", "db"}});
  };
  auto busy_n2 = [](ClusterBuilder& b) {
    TwoNodes(b);
    b.Job("other").Running("w", 1, "cpu=8,memory=32Gi", "n2").LastTaskLabels({{"app", "db"}});
  };
  auto cpu_heavy_n1 = [](ClusterBuilder& b) {
    TwoNodes(b);
    b.Job("other").Running("w", 1, "cpu=8", "n1");
    b.Job("other2").Running("w", 1, "cpu=4,memory=16Gi", "n2");
  };
  PodAffinityTerm db;
  db.selector.match_labels = {{"app", "db"}};
  db.topology_key = "zone";
  const Case cases[] = {
      {"least requested spreads", "      leastrequested.weight: 1", busy_n1, nullptr, "n2"},
      {"least requested spreads (mirrored)", "      leastrequested.weight: 1", busy_n2, nullptr,
       "n1"},
      {"most requested packs", "      mostrequested.weight: 1", busy_n1, nullptr, "n1"},
      {"balanced resource prefers the even node", "      balancedresource.weight: 1", cpu_heavy_n1,
       nullptr, "n2"},
      {"preferred node affinity", "      nodeaffinity.weight: 1", TwoNodes, Spec([](PodSpec& p) {
         p.node_affinity_preferred = {{10, {{{"zone", SelectorRequirement::Op::kIn, {"a"}}}, {}}},
                                      {50, {{{"zone", SelectorRequirement::Op::kIn, {"b"}}}, {}}}};
       }),
       "n2"},
      {"preferred node affinity outweighs least requested",
       "      nodeaffinity.weight: 2\n      leastrequested.weight: 1", busy_n1,
       Spec([](PodSpec& p) {
         p.node_affinity_preferred = {{5, {{{"zone", SelectorRequirement::Op::kIn, {"a"}}}, {}}}};
       }),
       "n1"},
      {"PreferNoSchedule taint is avoided", "      tainttoleration.weight: 1",
       [](ClusterBuilder& b) {
         b.Node("n1").Resources("cpu=16,memory=64Gi").Taint("spot", "true", E::kPreferNoSchedule);
         b.Node("n2").Resources("cpu=16,memory=64Gi");
       },
       nullptr, "n2"},
      {"a tolerated PreferNoSchedule taint is not", "      tainttoleration.weight: 1",
       [](ClusterBuilder& b) {
         b.Node("n1").Resources("cpu=16,memory=64Gi").Taint("gpu", "old", E::kPreferNoSchedule);
         b.Node("n2").Resources("cpu=16,memory=64Gi").Taint("spot", "true", E::kPreferNoSchedule);
       },
       Spec([](PodSpec& p) {
         p.tolerations = {{"spot", Toleration::Op::kExists, "", false, E::kPreferNoSchedule}};
       }),
       "n2"},
      {"preferred pod affinity", "      podaffinity.weight: 1", busy_n2, Spec([db](PodSpec& p) {
         p.pod_affinity_preferred = {{10, db}};
       }),
       "n2"},
      {"preferred pod anti-affinity", "      podaffinity.weight: 1", busy_n1,
       Spec([db](PodSpec& p) {
         p.pod_anti_affinity_preferred = {{10, db}};
       }),
       "n2"},
      {"preferred pod affinity outweighs least requested",
       "      podaffinity.weight: 2\n      leastrequested.weight: 1", busy_n1,
       Spec([db](PodSpec& p) {
         p.pod_affinity_preferred = {{10, db}};
       }),
       "n1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ClusterBuilder b;
    c.cluster(b);
    b.Job("j").Tasks("w", 1, "cpu=2,memory=4Gi", c.spec);
    auto binds = BindMap(Schedule(b.Build(), ConfWith(c.weights)));
    ASSERT_EQ(binds.count("j-w-0"), 1u);
    EXPECT_EQ(binds["j-w-0"], c.want_node);
  }
}

TEST(NodeOrderTest, ScoresAreScaledByWeight) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=10,memory=10Gi");
  b.Job("j").Tasks("w", 1, "cpu=2,memory=2Gi");
  Snapshot snap = b.Build();
  SchedulerConf conf = testkit::Conf(ConfWith("      leastrequested.weight: 3"));
  Session s(snap, conf, BuiltinRegistry());
  ASSERT_TRUE(s.Open().ok());
  EXPECT_DOUBLE_EQ(s.NodeScore(s.tasks()[0], s.nodes()[0]), 3.0 * 80);
}

TEST(NodeOrderTest, DocumentedNoOpWeightsAreAcceptedOthersRejected) {
  struct ArgCase {
    const char* args;
    bool ok;
  };
  for (const auto& c :
       {ArgCase{"      imagelocality.weight: 1\n      podtopologyspread.weight: 2", true},
        ArgCase{"      leastrequested.weight: -1", false},
        ArgCase{"      nodeaffinity.weight: heavy", false},
        ArgCase{"      bogus.weight: 1", false}}) {
    SCOPED_TRACE(c.args);
    auto conf = ParseSchedulerConf(ConfWith(c.args), BuiltinRegistry());
    EXPECT_EQ(conf.ok(), c.ok) << conf.status().ToString();
  }
}

}  // namespace
}  // namespace etna::sched
