// The agent against the in-process API: registration from a profile, the Lease, fake NVML with
// an injected XID, several simulated nodes in one process.
#include "agent/agent.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "agent/agent_test_fixture.h"
#include "agent/gpu/nvml_source.h"
#include "client/node_gpus.h"

namespace etna::agent::testing {
namespace {

TEST_F(AgentTest, RegistersANodeFromTheProfile) {
  auto nodes = LoadClusterProfile(std::string(ETNA_SOURCE_DIR) + "/examples/clusters/dev.yaml");
  ASSERT_TRUE(nodes.ok());
  auto node = FindProfileNode(*nodes, "a100mig-1");
  ASSERT_TRUE(node.ok());
  AgentOptions o = SimulatedNodeOptions(*node, api_.Factory(), dir_);
  o.shim_binary = ETNA_AGENT_SHIM_PATH;
  o.lease_seconds = 2;
  StartAgent(std::move(o));
  json n = Node("a100mig-1");
  ASSERT_FALSE(n.is_null());
  EXPECT_EQ(n["metadata"]["labels"][api::types::kSwitchLabel], "sw-b");
  EXPECT_EQ(n["metadata"]["labels"][api::types::kGpuModelLabel], "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(n["metadata"]["labels"][api::types::kGpuCountLabel], "4");
  EXPECT_EQ(n["metadata"]["labels"][api::types::kHostnameLabel], "a100mig-1");
  EXPECT_EQ(n["status"]["capacity"]["nvidia.com/mig-1g.10gb"], "8");
  EXPECT_EQ(n["status"]["allocatable"]["nvidia.com/mig-3g.40gb"], "4");
  EXPECT_EQ(n["status"]["allocatable"]["nvidia.com/gpu"], "0");
  EXPECT_EQ(n["status"]["capacity"]["cpu"], "64");
  EXPECT_EQ(n["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"], agent_->port());
  bool ready = false;
  for (const auto& c : n["status"]["conditions"]) {
    ready =
        ready || (c["type"] == "Ready" && c["status"] == "True" && c["reason"] == "KubeletReady");
  }
  EXPECT_TRUE(ready);
  auto gpus = client::DecodeNodeGpus(
      n["metadata"]["annotations"][api::types::kNodeGpusAnnotation].get<std::string>());
  ASSERT_TRUE(gpus.ok());
  ASSERT_EQ(gpus->size(), 4u);
  EXPECT_EQ((*gpus)[2].uuid, SimulatedGpuUuid("a100mig-1", 2));

  auto lease =
      api_.rest().Get(client::Path("leases", api::types::kNodeLeaseNamespace, "a100mig-1"));
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_EQ((*lease)["spec"]["holderIdentity"], "a100mig-1");
  EXPECT_EQ((*lease)["spec"]["leaseDurationSeconds"], 2);
  std::string first = (*lease)["spec"]["renewTime"];
  // Renewed every leaseDuration/4 (500 ms here).
  EXPECT_TRUE(WaitFor([&] {
    auto l = api_.rest().Get(client::Path("leases", api::types::kNodeLeaseNamespace, "a100mig-1"));
    return l.ok() && (*l)["spec"]["renewTime"] != first;
  }));

  // A restart keeps what an operator set: a cordon, a taint, a label.
  agent_.reset();
  ASSERT_TRUE(api_.rest()
                  .MergePatch(client::Path("nodes", "", "a100mig-1"),
                              {{"metadata", {{"labels", {{"team", "x"}}}}},
                               {"spec",
                                {{"unschedulable", true},
                                 {"taints", {{{"key", "k"}, {"effect", "NoSchedule"}}}}}}})
                  .ok());
  AgentOptions again = SimulatedNodeOptions(*node, api_.Factory(), dir_);
  again.shim_binary = ETNA_AGENT_SHIM_PATH;
  StartAgent(std::move(again));
  n = Node("a100mig-1");
  EXPECT_EQ(n["metadata"]["labels"]["team"], "x");
  EXPECT_EQ(n["spec"]["unschedulable"], true);
  EXPECT_EQ(n["spec"]["taints"].size(), 1u);
}

TEST_F(AgentTest, FakeNvmlXidMakesTheGpuUnhealthy) {
  const std::string xids = StartTwoT4Node();
  json n = Node("t4-node");
  EXPECT_EQ(n["metadata"]["labels"][api::types::kGpuModelLabel], "Tesla-T4");
  EXPECT_EQ(n["status"]["allocatable"]["nvidia.com/gpu"], "2");
  std::ofstream(xids, std::ios::app) << "1 79\n";
  ASSERT_TRUE(WaitFor([&] {
    return Node("t4-node").value("/status/allocatable/nvidia.com~1gpu"_json_pointer,
                                 std::string()) == "1";
  }));
  n = Node("t4-node");
  EXPECT_EQ(n["status"]["capacity"]["nvidia.com/gpu"], "2");
  auto gpus = client::DecodeNodeGpus(
      n["metadata"]["annotations"][api::types::kNodeGpusAnnotation].get<std::string>());
  ASSERT_TRUE(gpus.ok());
  EXPECT_TRUE((*gpus)[0].healthy);
  EXPECT_FALSE((*gpus)[1].healthy);
  EXPECT_EQ((*gpus)[1].uuid, "GPU-t1");
  net::http::ClientOptions http;
  http.port = agent_->port();
  http.tls = false;
  net::http::HttpClient client(http);
  auto metrics = client.Do("GET", "/metrics");
  ASSERT_TRUE(metrics.ok());
  EXPECT_NE(metrics->body.find("DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"GPU-t1\","
                               "pci_bus_id=\"00000000:11:00.0\",device=\"nvidia1\","
                               "modelName=\"Tesla-T4\",Hostname=\"t4-node\"} 79"),
            std::string::npos)
      << metrics->body;
}

// Pods on-0 and on-1 on t4-node's GPUs 0 and 1 (StartTwoT4Node); then GPU 1 breaks as `fault`
// says (a line of the fake NVML's XID file: "1 79", "1 lost").
class BrokenGpuTest : public AgentTest {
 protected:
  // on-1's status once it has failed.
  json BreakGpuOneUnderItsPod(const std::string& fault) {
    const std::string xids = StartTwoT4Node();
    for (const char* gpu : {"0", "1"}) {
      CreatePod(std::string("on-") + gpu, "t4-node", "exec sleep 60", "OnFailure", json::array(),
                {{api::types::kGpuIdsAnnotation, gpu}});
    }
    EXPECT_TRUE(WaitFor([&] { return Phase("on-0") == "Running" && Phase("on-1") == "Running"; }));
    std::ofstream(xids, std::ios::app) << fault << "\n";
    EXPECT_TRUE(WaitFor([&] { return Phase("on-1") == "Failed"; }));
    return Pod("on-1")["status"];
  }
};

// A pod whose GPU reports XID 79 mid-run is stopped at once and reported Failed with reason
// UnhealthyGPU naming the GPU and the XID; a pod on the other GPU runs on.
TEST_F(BrokenGpuTest, APodOnAGpuThatFallsOffTheBusFailsNamingTheGpuAndTheXid) {
  json status = BreakGpuOneUnderItsPod("1 79");
  EXPECT_EQ(status.value("reason", ""), "UnhealthyGPU");
  std::string message = status.value("message", "");
  EXPECT_NE(message.find("GPU 1 (GPU-t1)"), std::string::npos) << message;
  EXPECT_NE(message.find("XID 79: the GPU has fallen off the bus"), std::string::npos) << message;
  EXPECT_EQ(Phase("on-0"), "Running");
}

// A GPU that NVML calls lost (GPU_IS_LOST: gone from the bus without an XID) fails the pod on
// it naming the GPU, leaves the node's other GPU and its pod alone, and is no longer offered.
TEST_F(BrokenGpuTest, APodOnAGpuThatNvmlCallsLostFailsAndTheOtherGpuStays) {
  json status = BreakGpuOneUnderItsPod("1 lost");
  EXPECT_EQ(status.value("reason", ""), "UnhealthyGPU");
  std::string message = status.value("message", "");
  EXPECT_NE(message.find("GPU 1 (GPU-t1) of node t4-node is lost"), std::string::npos) << message;
  EXPECT_EQ(Phase("on-0"), "Running");
  ASSERT_TRUE(WaitFor([&] {
    auto node = api_.rest().Get(client::Path("nodes", "", "t4-node"));
    return node.ok() &&
           node->value("/status/allocatable/nvidia.com~1gpu"_json_pointer, std::string()) == "1";
  })) << "the lost GPU is still allocatable";
}

// GET `path` on the agent's port: the status, then the body.
std::pair<int, std::string> AgentGet(const Agent& agent, const std::string& path) {
  net::http::ClientOptions http;
  http.port = agent.port();
  http.tls = false;
  net::http::HttpClient client(http);
  auto r = client.Do("GET", path);
  if (!r.ok()) return {0, r.status().ToString()};
  return {r->status, r->body};
}

// The sample lines of `text` whose labels contain `needle`.
std::vector<std::string> SampleLines(const std::string& text, const std::string& needle) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#' && line.find(needle) != std::string::npos) {
      out.push_back(line);
    }
  }
  return out;
}

TEST_F(AgentTest, MetricsNameThePodHoldingAGpuAndReadyzSaysReady) {
  json config = {{"devices",
                  {{{"name", "Tesla T4"}, {"uuid", "GPU-t0"}, {"memoryMiB", 15360}},
                   {{"name", "Tesla T4"},
                    {"uuid", "GPU-t1"},
                    {"memoryMiB", 15360},
                    {"usedMiB", 2048},
                    {"smClockMHz", 1590}}}}};
  StartFakeNvmlAgent("t4-node", config);
  ASSERT_TRUE(WaitFor([&] { return AgentGet(*agent_, "/readyz").first == 200; }));
  EXPECT_EQ(AgentGet(*agent_, "/readyz").second, "ok");

  CreatePod("holder", "t4-node", "sleep 30", "Never", json::array(),
            {{api::types::kGpuIdsAnnotation, "1"}, {api::types::kGpuUuidsAnnotation, "GPU-t1"}});
  std::string text;
  ASSERT_TRUE(WaitFor([&] {
    text = AgentGet(*agent_, "/metrics").second;
    return text.find("pod=\"holder\"") != std::string::npos;
  })) << text;
  std::vector<std::string> gpu1 = SampleLines(text, "{gpu=\"1\"");
  ASSERT_FALSE(gpu1.empty());
  for (const std::string& line : gpu1) {
    EXPECT_NE(line.find(",Hostname=\"t4-node\",container=\"main\",namespace=\"default\","
                        "pod=\"holder\"}"),
              std::string::npos)
        << line;
  }
  std::vector<std::string> gpu0 = SampleLines(text, "{gpu=\"0\"");
  ASSERT_FALSE(gpu0.empty());
  for (const std::string& line : gpu0) EXPECT_EQ(line.find("pod="), std::string::npos) << line;
  EXPECT_EQ(SampleLines(text, "DCGM_FI_DEV_SM_CLOCK{").size(), 1u) << text;  // GPU 1 only
  EXPECT_NE(text.find("DCGM_FI_DEV_FB_USED{gpu=\"1\""), std::string::npos);
  EXPECT_NE(text.find("DCGM_FI_DEV_COUNT{Hostname=\"t4-node\"} 2\n"), std::string::npos);
}

TEST_F(AgentTest, SimulatedNodeReadingsFollowThePodsItRuns) {
  StartSimulatedAgent("t4-0");
  CreatePod("busy", "t4-0", "sleep 30", "Never", json::array(),
            {{api::types::kGpuIdsAnnotation, "1"}});
  std::vector<std::string> util;
  std::string text;
  ASSERT_TRUE(WaitFor([&] {
    text = AgentGet(*agent_, "/metrics").second;
    util = SampleLines(text, "DCGM_FI_DEV_GPU_UTIL{");
    return util.size() == 2 && util[1].find("pod=\"busy\"") != std::string::npos &&
           util[1].ends_with(" 87");  // 80 + 7*1 mod 16, once the pod is Ready
  })) << text;
  EXPECT_EQ(util[0].substr(util[0].rfind(' ')), " 0");
}

// A pod that is not Ready yet (still loading its model) has not loaded its GPU: 0 %, as a real
// device reads before the work begins; once Ready and driving nothing, the simulated busy reading.
TEST_F(AgentTest, ASimulatedGpuReadsIdleUntilItsPodIsReady) {
  StartSimulatedAgent("t4-0");
  std::string go = dir_ + "/ready";
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", "loading"},
                {"namespace", "default"},
                {"annotations", {{api::types::kGpuIdsAnnotation, "1"}}}}},
              {"spec",
               {{"nodeName", "t4-0"},
                {"restartPolicy", "Never"},
                {"containers",
                 {{{"name", "main"},
                   {"image", "busybox"},
                   {"command", {"sh", "-c", "sleep 30"}},
                   {"readinessProbe",
                    {{"exec", {{"command", {"test", "-f", go}}}}, {"periodSeconds", 1}}}}}}}}};
  ASSERT_TRUE(api_.rest().Create(client::Path("pods", "default"), pod).ok());
  auto reading = [&]() -> std::string {
    auto lines =
        SampleLines(AgentGet(*agent_, "/metrics").second, "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\"");
    return lines.size() == 1 ? lines[0] : "";
  };
  ASSERT_TRUE(WaitFor([&] { return Phase("loading") == "Running"; }));
  std::string line = reading();
  EXPECT_NE(line.find("pod=\"loading\""), std::string::npos) << line;
  EXPECT_TRUE(line.ends_with(" 0")) << line;
  std::ofstream(go).close();
  ASSERT_TRUE(WaitFor([&] { return reading().ends_with(" 87"); })) << reading();
}

TEST_F(AgentTest, ASimulatedPodDrivesItsGpusUtilizationAndTheSummaryShowsItsUsage) {
  StartSimulatedAgent("t4-0");
  std::string go = dir_ + "/go";
  CreatePod("loaded", "t4-0",
            "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo 42 > "
            "$ETNA_GPU_UTILIZATION_FILE; while [ ! -f " +
                go + " ]; do sleep 0.02; done; echo 7 > $ETNA_GPU_UTILIZATION_FILE; sleep 30",
            "Never", json::array(), {{api::types::kGpuIdsAnnotation, "1"}});
  json summary;
  auto duty = [&]() -> int {
    summary = json::parse(AgentGet(*agent_, "/stats/summary").second);
    for (const json& p : summary["pods"]) {
      if (p["podRef"]["name"] != "loaded") continue;
      const json& acc = p["containers"][0].value("accelerators", json::array());
      return acc.empty() ? -1 : acc[0].value("dutyCycle", -1);
    }
    return -1;
  };
  ASSERT_TRUE(WaitFor([&] { return duty() == 42; })) << summary.dump();
  std::vector<std::string> util =
      SampleLines(AgentGet(*agent_, "/metrics").second, "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\"");
  ASSERT_EQ(util.size(), 1u);
  EXPECT_EQ(util[0].substr(util[0].rfind(' ')), " 42");
  const json& pod = summary["pods"][0];
  EXPECT_GT(pod["cpu"]["usageCoreNanoSeconds"].get<int64_t>(), 0);  // the counting loop
  EXPECT_GT(pod["memory"]["workingSetBytes"].get<int64_t>(), 0);
  EXPECT_EQ(summary["node"]["memory"]["workingSetBytes"], pod["memory"]["workingSetBytes"]);
  std::ofstream(go).close();
  ASSERT_TRUE(WaitFor([&] { return duty() == 7; })) << summary.dump();
}

TEST_F(AgentTest, SeveralSimulatedNodesInOneProcess) {
  auto nodes = LoadClusterProfile(std::string(ETNA_SOURCE_DIR) + "/examples/clusters/dev.yaml");
  ASSERT_TRUE(nodes.ok());
  std::vector<std::unique_ptr<Agent>> agents;
  for (const auto& node : *nodes) {
    if (node.name != "t4-0" && node.name != "t4-1" && node.name != "h100-0") continue;
    AgentOptions o = SimulatedNodeOptions(node, api_.Factory(), dir_ + "/nodes");
    o.shim_binary = ETNA_AGENT_SHIM_PATH;
    o.sync_period = std::chrono::milliseconds(20);
    agents.push_back(std::make_unique<Agent>(std::move(o)));
    ASSERT_TRUE(agents.back()->Start().ok());
  }
  EXPECT_NE(agents[0]->port(), agents[1]->port());
  EXPECT_EQ(Node("h100-0")["status"]["allocatable"]["nvidia.com/gpu"], "8");
  CreatePod("on-t4-0", "t4-0", "echo $NODE_NAME_CHECK zero", "Never");
  CreatePod("on-t4-1", "t4-1", "echo one", "Never");
  ASSERT_TRUE(
      WaitFor([&] { return Phase("on-t4-0") == "Succeeded" && Phase("on-t4-1") == "Succeeded"; }));
  EXPECT_TRUE(fs::exists(dir_ + "/nodes/t4-0/pods/" +
                         Pod("on-t4-0")["metadata"]["uid"].get<std::string>()));
  EXPECT_FALSE(fs::exists(dir_ + "/nodes/t4-1/pods/" +
                          Pod("on-t4-0")["metadata"]["uid"].get<std::string>()));
}

// The small etna-agent-shim beside the agent's executable supervises its pods when it is there
// and executable; otherwise the executable's own `agent-shim` command does.
TEST(ShimBinaryTest, TheShimBesideTheExecutableWhenItCanRun) {
  std::string dir = ::testing::TempDir() + "shim-binary-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string self = dir + "/etna", shim = dir + "/etna-agent-shim";
  EXPECT_EQ(ShimBinaryFor(self), self) << "no shim beside it";
  { std::ofstream(shim) << "#!/bin/sh\n"; }
  std::filesystem::permissions(shim, std::filesystem::perms::owner_read);
  EXPECT_EQ(ShimBinaryFor(self), self) << "a shim that cannot run";
  std::filesystem::permissions(shim, std::filesystem::perms::owner_all);
  EXPECT_EQ(ShimBinaryFor(self), shim);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace etna::agent::testing
