#include "agent/runtime/pod_env.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "agent/runtime/backend.h"

namespace etna::agent::runtime {
namespace {

using nlohmann::json;

std::string EnvOf(const ContainerLaunch& l, const std::string& name) {
  for (const auto& [k, v] : l.env) {
    if (k == name) return v;
  }
  return "<unset>";
}

TEST(PodEnv, ExpandVars) {
  std::map<std::string, std::string> vars = {{"A", "x"}, {"B", "y"}};
  EXPECT_EQ(ExpandVars("$(A)-$(B)", vars), "x-y");
  EXPECT_EQ(ExpandVars("$(C) $$(A) $", vars), "$(C) $(A) $");
  EXPECT_EQ(ExpandVars("$(A", vars), "$(A");
}

TEST(PodEnv, GpuEnvFromBindAnnotations) {
  json pod = json::parse(R"({"metadata":{"annotations":{"etna.io/gpu-ids":"2,3",
      "etna.io/gpu-uuids":"GPU-c,GPU-d","etna.io/gpu-memory-mib":"4096",
      "etna.io/gpu-cores-percent":"30"}}})");
  auto env = GpuEnv(pod, {});
  std::map<std::string, std::string> m(env.begin(), env.end());
  EXPECT_EQ(m["CUDA_VISIBLE_DEVICES"], "2,3");
  EXPECT_EQ(m["NVIDIA_VISIBLE_DEVICES"], "GPU-c,GPU-d");
  EXPECT_EQ(m["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"], "30");
  EXPECT_EQ(m["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"], "0=4096M,1=4096M");

  json none = json::parse(R"({"metadata":{}})");
  auto e2 = GpuEnv(none, {});
  std::map<std::string, std::string> m2(e2.begin(), e2.end());
  EXPECT_EQ(m2["CUDA_VISIBLE_DEVICES"], "");
  EXPECT_EQ(m2["NVIDIA_VISIBLE_DEVICES"], "void");

  client::NodeGpu g;
  g.index = 1;
  g.uuid = "GPU-m";
  json mig = json::parse(R"({"metadata":{"annotations":{"etna.io/mig-instances":"1:1g.10gb:7"}}})");
  auto e3 = GpuEnv(mig, {g});
  std::map<std::string, std::string> m3(e3.begin(), e3.end());
  EXPECT_EQ(m3["CUDA_VISIBLE_DEVICES"], "MIG-GPU-m/7/0");
}

TEST(PodEnv, BuildLaunchResolvesDownwardApiAndGpuOverrides) {
  std::string dir =
      std::filesystem::temp_directory_path() / ("etna_pod_env_" + std::to_string(getpid()));
  PodContext ctx;
  ctx.node_name = "n1";
  ctx.host_ip = "10.0.0.1";
  ctx.pod_ip = "10.0.0.1";
  ctx.data_dir = dir;
  ctx.pod_dir = dir + "/pods/u1";
  client::NodeGpu gpu0;
  gpu0.uuid = "GPU-z";
  ctx.gpus = {gpu0};
  json pod = json::parse(R"({
    "metadata":{"name":"p","namespace":"ns","uid":"u1","labels":{"app":"web"},
                "annotations":{"volcano.sh/task-spec-index":"3","etna.io/gpu-ids":"0"}},
    "spec":{"volumes":[{"name":"scratch","emptyDir":{}},{"name":"data","persistentVolumeClaim":{"claimName":"c1"}}]}})");
  json container = json::parse(R"J({
    "name":"main","command":["sh","-c"],"args":["echo $(POD) $(MISSING)"],
    "resources":{"limits":{"cpu":"1500m","memory":"2Gi"}},
    "volumeMounts":[{"name":"scratch","mountPath":"/scratch"},{"name":"data","mountPath":"/data"}],
    "env":[{"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},
           {"name":"NS","valueFrom":{"fieldRef":{"fieldPath":"metadata.namespace"}}},
           {"name":"APP","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['app']"}}},
           {"name":"IDX","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['volcano.sh/task-spec-index']"}}},
           {"name":"IP","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}},
           {"name":"NODE","valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}},
           {"name":"CPUS","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu"}}},
           {"name":"MEM_MI","valueFrom":{"resourceFieldRef":{"resource":"limits.memory","divisor":"1Mi"}}},
           {"name":"GREETING","value":"hi $(POD)"},
           {"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}]})J");
  auto l = BuildLaunch(pod, container, ctx);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(l->argv, (std::vector<std::string>{"sh", "-c", "echo p $(MISSING)"}));
  EXPECT_EQ(EnvOf(*l, "NS"), "ns");
  EXPECT_EQ(EnvOf(*l, "APP"), "web");
  EXPECT_EQ(EnvOf(*l, "IDX"), "3");
  EXPECT_EQ(EnvOf(*l, "IP"), "10.0.0.1");
  EXPECT_EQ(EnvOf(*l, "NODE"), "n1");
  EXPECT_EQ(EnvOf(*l, "CPUS"), "2");  // rounded up
  EXPECT_EQ(EnvOf(*l, "MEM_MI"), "2048");
  EXPECT_EQ(EnvOf(*l, "GREETING"), "hi p");
  EXPECT_EQ(EnvOf(*l, "NVIDIA_VISIBLE_DEVICES"), "GPU-z");  // the bind wins over the pod's "all"
  EXPECT_EQ(EnvOf(*l, "CUDA_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(EnvOf(*l, "ETNA_VOLUME_SCRATCH"), ctx.pod_dir + "/volumes/scratch");
  EXPECT_EQ(EnvOf(*l, "ETNA_VOLUME_DATA"), dir + "/volumes/ns/c1");
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/volumes/ns/c1"));
  EXPECT_TRUE(std::filesystem::is_symlink(ctx.pod_dir + "/root/scratch"));
  EXPECT_EQ(l->working_dir, ctx.pod_dir + "/root");

  json bad = json::parse(R"({"name":"main","command":["true"],
    "env":[{"name":"X","valueFrom":{"fieldRef":{"fieldPath":"spec.bogus"}}}]})");
  auto b = BuildLaunch(pod, bad, ctx);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("env[0].valueFrom.fieldRef"), std::string::npos);
  auto no_command = BuildLaunch(pod, json::parse(R"({"name":"main"})"), ctx);
  ASSERT_FALSE(no_command.ok());
  EXPECT_NE(no_command.status().message().find("command"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// A host process cannot read /etc/hosts later: it waits (ContainerCreating) until the peer its
// env names is placed, rather than starting with a name nothing resolves.
TEST(PodEnv, ProcessWaitsForThePeerItsEnvNames) {
  std::string dir = ::testing::TempDir() + "/pod_env_peer";
  PodContext ctx;
  ctx.data_dir = dir;
  ctx.pod_dir = dir + "/pods/u1";
  ctx.pod_ip = "10.0.0.1";
  ctx.hosts = {{"", {"train-chief-0.train", "train-chief-0"}}};
  json container = {{"name", "c"},
                    {"command", {"true"}},
                    {"env", {{{"name", "MASTER_ADDR"}, {"value", "train-chief-0.train"}}}}};
  json pod = {{"metadata", {{"name", "train-worker-0"}}}, {"spec", {{"containers", {container}}}}};
  ProcessBackend backend;
  Prepared waiting = backend.Prepare({pod, container, ctx, {}}, nullptr);
  EXPECT_EQ(waiting.state, Prepared::State::kWaiting);
  EXPECT_EQ(waiting.reason, "ContainerCreating");
  EXPECT_NE(waiting.message.find("MASTER_ADDR"), std::string::npos) << waiting.message;
  ctx.hosts[0].ip = "10.0.0.2";
  Prepared ready = backend.Prepare({pod, container, ctx, {}}, nullptr);
  ASSERT_EQ(ready.state, Prepared::State::kReady) << ready.message;
  EXPECT_NE(std::find(ready.launch.env.begin(), ready.launch.env.end(),
                      std::pair<std::string, std::string>{"MASTER_ADDR", "10.0.0.2"}),
            ready.launch.env.end());
  std::filesystem::remove_all(dir);
}

// The seed's DCGM exporter mounts a ConfigMap volume: the process runtime names the volume and
// what it supports instead of starting the container without it.
TEST(PodEnv, SimulatedGpusGiveTheUtilizationFileToPodsWithGpus) {
  std::string dir = ::testing::TempDir() + "/pod_env_util";
  PodContext ctx;
  ctx.data_dir = dir;
  ctx.pod_dir = dir + "/pods/u1";
  ctx.drivable_gpu_utilization = true;
  json container = {{"name", "c"}, {"command", {"true"}}};
  json with_gpu = {{"metadata", {{"name", "p"}, {"annotations", {{"etna.io/gpu-ids", "1"}}}}},
                   {"spec", {{"containers", {container}}}}};
  auto launch = BuildLaunch(with_gpu, container, ctx);
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_EQ(EnvOf(*launch, "ETNA_GPU_UTILIZATION_FILE"), dir + "/pods/u1/gpu-utilization");
  json no_gpu = {{"metadata", {{"name", "p"}}}, {"spec", {{"containers", {container}}}}};
  auto plain = BuildLaunch(no_gpu, container, ctx);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(EnvOf(*plain, "ETNA_GPU_UTILIZATION_FILE"), "<unset>");
  ctx.drivable_gpu_utilization = false;  // measured GPUs: what they report is real
  auto real = BuildLaunch(with_gpu, container, ctx);
  ASSERT_TRUE(real.ok());
  EXPECT_EQ(EnvOf(*real, "ETNA_GPU_UTILIZATION_FILE"), "<unset>");
}

TEST(PodEnv, AVolumeKindTheProcessRuntimeLacksIsNamed) {
  std::string dir =
      std::filesystem::temp_directory_path() / ("etna_pod_env_cm_" + std::to_string(getpid()));
  PodContext ctx;
  ctx.data_dir = dir;
  ctx.pod_dir = dir + "/pods/u2";
  json pod = json::parse(R"({"metadata":{"name":"p","namespace":"ns","uid":"u2"},
    "spec":{"volumes":[{"name":"pod-gpu-metrics","configMap":{"name":"dcgm-exporter-config"}}]}})");
  auto l = BuildLaunch(pod, json::parse(R"({"name":"main","command":["true"]})"), ctx);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(),
            "spec.volumes[0]: volume \"pod-gpu-metrics\": only emptyDir, hostPath and "
            "persistentVolumeClaim are supported by the process runtime");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace etna::agent::runtime
