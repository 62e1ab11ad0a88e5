// Property test: random nodes with mixed MIG layouts, unhealthy GPUs and running work, random
// whole-GPU, MIG, vGPU and legacy memory-share requests, two cycles with deviceshare. No device
// is ever over-allocated: at most 1000 milli and the device's memory per GPU, one owner per MIG
// instance, a whole GPU never shared, nothing new on a partitioned or unhealthy GPU except
// through its own instances, and every bind holds what its task asked for.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "common/rng.h"
#include "gpu/mig_catalog.h"
#include "sched/devices/request.h"
#include "sched/framework/cycle.h"
#include "sched/testing/cluster_builder.h"
#include "sched/testing/queueing_kit.h"

namespace etna::sched::devices {
namespace {

constexpr int kSeeds = 150;
const char* const kModels[] = {"A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB"};

int Pick(Rng& rng, int lo, int hi) { return lo + static_cast<int>(rng.Uniform(hi - lo + 1)); }

std::vector<std::string> RandomLayout(Rng& rng, const gpu::GpuModelSpec& spec) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    std::vector<std::string> layout;
    int n = Pick(rng, 1, 7);
    for (int i = 0; i < n; ++i) {
      layout.push_back(spec.profiles[rng.Uniform(spec.profiles.size())].name);
    }
    if (gpu::ValidateMigLayout(spec, layout).ok()) return layout;
  }
  return {spec.profiles.back().name};  // 7g
}

std::string Conf(Rng& rng) {
  return fmt::format(R"(
actions: "allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: deviceshare
    arguments: {{deviceshare.VGPUEnable: true, deviceshare.GPUSharingEnable: true,
                deviceshare.SchedulePolicy: {}, deviceshare.ScheduleWeight: {}}}
)",
                     rng.Uniform(2) ? "binpack" : "spread", rng.Uniform(3));
}

void CheckDevices(const Snapshot& s, const Decision& d, const std::string& where) {
  // Every allocation held after the decision, per node.
  std::vector<std::vector<std::pair<TaskIdx, DeviceAllocation>>> held(s.nodes.size());
  std::set<TaskIdx> bound;
  for (const auto& b : d.binds) bound.insert(b.task);
  for (size_t i = 0; i < s.tasks.size(); ++i) {
    const Task& t = s.tasks[i];
    if (t.node == kNone || !HoldsNode(t.status) || bound.count(static_cast<TaskIdx>(i))) continue;
    for (const auto& dev : t.devices) held[t.node].emplace_back(static_cast<TaskIdx>(i), dev);
  }
  std::map<std::string, NodeIdx> node_idx;
  for (size_t i = 0; i < s.nodes.size(); ++i) node_idx[s.nodes[i].name] = static_cast<NodeIdx>(i);
  DeviceResourceIds ids = DeviceResourceIds::Lookup();
  for (const auto& b : d.binds) {
    NodeIdx n = node_idx.at(b.node);
    const Node& node = s.nodes[n];
    const Task& t = s.tasks[b.task];
    DeviceRequest r = ParseDeviceRequest(t.request, ids);
    std::set<int32_t> gpus;
    int32_t mig = 0;
    for (const auto& dev : b.devices) {
      ASSERT_GE(dev.gpu, 0) << where;
      ASSERT_LT(dev.gpu, static_cast<int32_t>(node.gpus.size())) << where;
      const GpuDevice& g = node.gpus[dev.gpu];
      EXPECT_TRUE(g.healthy) << where << ": new work on unhealthy GPU " << b.pod_name;
      if (dev.mig_instance >= 0) {
        ASSERT_LT(dev.mig_instance, static_cast<int32_t>(g.mig.size())) << where;
        ++mig;
      } else {
        EXPECT_TRUE(g.mig.empty()) << where << ": " << b.pod_name << " on partitioned GPU";
      }
      gpus.insert(dev.gpu);
      held[n].emplace_back(b.task, dev);
    }
    int32_t want_mig = 0;
    for (const auto& m : r.mig) want_mig += m.count;
    EXPECT_EQ(mig, want_mig) << where << ": " << b.pod_name;
    if (r.gpu_milli >= 1000) {
      EXPECT_EQ(gpus.size(), static_cast<size_t>(r.gpu_milli / 1000)) << where;
    }
    if (r.vgpu_number > 0) {
      EXPECT_EQ(gpus.size(), static_cast<size_t>(r.vgpu_number)) << where << ": " << b.pod_name;
    }
  }
  for (size_t n = 0; n < s.nodes.size(); ++n) {
    const Node& node = s.nodes[n];
    std::map<int32_t, int64_t> milli, memory, count, whole;
    std::set<std::pair<int32_t, int32_t>> instances;
    for (const auto& [t, dev] : held[n]) {
      milli[dev.gpu] += dev.milli;
      memory[dev.gpu] += dev.memory_mib;
      ++count[dev.gpu];
      if (dev.mig_instance < 0 && dev.milli == 1000 && dev.memory_mib == 0) ++whole[dev.gpu];
      if (dev.mig_instance >= 0) {
        EXPECT_TRUE(instances.insert({dev.gpu, dev.mig_instance}).second)
            << where << ": MIG instance " << dev.mig_instance << " of GPU " << dev.gpu << " on "
            << node.name << " double-booked";
      }
    }
    for (const auto& [gpu, m] : milli) {
      EXPECT_LE(m, 1000) << where << ": " << node.name << " GPU " << gpu;
      EXPECT_LE(memory[gpu], node.gpus[gpu].memory_mib)
          << where << ": " << node.name << " GPU " << gpu;
      if (whole[gpu] > 0) {
        EXPECT_EQ(count[gpu], 1) << where << ": whole GPU " << gpu << " on " << node.name
                                 << " shared";
      }
    }
  }
}

TEST(DevicePropertyTest, NoDeviceIsEverOverAllocated) {
  for (int seed = 1; seed <= kSeeds; ++seed) {
    Rng rng(static_cast<uint64_t>(seed));
    testkit::ClusterBuilder b;
    std::vector<std::string> profiles;
    int nodes = Pick(rng, 1, 4);
    for (int i = 0; i < nodes; ++i) {
      const gpu::GpuModelSpec& spec = *gpu::FindGpuModel(kModels[rng.Uniform(4)]);
      int count = Pick(rng, 1, 8);
      std::string name = fmt::format("n{}", i);
      auto& nb = b.Node(name).Resources("cpu=256,memory=1Ti").Gpus(count, spec.model);
      for (int g = 0; g < count; ++g) {
        if (rng.Uniform(3) == 0) {
          auto layout = RandomLayout(rng, spec);
          profiles.insert(profiles.end(), layout.begin(), layout.end());
          nb.MigLayout(g, layout);
        }
      }
      if (rng.Uniform(8) == 0) nb.UnhealthyGpu(static_cast<int>(rng.Uniform(count)));
      nb.Vgpu().GpuMemoryShare();
      if (rng.Uniform(2)) b.Job(fmt::format("run{}", i)).Running("w", 1, "nvidia.com/gpu=1", name);
    }
    int jobs = Pick(rng, 1, 12);
    for (int j = 0; j < jobs; ++j) {
      auto& jb = b.Job(fmt::format("j{}", j)).MinAvailable(1);
      int tasks = Pick(rng, 1, 6);
      switch (rng.Uniform(5)) {
        case 0:
          jb.Tasks("w", tasks,
                   fmt::format("cpu=1,nvidia.com/gpu={}", std::array{1, 2, 4}[rng.Uniform(3)]));
          break;
        case 1:
          if (!profiles.empty()) {
            jb.Tasks("w", tasks,
                     fmt::format("cpu=1,nvidia.com/mig-{}={}",
                                 profiles[rng.Uniform(profiles.size())], Pick(rng, 1, 2)));
            break;
          }
          [[fallthrough]];
        case 2:
          jb.VgpuTasks("w", tasks, Pick(rng, 1, 2), rng.Uniform(4) ? Pick(rng, 1, 40) * 1000 : 0,
                       std::array{0, 10, 25, 50, 60, 100}[rng.Uniform(6)], "cpu=1");
          break;
        case 3:
          jb.Tasks("w", tasks,
                   fmt::format("cpu=1,volcano.sh/gpu-memory={}", Pick(rng, 1, 40) * 1000));
          break;
        default:
          jb.Tasks("w", tasks, "cpu=1,nvidia.com/gpu=500m");
          break;
      }
    }
    Snapshot s = b.Build();
    std::string conf = Conf(rng);
    for (int cycle = 0; cycle < 2; ++cycle) {
      Decision d = testkit::Schedule(s, conf);
      CheckDevices(s, d, fmt::format("seed {} cycle {}", seed, cycle));
      if (::testing::Test::HasFailure()) return;
      testkit::ApplyDecision(d, s);
    }
  }
}

}  // namespace
}  // namespace etna::sched::devices
