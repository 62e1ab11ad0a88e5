#include "agent/node_object.h"

#include <gtest/gtest.h>

#include "api/types/well_known.h"
#include "client/testing/in_process_api.h"

namespace etna::agent {
namespace {

GpuDevice Gpu(int index, bool healthy, std::vector<std::string> mig = {}) {
  GpuDevice d;
  d.gpu.index = index;
  d.gpu.uuid = "GPU-" + std::to_string(index);
  d.gpu.model = "NVIDIA-A100-SXM4-80GB";
  d.gpu.memory_mib = 81920;
  d.gpu.healthy = healthy;
  int id = 1;
  for (const auto& p : mig) d.gpu.mig.push_back({p, id++});
  return d;
}

TEST(NodeObject, ResourcesCountHealthyWholeGpusAndMigInstances) {
  NodeReport r;
  r.spec.name = "n";
  r.spec.cpu = "64";
  r.spec.memory = "512Gi";
  r.gpus = {Gpu(0, true), Gpu(1, false), Gpu(2, true, {"1g.10gb", "1g.10gb", "3g.40gb"}),
            Gpu(3, false, {"1g.10gb"})};
  auto cap = NodeResources(r, false);
  auto alloc = NodeResources(r, true);
  EXPECT_EQ(cap["nvidia.com/gpu"], "2");
  EXPECT_EQ(alloc["nvidia.com/gpu"], "1");
  EXPECT_EQ(cap["nvidia.com/mig-1g.10gb"], "3");
  EXPECT_EQ(alloc["nvidia.com/mig-1g.10gb"], "2");
  EXPECT_EQ(alloc["nvidia.com/mig-3g.40gb"], "1");
  EXPECT_EQ(alloc["cpu"], "64");
  EXPECT_EQ(alloc["pods"], "110");
}

TEST(NodeObject, NodeInfoHasEveryFieldClientsRequire) {
  NodeReport r;
  r.spec.name = "n";
  r.host = ReadHostInfo();
  r.container_runtime_version = "runc://1.1.5";
  nlohmann::json info = NodeStatusObject(r, nlohmann::json::array())["nodeInfo"];
  // The Python client's V1NodeSystemInfo refuses null for these.
  for (const char* field :
       {"bootID", "machineID", "systemUUID", "kernelVersion", "osImage", "containerRuntimeVersion",
        "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"}) {
    ASSERT_TRUE(info.contains(field)) << field;
    EXPECT_TRUE(info[field].is_string()) << field;
  }
  EXPECT_FALSE(info["bootID"].get<std::string>().empty());
  EXPECT_FALSE(info["kernelVersion"].get<std::string>().empty());
  EXPECT_EQ(info["containerRuntimeVersion"], "runc://1.1.5");
  EXPECT_EQ(info["operatingSystem"], "linux");
}

TEST(NodeObject, HostFactsAsKubernetesNamesThem) {
  EXPECT_EQ(KubernetesArch("x86_64"), "amd64");
  EXPECT_EQ(KubernetesArch("aarch64"), "arm64");
  EXPECT_EQ(KubernetesArch("i686"), "386");
  EXPECT_EQ(
      OsImageFromOsRelease("NAME=\"Debian\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"),
      "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(OsImageFromOsRelease(""), "Linux");
}

TEST(NodeObject, LabelsAndStatus) {
  NodeReport r;
  r.spec.name = "n";
  r.spec.switch_name = "sw-a";
  r.spec.labels = {{"team", "x"}};
  r.gpus = {Gpu(0, true)};
  r.port = 1234;
  r.now = 1'700'000'000'000;
  auto labels = NodeLabels(r);
  EXPECT_EQ(labels[api::types::kSwitchLabel], "sw-a");
  EXPECT_EQ(labels[api::types::kHostnameLabel], "n");
  EXPECT_EQ(labels[api::types::kGpuCountLabel], "1");
  EXPECT_EQ(labels[api::types::kGpuMemoryLabel], "81920");
  EXPECT_EQ(labels["team"], "x");
  EXPECT_EQ(labels[api::types::kOsLabel], "linux");
  EXPECT_EQ(labels[api::types::kArchLabel], "amd64");
  nlohmann::json existing = nlohmann::json::parse(
      R"([{"type":"Ready","status":"True","lastTransitionTime":"2020-01-01T00:00:00Z"},
          {"type":"DiskPressure","status":"False"}])");
  auto status = NodeStatusObject(r, existing);
  EXPECT_EQ(status["daemonEndpoints"]["kubeletEndpoint"]["Port"], 1234);
  ASSERT_EQ(status["conditions"].size(), 2u);
  EXPECT_EQ(status["conditions"][0]["type"], "DiskPressure");
  EXPECT_EQ(status["conditions"][1]["reason"], "KubeletReady");
  EXPECT_EQ(status["conditions"][1]["lastTransitionTime"], "2020-01-01T00:00:00Z");
  EXPECT_EQ(status["addresses"][0]["address"], "127.0.0.1");
  EXPECT_EQ(FormatRfc3339Micro(1'700'000'000'123), "2023-11-14T22:13:20.123000Z");
}

TEST(NodeObject, LeaseIsCreatedThenRenewedWithTheClocksTime) {
  client::testing::InProcessApi api;
  FakeClock clock;
  ASSERT_TRUE(RenewLease(api.rest(), "n", 40, clock.NowMs()).ok());
  clock.Advance(10'250);
  ASSERT_TRUE(RenewLease(api.rest(), "n", 40, clock.NowMs()).ok());
  auto lease = api.rest().Get(client::Path("leases", api::types::kNodeLeaseNamespace, "n"));
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_EQ((*lease)["spec"]["renewTime"], FormatRfc3339Micro(clock.NowMs()));
  EXPECT_EQ((*lease)["spec"]["acquireTime"], FormatRfc3339Micro(clock.NowMs() - 10'250));
  EXPECT_EQ((*lease)["spec"]["leaseDurationSeconds"], 40);
  EXPECT_EQ((*lease)["spec"]["holderIdentity"], "n");
}

TEST(NodeObject, DeletedNodeIsRegisteredAgain) {
  client::testing::InProcessApi api;
  NodeReport r;
  r.spec.name = "n";
  ASSERT_TRUE(RegisterNode(api.rest(), r).ok());
  ASSERT_TRUE(api.rest().Delete(client::Path("nodes", "", "n")).ok());
  EXPECT_EQ(UpdateNodeStatus(api.rest(), r).code(), StatusCode::kNotFound);
  ASSERT_TRUE(RegisterNode(api.rest(), r).ok());
  EXPECT_TRUE(api.rest().Get(client::Path("nodes", "", "n")).ok());
}

}  // namespace
}  // namespace etna::agent
