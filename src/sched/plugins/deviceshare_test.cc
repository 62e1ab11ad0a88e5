#include "sched/plugins/deviceshare.h"

#include <gtest/gtest.h>

#include <set>

#include "sched/framework/registry.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::FindJob;
using testkit::Schedule;

std::string Conf(const std::string& args) {
  return R"(
actions: "allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: deviceshare
    arguments: {)" +
         args + "}\n";
}

const BindDecision* FindBind(const Decision& d, const std::string& pod) {
  for (const auto& b : d.binds) {
    if (b.pod_name == pod) return &b;
  }
  return nullptr;
}

TEST(DeviceShareTest, MigInstancesAreChosenOnceEach) {
  ClusterBuilder b;
  b.Node("n1")
      .Resources("cpu=64")
      .Gpus(2, "H100-80GB")
      .MigLayout(0, {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"});
  b.Job("running")
      .Running("w", 1, "nvidia.com/mig-1g.10gb=1", "n1")
      .LastTaskDevices({{0, 0, 0, 0, 2}});  // holds the first 1g.10gb
  b.Job("mig").MinAvailable(1).Tasks("w", 2, "cpu=1,nvidia.com/mig-1g.10gb=1");
  b.Job("whole").Tasks("w", 1, "cpu=1,nvidia.com/gpu=1");
  Snapshot s = b.Build();
  EXPECT_EQ(s.nodes[0].allocatable.Get(kGpu), 1000);  // GPU 1 only
  Decision d = Schedule(s, Conf(""));
  const BindDecision* m = FindBind(d, "mig-w-0");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->devices.size(), 1u);
  EXPECT_EQ(m->devices[0].gpu, 0);
  EXPECT_EQ(m->devices[0].mig_instance, 3);  // the free one
  EXPECT_EQ(m->gpu_uuids, std::vector<std::string>{"GPU-n1-0"});
  EXPECT_EQ(FindBind(d, "mig-w-1"), nullptr);  // no third instance
  const BindDecision* w = FindBind(d, "whole-w-0");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->gpu_indices, std::vector<int32_t>{1});  // never the partitioned GPU
}

TEST(DeviceShareTest, UnhealthyGpuInstancesGetNoWorkWithReason) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(1, "A100-80GB").MigLayout(0, {"7g.80gb"});
  b.Job("j").Tasks("w", 1, "cpu=1,nvidia.com/mig-7g.80gb=1");
  Snapshot s = b.Build();
  s.nodes[0].gpus[0].healthy = false;  // reported before the allocatable caught up
  Decision d = Schedule(s, Conf(""));
  EXPECT_TRUE(d.binds.empty());
  const JobUpdate* u = FindJob(d, s, "j");
  ASSERT_NE(u, nullptr);
  EXPECT_NE(u->message.find("node(s) had no free MIG instance of profile 7g.80gb"),
            std::string::npos)
      << u->message;
}

TEST(DeviceShareTest, VgpuBinpackVersusSpread) {
  for (const char* policy : {"binpack", "spread"}) {
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=64").Gpus(2, "H100-80GB").Vgpu();
    b.Job("j").VgpuTasks("w", 2, 1, 20000, 25, "cpu=1");
    Decision d = Schedule(b.Build(), Conf(std::string("deviceshare.VGPUEnable: true, "
                                                      "deviceshare.SchedulePolicy: ") +
                                          policy));
    ASSERT_EQ(d.binds.size(), 2u) << policy;
    std::set<int32_t> gpus;
    for (const auto& bind : d.binds) {
      ASSERT_EQ(bind.devices.size(), 1u);
      EXPECT_EQ(bind.devices[0].memory_mib, 20000);
      EXPECT_EQ(bind.devices[0].cores_percent, 25);
      gpus.insert(bind.devices[0].gpu);
    }
    EXPECT_EQ(gpus.size(), std::string(policy) == "binpack" ? 1u : 2u) << policy;
  }
}

TEST(DeviceShareTest, SharesRespectDeviceLimitsAndWholeGpus) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(2, "H100-80GB").Vgpu();
  b.Job("whole").Running("w", 1, "nvidia.com/gpu=1", "n1");  // holds GPU 0
  b.Job("big").VgpuTasks("w", 3, 1, 50000, 0, "cpu=1").MinAvailable(1);
  Decision d = Schedule(b.Build(), Conf("deviceshare.VGPUEnable: true"));
  // Only GPU 1 takes shares, and only one 50000 MiB share fits its 81920 MiB.
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(d.binds[0].devices[0].gpu, 1);

  ClusterBuilder c;
  c.Node("n1").Resources("cpu=64").Gpus(2, "H100-80GB").Vgpu();
  c.Job("whole").Running("w", 1, "nvidia.com/gpu=1", "n1");  // GPU 0
  c.Job("a")
      .Running("w", 1, "volcano.sh/vgpu-number=1,volcano.sh/vgpu-cores=60", "n1")
      .LastTaskDevices({{1, 600, 1000, 60, -1}});
  c.Job("b").VgpuTasks("w", 1, 1, 1000, 60, "cpu=1");
  Snapshot s = c.Build();
  d = Schedule(s, Conf("deviceshare.VGPUEnable: true"));
  EXPECT_TRUE(d.binds.empty());  // 60% + 60% > 100% on GPU 1; GPU 0 is held whole
  const JobUpdate* u = FindJob(d, s, "b");
  ASSERT_NE(u, nullptr);
  EXPECT_NE(u->message.find("insufficient GPU cores"), std::string::npos)
      << "[" << u->message << "] " << u->reason;
}

TEST(DeviceShareTest, WholeGpuTaskAvoidsSharedDevice) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(2, "H100-80GB").Vgpu();
  b.Job("share")
      .Running("w", 1, "volcano.sh/vgpu-number=1,volcano.sh/vgpu-memory=1000", "n1")
      .LastTaskDevices({{1, 0, 1000, 0, -1}});
  b.Job("whole").Tasks("w", 2, "cpu=1,nvidia.com/gpu=1").MinAvailable(1);
  Decision d = Schedule(b.Build(), Conf("deviceshare.VGPUEnable: true"));
  ASSERT_EQ(d.binds.size(), 1u);
  EXPECT_EQ(d.binds[0].gpu_indices, std::vector<int32_t>{0});
}

TEST(DeviceShareTest, LegacyGpuMemoryAndDisabledModes) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(1, "H100-80GB").GpuMemoryShare();
  b.Job("j").Tasks("w", 3, "cpu=1,volcano.sh/gpu-memory=30000").MinAvailable(1);
  Decision d = Schedule(b.Build(), Conf("deviceshare.GPUSharingEnable: true"));
  ASSERT_EQ(d.binds.size(), 2u);  // 3 × 30000 > 81920
  for (const auto& bind : d.binds) EXPECT_EQ(bind.devices[0].memory_mib, 30000);
}

TEST(DeviceShareTest, GpuModelConstraint) {
  ClusterBuilder b;
  b.Node("a100").Resources("cpu=64").Gpus(8, "A100-80GB");
  b.Node("h100").Resources("cpu=64").Gpus(8, "H100-80GB");
  auto spec = std::make_shared<PodSpec>();
  spec->gpu_models = {"H100-80GB", "H200-141GB"};
  b.Job("j").Tasks("w", 2, "cpu=1,nvidia.com/gpu=1", spec);
  auto none = std::make_shared<PodSpec>();
  none->gpu_models = {"V100"};
  b.Job("k").Tasks("w", 1, "cpu=1,nvidia.com/gpu=1", none);
  Snapshot s = b.Build();
  Decision d = Schedule(s, Conf(""));
  auto binds = BindMap(d);
  EXPECT_EQ(binds["j-w-0"], "h100");
  EXPECT_EQ(binds["j-w-1"], "h100");
  EXPECT_EQ(binds.count("k-w-0"), 0u);
  const JobUpdate* u = FindJob(d, s, "k");
  ASSERT_NE(u, nullptr);
  EXPECT_NE(u->message.find("2 node(s) didn't match the requested GPU model"), std::string::npos)
      << u->message;
}

TEST(DeviceShareTest, ScoreSteersNodeChoice) {
  for (const char* policy : {"binpack", "spread"}) {
    ClusterBuilder b;
    b.Node("busy").Resources("cpu=64").Gpus(1, "H100-80GB").Vgpu();
    b.Node("idle").Resources("cpu=64").Gpus(1, "H100-80GB").Vgpu();
    b.Job("r")
        .Running("w", 1, "volcano.sh/vgpu-number=1,volcano.sh/vgpu-memory=40000", "busy")
        .LastTaskDevices({{0, 0, 40000, 0, -1}});
    b.Job("j").VgpuTasks("w", 1, 1, 10000, 0, "cpu=1");
    Decision d = Schedule(b.Build(), Conf(std::string("deviceshare.VGPUEnable: true, "
                                                      "deviceshare.ScheduleWeight: 10, "
                                                      "deviceshare.SchedulePolicy: ") +
                                          policy));
    EXPECT_EQ(BindMap(d)["j-w-0"], std::string(policy) == "binpack" ? "busy" : "idle") << policy;
  }
}

TEST(DeviceShareTest, BadArguments) {
  const Registry& r = BuiltinRegistry();
  for (const char* args : {"deviceshare.SchedulePolicy: tight", "deviceshare.ScheduleWeight: -1",
                           "deviceshare.VGPUEnable: maybe"}) {
    PluginOption o;
    o.name = "deviceshare";
    std::string a(args);
    auto colon = a.find(':');
    o.arguments.Set(a.substr(0, colon), a.substr(colon + 2));
    auto p = r.BuildPlugin(o);
    ASSERT_FALSE(p.ok()) << args;
    EXPECT_NE(p.status().ToString().find(a.substr(0, colon)), std::string::npos)
        << p.status().ToString();
  }
  PluginOption ok;
  ok.name = "deviceshare";
  ok.arguments.Set("deviceshare.NodeLockEnable", "true");
  ok.arguments.Set("deviceshare.KnownGeometriesCMName", "volcano-vgpu-device-config");
  ok.arguments.Set("deviceshare.KnownGeometriesCMNamespace", "kube-system");
  ok.arguments.Set("deviceshare.GPUNumberEnable", "true");
  EXPECT_TRUE(r.BuildPlugin(ok).ok());
}

}  // namespace
}  // namespace etna::sched
