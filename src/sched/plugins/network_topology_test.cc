#include "sched/plugins/network_topology.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "sched/framework/registry.h"
#include "sched/framework/session.h"
#include "sched/model/hypernode.h"
#include "sched/plugins/member_nodes.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::Schedule;
using Mode = Job::NetworkTopology::Mode;
using Binds = std::map<std::string, std::string>;

constexpr char kSwitch[] = "topology.etna.io/switch";

constexpr char kConf[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: gang
  - name: predicates
  - name: network-topology-aware
    arguments:
      weight: 1
      intraNodePenalty: 0
      interNodePenalty: 50
)";
constexpr char kConfWithout[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: gang
  - name: predicates
)";

// Adds an 8-GPU node under `sw` with `busy` GPUs held by a running task.
void GpuNode(ClusterBuilder& b, const std::string& name, const std::string& sw, int busy) {
  b.Node(name).Resources("cpu=64,memory=512Gi").Gpus(8).Label(kSwitch, sw);
  if (busy > 0) {
    b.Job("busy-" + name).Running("w", 1, "cpu=1,nvidia.com/gpu=" + std::to_string(busy), name);
  }
}

// A gang of four 2-GPU tasks.
Snapshot WithGang(ClusterBuilder& b, Mode mode, int32_t highest_tier = 1) {
  b.Job("gang").MinAvailable(4).Tasks("w", 4, "cpu=1,nvidia.com/gpu=2");
  Snapshot snap = b.Build();
  for (Job& j : snap.jobs) {
    if (j.name == "gang") j.network_topology = {mode, highest_tier};
  }
  return snap;
}

Binds GangBinds(const Decision& d) {
  Binds out;
  for (const auto& [pod, node] : BindMap(d)) {
    if (pod.rfind("gang-", 0) == 0) out[pod] = node;
  }
  return out;
}

Binds All(const std::string& a, const std::string& b, const std::string& c, const std::string& e) {
  return {{"gang-w-0", a}, {"gang-w-1", b}, {"gang-w-2", c}, {"gang-w-3", e}};
}

TEST(HyperNodeIndexTest, LabelsAndDistances) {
  ClusterBuilder b;
  b.Node("a").Label(kSwitch, "s1").Label("topology.kubernetes.io/zone", "z");
  b.Node("b").Label("volcano.sh/hypernode", "s1");
  b.Node("c").Label("topology.kubernetes.io/zone", "z");
  b.Node("d");
  Snapshot snap = b.Build();
  HyperNodeIndex idx(snap.nodes, snap.hypernodes);
  ASSERT_EQ(idx.hypernodes().size(), 3u);  // switch=s1, hypernode=s1, zone=z
  EXPECT_EQ(idx.Distance(0, 0), 0);
  EXPECT_EQ(idx.Distance(0, 2), 2);  // a is under its switch label, not the zone
  EXPECT_EQ(idx.Distance(0, 3), 2);

  // Explicit HyperNodes: s1 = {a, b}, s2 = {c}, spine (tier 2) = {s1, s2}.
  snap.hypernodes = {{"s1", 1, {0, 1}, {}}, {"s2", 1, {2}, {}}, {"spine", 2, {}, {0, 1}}};
  HyperNodeIndex h(snap.nodes, snap.hypernodes);
  EXPECT_EQ(h.Distance(0, 1), 1);
  EXPECT_EQ(h.Distance(0, 2), 2);
  EXPECT_EQ(h.Distance(0, 3), 3);
  EXPECT_EQ(h.Members(2), (std::vector<NodeIdx>{0, 1, 2}));
}

// The members' distances from a candidate, grouped: by ForEachMemberDistance, and by one
// Distance per member node (what the scores used to do).
std::map<int32_t, int> GroupedDistances(const HyperNodeIndex& h, const MemberNodes& m, NodeIdx c) {
  std::map<int32_t, int> out;
  ForEachMemberDistance(h, m, c, [&](int32_t d, int count) { out[d] += count; });
  return out;
}
std::map<int32_t, int> DistancesOneByOne(const HyperNodeIndex& h, const MemberNodes& m, NodeIdx c) {
  std::map<int32_t, int> out;
  for (const auto& [node, count] : m.nodes) out[h.Distance(c, node)] += count;
  return out;
}

TEST(HyperNodeIndexTest, MemberDistancesFromPerHypernodeCountsMatchDistanceNodeByNode) {
  ClusterBuilder b;
  for (const char* n : {"n0", "n1", "n2", "n3", "n4", "n5"}) b.Node(n);
  Snapshot snap = b.Build();
  // A tree: s1 = {n0, n1}, s2 = {n2, n3}, s3 = {n4}, spine (tier 2) = {s1, s2}; n5 in none.
  snap.hypernodes = {
      {"s1", 1, {0, 1}, {}}, {"s2", 1, {2, 3}, {}}, {"s3", 1, {4}, {}}, {"spine", 2, {}, {0, 1}}};
  HyperNodeIndex tree(snap.nodes, snap.hypernodes);
  EXPECT_TRUE(tree.nested());
  MemberNodes m;
  m.members = 8;
  m.nodes = {{0, 2}, {1, 1}, {2, 3}, {4, 1}, {5, 1}};
  CountPerHypernode(&tree, &m);
  ASSERT_FALSE(m.per_hypernode.empty());
  EXPECT_EQ(m.per_hypernode, (std::vector<int>{3, 3, 1, 6}));
  for (NodeIdx c = 0; c < 6; ++c) {
    EXPECT_EQ(GroupedDistances(tree, m, c), DistancesOneByOne(tree, m, c)) << "candidate " << c;
  }
  EXPECT_EQ(GroupedDistances(tree, m, 0), (std::map<int32_t, int>{{0, 2}, {1, 1}, {2, 3}, {3, 2}}));
  m.per_node = {2, 1, 3, 0, 1, 1};  // the dense counts a MemberNodesCache keeps: the same answer
  for (NodeIdx c = 0; c < 6; ++c) {
    EXPECT_EQ(GroupedDistances(tree, m, c), DistancesOneByOne(tree, m, c)) << "dense, " << c;
  }
  m.per_node.clear();

  // Overlapping switches (n1 in both a and b) do not nest: distances come node by node.
  snap.hypernodes = {{"a", 1, {0, 1}, {}}, {"b", 1, {1, 2}, {}}};
  HyperNodeIndex overlap(snap.nodes, snap.hypernodes);
  EXPECT_FALSE(overlap.nested());
  CountPerHypernode(&overlap, &m);
  EXPECT_TRUE(m.per_hypernode.empty());
  for (NodeIdx c = 0; c < 6; ++c) {
    EXPECT_EQ(GroupedDistances(overlap, m, c), DistancesOneByOne(overlap, m, c)) << c;
  }
}

TEST(NetworkTopologyTest, GangLandsOnOneNodeWhenOneHasRoom) {
  auto cluster = [] {
    ClusterBuilder b;
    GpuNode(b, "half", "s1", 4);   // room for two tasks (and tightest, so first without the plugin)
    GpuNode(b, "empty", "s1", 0);  // room for all four
    return WithGang(b, Mode::kNone);
  };
  EXPECT_EQ(GangBinds(Schedule(cluster(), kConf)), All("empty", "empty", "empty", "empty"));
  EXPECT_NE(GangBinds(Schedule(cluster(), kConfWithout)), All("empty", "empty", "empty", "empty"));
}

// s1: two nodes with room for two tasks each; s2: room for three tasks, one node tighter.
Snapshot SwitchCluster(Mode mode) {
  ClusterBuilder b;
  GpuNode(b, "s1a", "s1", 4);
  GpuNode(b, "s1b", "s1", 4);
  GpuNode(b, "s2a", "s2", 4);
  GpuNode(b, "s2b", "s2", 6);
  return WithGang(b, mode);
}

TEST(NetworkTopologyTest, GangStaysUnderOneSwitchWhenNoNodeHoldsIt) {
  for (Mode mode : {Mode::kNone, Mode::kSoft, Mode::kHard}) {
    SCOPED_TRACE(static_cast<int>(mode));
    Binds got = GangBinds(Schedule(SwitchCluster(mode), kConf));
    EXPECT_EQ(got, All("s1a", "s1a", "s1b", "s1b"));
  }
  // Without the plugin the tightest node (under s2) is taken first.
  EXPECT_EQ(GangBinds(Schedule(SwitchCluster(Mode::kNone), kConfWithout)).at("gang-w-0"), "s2b");
}

TEST(NetworkTopologyTest, HardModeWithoutPluginPicksTheSwitchThatHoldsTheGang) {
  // s1 holds two tasks (tightest nodes), s2 holds four: hard mode keeps the gang inside s2.
  ClusterBuilder b;
  GpuNode(b, "s1a", "s1", 6);
  GpuNode(b, "s1b", "s1", 6);
  GpuNode(b, "s2a", "s2", 4);
  GpuNode(b, "s2b", "s2", 4);
  Binds got = GangBinds(Schedule(WithGang(b, Mode::kHard), kConfWithout));
  ASSERT_EQ(got.size(), 4u);
  for (const auto& [pod, node] : got) EXPECT_EQ(node.substr(0, 2), "s2") << pod;
}

// Room for two tasks under each of two switches: the gang fits only across switches.
Snapshot SpanningCluster(Mode mode, int32_t highest_tier, bool spine) {
  ClusterBuilder b;
  GpuNode(b, "s1a", "s1", 4);
  GpuNode(b, "s2a", "s2", 4);
  Snapshot snap = WithGang(b, mode, highest_tier);
  if (spine) {
    snap.hypernodes = {{"s1", 1, {0}, {}}, {"s2", 1, {1}, {}}, {"spine", 2, {}, {0, 1}}};
  }
  return snap;
}

TEST(NetworkTopologyTest, HardModeRejectsAPlacementAcrossSwitches) {
  Snapshot snap = SpanningCluster(Mode::kHard, 1, /*spine=*/false);
  Decision d = Schedule(snap, kConf);
  EXPECT_TRUE(GangBinds(d).empty());
  const JobUpdate* u = testkit::FindJob(d, snap, "gang");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->reason, "NotEnoughResources");
  EXPECT_NE(u->message.find("no hypernode of tier <= 1"), std::string::npos) << u->message;
}

TEST(NetworkTopologyTest, HardModeHighestTierAllowed) {
  EXPECT_TRUE(GangBinds(Schedule(SpanningCluster(Mode::kHard, 1, true), kConf)).empty());
  EXPECT_EQ(GangBinds(Schedule(SpanningCluster(Mode::kHard, 2, true), kConf)).size(), 4u);
}

TEST(NetworkTopologyTest, SoftModeAllowsAPlacementAcrossSwitches) {
  Binds got = GangBinds(Schedule(SpanningCluster(Mode::kSoft, 1, false), kConf));
  EXPECT_EQ(got, All("s1a", "s1a", "s2a", "s2a"));
}

TEST(NetworkTopologyTest, BadArgumentIsNamed) {
  Arguments args(std::map<std::string, std::string>{{"interNodePenalty", "-5"}});
  PluginBuildContext ctx{args};
  auto plugin = NetworkTopologyPlugin::Create(ctx);
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(plugin.status().message().find("interNodePenalty"), std::string::npos)
      << plugin.status().message();
}

// ---- workload-defaults ----

constexpr char kDefaultsConf[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: workload-defaults
)";

TEST(WorkloadDefaultsTest, SmallTrainingPacksInsideAnNvlinkDomain) {
  ClusterBuilder b;
  b.Node("empty").Resources("cpu=64,memory=512Gi").Gpus(8, "H100", 2);
  b.Node("busy").Resources("cpu=64,memory=512Gi").Gpus(8, "H100", 2);
  b.Job("run").Running("w", 1, "cpu=1,nvidia.com/gpu=2", "busy");  // domain 0 keeps 2 free
  b.Job("small").Tasks("w", 1, "cpu=1,nvidia.com/gpu=2");
  Snapshot snap = b.Build();
  SchedulerConf conf = testkit::Conf(kDefaultsConf);
  Session s(snap, conf, BuiltinRegistry());
  ASSERT_TRUE(s.Open().ok());
  const Task& t = s.task(s.job(1).tasks[0]);
  // busy: fill 4/8, exact domain fit; empty: fill 2/8, a 4-GPU domain left half free.
  EXPECT_DOUBLE_EQ(s.NodeScore(t, s.node(1)), 50 * 0.5 + 50 * 1.0);
  EXPECT_DOUBLE_EQ(s.NodeScore(t, s.node(0)), 50 * 0.25 + 50 * 0.75);
}

TEST(WorkloadDefaultsTest, SmallGangGoesWhereOneNvlinkDomainHoldsItAll) {
  // Two small nodes without NVLink fill up faster, but only the 8-GPU NVSwitch node holds the
  // whole gang of four one-GPU tasks inside one domain.
  ClusterBuilder b;
  b.Node("t4-0").Resources("cpu=64,memory=512Gi").Gpus(2, "T4", 2);
  b.Node("t4-1").Resources("cpu=64,memory=512Gi").Gpus(2, "T4", 2);
  b.Node("h100").Resources("cpu=128,memory=1Ti").Gpus(8, "H100", 1);
  b.Job("gang").MinAvailable(4).Tasks("w", 4, "cpu=1,nvidia.com/gpu=1");
  Snapshot snap = b.Build();
  Decision d = Schedule(snap, R"(
actions: "allocate"
tiers:
- plugins:
  - name: gang
  - name: predicates
  - name: workload-defaults
)");
  std::set<std::string> nodes;
  for (const auto& [pod, node] : BindMap(d)) nodes.insert(node);
  EXPECT_EQ(d.binds.size(), 4u);
  EXPECT_EQ(nodes, std::set<std::string>{"h100"});
}

TEST(WorkloadDefaultsTest, LargeTrainingSpreadsUnderOneSwitchSmallPacks) {
  struct Case {
    const char* name;
    int running_gpus;  // one member already on "member"
    std::set<std::string> want;
  };
  const Case cases[] = {
      // 1 + 2·3 = 7 GPUs: small, packs onto the busiest node that fits, then the next.
      {"7 GPUs is small training", 1, {"same-switch-busy", "member"}},
      // 2 + 2·3 = 8 GPUs: large (exactly 8 counts as large), the least loaded nodes of s1.
      {"8 GPUs is large training", 2, {"same-switch-empty", "member"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ClusterBuilder b;
    GpuNode(b, "member", "s1", 0);
    GpuNode(b, "same-switch-busy", "s1", 4);
    GpuNode(b, "same-switch-empty", "s1", 0);
    GpuNode(b, "other-switch-empty", "s2", 0);
    b.Job("large")
        .MinAvailable(1)
        .Running("m", 1, "cpu=1,nvidia.com/gpu=" + std::to_string(c.running_gpus), "member")
        .Tasks("w", 2, "cpu=1,nvidia.com/gpu=3");
    Snapshot snap = b.Build();
    Decision d = Schedule(snap, kDefaultsConf);
    std::set<std::string> nodes;
    for (const auto& [pod, node] : BindMap(d)) nodes.insert(node);
    EXPECT_EQ(nodes, c.want);
    EXPECT_EQ(d.binds.size(), 2u);
  }
}

TEST(WorkloadDefaultsTest, InferencePacksOntoSharedDevices) {
  ClusterBuilder b;
  b.Node("empty").Resources("cpu=64,memory=512Gi").Gpus(2);
  b.Node("shared").Resources("cpu=64,memory=512Gi").Gpus(2);
  b.Job("run").Running("w", 1, "cpu=1,nvidia.com/gpu=300m", "shared");
  b.Job("serve").Tasks("w", 1, "cpu=1,nvidia.com/gpu=500m");
  Snapshot snap = b.Build();
  snap.tasks[0].devices = {DeviceAllocation{0, 300, 0, 0, -1}};
  snap.jobs[1].kind = Job::Kind::kInference;
  Decision d = Schedule(snap, kDefaultsConf);
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(d.binds[0].node, "shared");
  EXPECT_EQ(d.binds[0].gpu_indices, (std::vector<int32_t>{0}));
  // Node fill plus the fill of the fullest device with room.
  SchedulerConf conf = testkit::Conf(kDefaultsConf);
  Session s(snap, conf, BuiltinRegistry());
  ASSERT_TRUE(s.Open().ok());
  EXPECT_DOUBLE_EQ(s.NodeScore(s.task(1), s.node(1)), 50 * 0.4 + 50 * 0.8);
  EXPECT_DOUBLE_EQ(s.NodeScore(s.task(1), s.node(0)), 50 * 0.25 + 50 * 0.5);
}

}  // namespace
}  // namespace etna::sched
