// topologySpreadConstraints: DoNotSchedule as a filter (maxSkew across zones, counting what runs
// and what this cycle placed, a node without the key refused by name, minDomains) and
// ScheduleAnyway as a nodeorder preference.
#include "sched/plugins/topology_spread.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::FindJob;
using testkit::Schedule;

constexpr char kConf[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: predicates
  - name: nodeorder
)";

std::shared_ptr<PodSpec> Spread(int max_skew, bool hard, int min_domains = 1) {
  auto spec = std::make_shared<PodSpec>();
  TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = "zone";
  c.hard = hard;
  c.selector.match_labels = {{"app", "web"}};
  c.min_domains = min_domains;
  spec->topology_spread = {c};
  return spec;
}

// Nodes a1, a2 in zone a, b1 in zone b, c1 in zone c; 8 cpus each.
ClusterBuilder Zones() {
  ClusterBuilder b;
  for (const char* name : {"a1", "a2", "b1", "c1"}) {
    b.Node(name).Resources("cpu=8,memory=32Gi").Label("zone", std::string(1, name[0]));
  }
  return b;
}

void Label(Snapshot& s, std::string_view job) {
  for (const Job& j : s.jobs) {
    if (j.name != job) continue;
    for (TaskIdx t : j.tasks) s.tasks[t].labels = {{"app", "web"}};
  }
}

std::map<char, int> PerZone(const std::map<std::string, std::string>& binds) {
  std::map<char, int> out;
  for (const auto& [pod, node] : binds) ++out[node[0]];
  return out;
}

TEST(TopologySpreadTest, DoNotScheduleKeepsZonesWithinMaxSkew) {
  ClusterBuilder b = Zones();
  b.Job("web").MinAvailable(1).Tasks("w", 6, "cpu=1", Spread(1, true));
  Snapshot s = b.Build();
  Label(s, "web");
  auto binds = BindMap(Schedule(s, kConf));
  ASSERT_EQ(binds.size(), 6u);
  EXPECT_EQ(PerZone(binds), (std::map<char, int>{{'a', 2}, {'b', 2}, {'c', 2}}));
}

TEST(TopologySpreadTest, RunningPodsCountAndTheSkewDecidesTheZone) {
  ClusterBuilder b = Zones();
  b.Job("old").Running("w", 1, "cpu=1", "a1").LastTaskLabels({{"app", "web"}});
  b.Job("old2").Running("w", 1, "cpu=1", "b1").LastTaskLabels({{"app", "web"}});
  b.Job("web").Tasks("w", 1, "cpu=1", Spread(1, true));
  Snapshot s = b.Build();
  Label(s, "web");
  auto binds = BindMap(Schedule(s, kConf));
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds.begin()->second, "c1");  // zones a and b already hold one each
}

TEST(TopologySpreadTest, ANodeWithoutTheKeyAndAFullSkewAreRefusedByName) {
  ClusterBuilder b;
  b.Node("a1").Resources("cpu=8,memory=32Gi").Label("zone", "a");
  b.Node("bare").Resources("cpu=8,memory=32Gi");
  b.Job("old").Running("w", 1, "cpu=1", "a1").LastTaskLabels({{"app", "web"}});
  // Two domains wanted, one exists: the minimum counts as 0, so zone a (1 + 1 − 0 > 1) is full.
  b.Job("web").Tasks("w", 1, "cpu=1", Spread(1, true, /*min_domains=*/2));
  Snapshot s = b.Build();
  Label(s, "web");
  Decision d = Schedule(s, kConf);
  EXPECT_TRUE(BindMap(d).empty());
  const JobUpdate* u = FindJob(d, s, "web");
  ASSERT_NE(u, nullptr);
  std::string m = u->message;
  const std::string missing = std::string("1 ") + kReasonTopologySpreadLabel;
  size_t at = m.find(missing);
  ASSERT_NE(at, std::string::npos) << m;
  m.erase(at, missing.size());
  EXPECT_NE(m.find(std::string("1 ") + kReasonTopologySpread), std::string::npos) << u->message;
}

TEST(TopologySpreadTest, ScheduleAnywayPrefersTheEmptierZoneButNeverRefuses) {
  ClusterBuilder b;
  b.Node("a1").Resources("cpu=8,memory=32Gi").Label("zone", "a");
  b.Node("b1").Resources("cpu=1,memory=32Gi").Label("zone", "b");
  b.Job("old").Running("w", 2, "cpu=1", "a1").LastTaskLabels({{"app", "web"}});
  b.Job("web").MinAvailable(1).Tasks("w", 3, "cpu=1", Spread(1, false));
  Snapshot s = b.Build();
  Label(s, "web");
  auto binds = BindMap(Schedule(s, kConf));
  ASSERT_EQ(binds.size(), 3u);  // soft: zone a takes what zone b has no room for
  EXPECT_EQ(PerZone(binds), (std::map<char, int>{{'a', 2}, {'b', 1}}));
}

}  // namespace
}  // namespace etna::sched
