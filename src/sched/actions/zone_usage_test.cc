// PodGroup minZoneUsage under the default configuration: a gang spanning switches gets at least
// the minimum in every switch it uses, or waits saying which switch would get too little.
#include "sched/actions/zone_usage.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sched/framework/conf.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::FindJob;
using testkit::Res;
using testkit::Schedule;

constexpr char kSwitch[] = "topology.etna.io/switch";

// One 8-GPU node per switch; `busy[i]` of node i's GPUs are held by another job.
ClusterBuilder Switches(const std::vector<int>& busy) {
  ClusterBuilder b;
  for (size_t i = 0; i < busy.size(); ++i) {
    std::string node = "n" + std::to_string(i + 1);
    b.Node(node)
        .Resources("cpu=64,memory=512Gi")
        .Gpus(8)
        .Label(kSwitch, "sw-" + std::to_string(i + 1));
    if (busy[i] > 0) {
      b.Job("busy-" + node).MinAvailable(1).Running("w", busy[i], "cpu=1,nvidia.com/gpu=1", node);
    }
  }
  return b;
}

void AddGang(ClusterBuilder& b, int tasks) {
  b.Job("gang")
      .MinAvailable(tasks)
      .Tasks("w", tasks, "cpu=1,nvidia.com/gpu=1")
      .job()
      .min_zone_usage = Res("nvidia.com/gpu=2");
}

// Switch → the gang's GPUs bound there.
std::map<std::string, int> GangPerSwitch(const Decision& d) {
  std::map<std::string, int> out;
  for (const auto& [pod, node] : BindMap(d)) {
    if (pod.rfind("gang-", 0) == 0) ++out["sw-" + node.substr(1)];
  }
  return out;
}

TEST(ZoneUsageTest, NeverLeavesOneGpuInASwitch) {
  // sw-2 has one GPU free and is the fullest node, so binpack would put the 9th member there.
  ClusterBuilder b = Switches({0, 7, 4});
  AddGang(b, 9);
  Decision d = Schedule(b.Build(), DefaultSchedulerConfYaml());
  auto per_switch = GangPerSwitch(d);
  int total = 0;
  for (const auto& [sw, n] : per_switch) {
    EXPECT_GE(n, 2) << sw;
    total += n;
  }
  EXPECT_EQ(total, 9);
  EXPECT_EQ(per_switch.count("sw-2"), 0u);
}

TEST(ZoneUsageTest, SplitsSoThatEverySwitchGetsTheMinimum) {
  ClusterBuilder b = Switches({0, 0});
  AddGang(b, 9);
  Decision d = Schedule(b.Build(), DefaultSchedulerConfYaml());
  auto per_switch = GangPerSwitch(d);
  EXPECT_EQ(per_switch.size(), 2u);
  EXPECT_EQ(per_switch["sw-1"] + per_switch["sw-2"], 9);
  EXPECT_GE(per_switch["sw-1"], 2);
  EXPECT_GE(per_switch["sw-2"], 2);
}

TEST(ZoneUsageTest, WaitsNamingTheSwitchThatWouldGetTooLittle) {
  ClusterBuilder b = Switches({0, 7});
  AddGang(b, 9);
  Snapshot s = b.Build();
  Decision d = Schedule(s, DefaultSchedulerConfYaml());
  EXPECT_TRUE(GangPerSwitch(d).empty());
  const JobUpdate* u = FindJob(d, s, "gang");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->message,
            "minZoneUsage: zone topology.etna.io/switch=sw-2 would get 1 nvidia.com/gpu, the "
            "PodGroup needs at least 2 in every zone it uses");
}

TEST(ZoneUsageTest, OneSwitchIsEnoughWhenTheGangFits) {
  ClusterBuilder b = Switches({0, 0});
  AddGang(b, 6);
  auto per_switch = GangPerSwitch(Schedule(b.Build(), DefaultSchedulerConfYaml()));
  EXPECT_EQ(per_switch.size(), 1u);
  EXPECT_EQ(per_switch.begin()->second, 6);
}

}  // namespace
}  // namespace etna::sched
