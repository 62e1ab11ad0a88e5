#include "sched/plugins/binpack.h"

#include <gtest/gtest.h>

#include "sched/framework/registry.h"
#include "sched/framework/session.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::Schedule;

std::string ConfWith(const std::string& args) {
  std::string conf = R"(
actions: "allocate"
tiers:
- plugins:
  - name: gang
  - name: binpack
)";
  if (!args.empty()) conf += "    arguments:\n" + args;
  return conf;
}

struct ScoreCase {
  const char* name;
  const char* args;
  const char* request;
  double want;
};

TEST(BinpackTest, VolcanoScore) {
  // Node: cpu 10, memory 10Gi, 8 GPUs; used cpu 2, memory 4Gi, 4 GPUs.
  const ScoreCase cases[] = {
      {"cpu and memory by default", "", "cpu=2,memory=2Gi,nvidia.com/gpu=2",
       100.0 * (0.4 + 0.6) / 2},
      {"gpu weighted 2",
       "      binpack.resources: nvidia.com/gpu\n      binpack.resources.nvidia.com/gpu: 2\n",
       "cpu=2,memory=2Gi,nvidia.com/gpu=2", 100.0 * (0.4 + 0.6 + 2 * 0.75) / 4},
      {"listed resource weight defaults to 1", "      binpack.resources: nvidia.com/gpu\n",
       "cpu=2,memory=2Gi,nvidia.com/gpu=2", 100.0 * (0.4 + 0.6 + 0.75) / 3},
      {"binpack.weight scales", "      binpack.weight: 3\n      binpack.memory: 0\n",
       "cpu=2,memory=2Gi", 3 * 100.0 * 0.4 / 1},
      {"only requested resources count", "      binpack.resources: nvidia.com/gpu\n", "cpu=2",
       100.0 * 0.4},
      {"overflow scores 0", "      binpack.resources: nvidia.com/gpu\n", "cpu=2,nvidia.com/gpu=5",
       0},
      {"weight 0 turns it off", "      binpack.weight: 0\n", "cpu=2", 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=10,memory=10Gi").Gpus(8);
    b.Job("run").Running("w", 1, "cpu=2,memory=4Gi,nvidia.com/gpu=4", "n1");
    b.Job("j").Tasks("w", 1, c.request);
    Snapshot snap = b.Build();
    SchedulerConf conf = testkit::Conf(ConfWith(c.args));
    Session s(snap, conf, BuiltinRegistry());
    ASSERT_TRUE(s.Open().ok());
    const Task& t = s.task(s.job(1).tasks[0]);
    EXPECT_NEAR(s.NodeScore(t, s.node(0)), c.want, 1e-9);
  }
}

TEST(BinpackTest, PacksGpuTasksOntoBusyNodes) {
  auto cluster = [] {
    ClusterBuilder b;
    b.Node("empty").Resources("cpu=16,memory=64Gi").Gpus(8);
    b.Node("busy").Resources("cpu=16,memory=64Gi").Gpus(8);
    b.Job("run").Running("w", 1, "cpu=4,memory=16Gi,nvidia.com/gpu=4", "busy");
    b.Job("j").Tasks("w", 1, "cpu=1,memory=1Gi,nvidia.com/gpu=1");
    return b.Build();
  };
  constexpr char kNodeOrderOnly[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: gang
  - name: nodeorder
)";
  EXPECT_EQ(BindMap(Schedule(cluster(), kNodeOrderOnly))["j-w-0"], "empty");
  std::string both = std::string(kNodeOrderOnly) +
                     "  - name: binpack\n    arguments:\n      binpack.weight: 10\n"
                     "      binpack.resources: nvidia.com/gpu\n";
  EXPECT_EQ(BindMap(Schedule(cluster(), both))["j-w-0"], "busy");
}

TEST(BinpackTest, BadArgumentsAreRejected) {
  for (const char* args : {"      binpack.resources.nvidia.com/gpu: 2\n", "      binpack.cpu: -1\n",
                           "      binpack.weight: x\n", "      binpack.foo: 1\n"}) {
    SCOPED_TRACE(args);
    auto conf = ParseSchedulerConf(ConfWith(args), BuiltinRegistry());
    ASSERT_FALSE(conf.ok());
    std::string key = std::string(args).substr(6, std::string(args).find(':') - 6);
    EXPECT_NE(conf.status().ToString().find(key), std::string::npos) << conf.status().ToString();
  }
}

}  // namespace
}  // namespace etna::sched
