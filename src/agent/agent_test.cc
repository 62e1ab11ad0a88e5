// The agent end to end against the in-process API: registration from a profile, fake NVML with
// an injected XID, pods run as processes (env, logs, exit codes, phases, restarts), graceful
// deletion, adoption after the agent goes away, and the logs endpoint.
#include "agent/agent.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "agent/gpu/nvml_source.h"
#include "api/http/client.h"
#include "client/node_gpus.h"
#include "client/testing/in_process_api.h"
#include "client/well_known.h"

namespace etna::agent {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

bool WaitFor(const std::function<bool()>& done, int seconds = 20) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
  }
  return done();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class AgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("etna_agent_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    agent_.reset();
    for (pid_t pid : pids_to_kill_) kill(pid, SIGKILL);
    fs::remove_all(dir_);
  }

  AgentOptions Options(const std::string& node) {
    AgentOptions o;
    o.node.name = node;
    o.node.cpu = "8";
    o.node.memory = "16Gi";
    o.transports = api_.Factory();
    o.data_dir = dir_ + "/data";
    o.lease_seconds = 2;
    o.heartbeat_period = std::chrono::milliseconds(50);
    o.sync_period = std::chrono::milliseconds(20);
    o.shim_binary = ETNA_AGENT_SHIM_PATH;
    o.restart_backoff_initial_ms = 50;
    o.restart_backoff_max_ms = 200;
    return o;
  }

  void StartAgent(AgentOptions o) {
    agent_ = std::make_unique<Agent>(std::move(o));
    Status s = agent_->Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  json Node(const std::string& name) {
    auto n = api_.rest().Get(client::Path("nodes", "", name));
    return n.ok() ? *n : json();
  }

  json Pod(const std::string& name) {
    auto p = api_.rest().Get(client::Path("pods", "default", name));
    return p.ok() ? *p : json();
  }

  std::string Phase(const std::string& name) {
    return Pod(name).value("/status/phase"_json_pointer, std::string());
  }

  // A bound pod running `script` with sh -c.
  void CreatePod(const std::string& name, const std::string& node, const std::string& script,
                 const std::string& restart_policy = "Never", json extra_env = json::array(),
                 json annotations = json::object(), int grace_seconds = 30) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", "default"}}},
                {"spec",
                 {{"nodeName", node},
                  {"restartPolicy", restart_policy},
                  {"terminationGracePeriodSeconds", grace_seconds},
                  {"containers",
                   {{{"name", "main"},
                     {"image", "busybox"},
                     {"command", {"sh", "-c", script}},
                     {"env", extra_env}}}}}}};
    if (!annotations.empty()) pod["metadata"]["annotations"] = annotations;
    auto r = api_.rest().Create(client::Path("pods", "default"), pod);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  std::string Logs(const std::string& pod, const std::string& query = "") {
    api::http::ClientOptions o;
    o.port = agent_->port();
    o.tls = false;
    api::http::HttpClient client(o);
    auto r = client.Do("GET", "/containerLogs/default/" + pod + "/main" + query);
    if (!r.ok()) return "<" + r.status().ToString() + ">";
    return r->body;
  }

  client::testing::InProcessApi api_;
  std::string dir_;
  std::unique_ptr<Agent> agent_;
  std::vector<pid_t> pids_to_kill_;
};

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
  EXPECT_EQ(n["metadata"]["labels"][client::kSwitchLabel], "sw-b");
  EXPECT_EQ(n["metadata"]["labels"][client::kGpuModelLabel], "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(n["metadata"]["labels"][client::kGpuCountLabel], "4");
  EXPECT_EQ(n["metadata"]["labels"][client::kHostnameLabel], "a100mig-1");
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
      n["metadata"]["annotations"][client::kNodeGpusAnnotation].get<std::string>());
  ASSERT_TRUE(gpus.ok());
  ASSERT_EQ(gpus->size(), 4u);
  EXPECT_EQ((*gpus)[2].uuid, SimulatedGpuUuid("a100mig-1", 2));

  auto lease = api_.rest().Get(client::Path("leases", client::kNodeLeaseNamespace, "a100mig-1"));
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_EQ((*lease)["spec"]["holderIdentity"], "a100mig-1");
  EXPECT_EQ((*lease)["spec"]["leaseDurationSeconds"], 2);
  std::string first = (*lease)["spec"]["renewTime"];
  // Renewed every leaseDuration/4 (500 ms here).
  EXPECT_TRUE(WaitFor([&] {
    auto l = api_.rest().Get(client::Path("leases", client::kNodeLeaseNamespace, "a100mig-1"));
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
  std::string xids = dir_ + "/xids";
  std::ofstream(xids).close();
  json config = {{"xidFile", xids},
                 {"devices",
                  {{{"name", "Tesla T4"}, {"uuid", "GPU-t0"}, {"memoryMiB", 15360}},
                   {{"name", "Tesla T4"}, {"uuid", "GPU-t1"}, {"memoryMiB", 15360}}}}};
  std::ofstream(dir_ + "/nvml.json") << config.dump();
  setenv("ETNA_FAKE_NVML_CONFIG", (dir_ + "/nvml.json").c_str(), 1);
  auto nvml = NvmlGpuSource::Open(ETNA_FAKE_NVML_PATH);
  ASSERT_TRUE(nvml.ok()) << nvml.status().ToString();
  AgentOptions o = Options("t4-node");
  o.gpu_source = std::move(*nvml);
  StartAgent(std::move(o));
  json n = Node("t4-node");
  EXPECT_EQ(n["metadata"]["labels"][client::kGpuModelLabel], "Tesla-T4");
  EXPECT_EQ(n["status"]["allocatable"]["nvidia.com/gpu"], "2");
  std::ofstream(xids, std::ios::app) << "1 79\n";
  ASSERT_TRUE(WaitFor([&] {
    return Node("t4-node").value("/status/allocatable/nvidia.com~1gpu"_json_pointer,
                                 std::string()) == "1";
  }));
  n = Node("t4-node");
  EXPECT_EQ(n["status"]["capacity"]["nvidia.com/gpu"], "2");
  auto gpus = client::DecodeNodeGpus(
      n["metadata"]["annotations"][client::kNodeGpusAnnotation].get<std::string>());
  ASSERT_TRUE(gpus.ok());
  EXPECT_TRUE((*gpus)[0].healthy);
  EXPECT_FALSE((*gpus)[1].healthy);
  EXPECT_EQ((*gpus)[1].uuid, "GPU-t1");
}

TEST_F(AgentTest, PodRunsWithGpuEnvAndFailsWithItsExitCode) {
  StartAgent(Options("n1"));
  CreatePod("p1", "n1", "echo $CUDA_VISIBLE_DEVICES $NVIDIA_VISIBLE_DEVICES $MY_POD; exit 3",
            "Never",
            {{{"name", "NVIDIA_VISIBLE_DEVICES"}, {"value", "all"}},
             {{"name", "MY_POD"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}}},
            {{client::kGpuIdsAnnotation, "0,1"}, {client::kGpuUuidsAnnotation, "GPU-a,GPU-b"}});
  ASSERT_TRUE(WaitFor([&] { return Phase("p1") == "Failed"; })) << Pod("p1").dump();
  json p = Pod("p1");
  json cs = p["status"]["containerStatuses"][0];
  EXPECT_EQ(cs["state"]["terminated"]["exitCode"], 3);
  EXPECT_EQ(cs["state"]["terminated"]["reason"], "Error");
  EXPECT_EQ(cs["restartCount"], 0);
  EXPECT_EQ(p["status"]["podIP"], "127.0.0.1");
  EXPECT_EQ(p["status"]["hostIP"], "127.0.0.1");
  EXPECT_EQ(Logs("p1"), "0,1 GPU-a,GPU-b p1\n");
}

TEST_F(AgentTest, DownwardApiAndNoGpus) {
  StartAgent(Options("n1"));
  json env = {
      {{"name", "NS"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.namespace"}}}}}},
      {{"name", "UID"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.uid"}}}}}},
      {{"name", "IDX"},
       {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.annotations['idx']"}}}}}},
      {{"name", "IP"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "status.podIP"}}}}}},
      {{"name", "NODE"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "spec.nodeName"}}}}}}};
  CreatePod("p2", "n1",
            "echo \"$NS $IDX $IP $NODE [$CUDA_VISIBLE_DEVICES] $NVIDIA_VISIBLE_DEVICES\"; "
            "echo $UID",
            "Never", env, {{"idx", "7"}});
  ASSERT_TRUE(WaitFor([&] { return Phase("p2") == "Succeeded"; })) << Pod("p2").dump();
  std::string uid = Pod("p2")["metadata"]["uid"];
  EXPECT_EQ(Logs("p2"), "default 7 127.0.0.1 n1 [] void\n" + uid + "\n");
  EXPECT_EQ(Pod("p2")["status"]["containerStatuses"][0]["state"]["terminated"]["reason"],
            "Completed");
}

TEST_F(AgentTest, OnFailureRestartsAndCountsRestarts) {
  StartAgent(Options("n1"));
  std::string marker = dir_ + "/tried";
  CreatePod("p3", "n1",
            "if [ -f " + marker + " ]; then echo second; exit 0; fi; touch " + marker +
                "; echo first; exit 1",
            "OnFailure");
  ASSERT_TRUE(WaitFor([&] { return Phase("p3") == "Succeeded"; })) << Pod("p3").dump();
  json cs = Pod("p3")["status"]["containerStatuses"][0];
  EXPECT_EQ(cs["restartCount"], 1);
  EXPECT_EQ(cs["lastState"]["terminated"]["exitCode"], 1);
  EXPECT_EQ(Logs("p3"), "second\n");
  EXPECT_EQ(Logs("p3", "?previous=true"), "first\n");
}

TEST_F(AgentTest, ExecFailureIsAContainerStatusNotACrash) {
  StartAgent(Options("n1"));
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p4"}, {"namespace", "default"}}},
              {"spec",
               {{"nodeName", "n1"},
                {"restartPolicy", "Never"},
                {"containers",
                 {{{"name", "main"}, {"image", "x"}, {"command", {"/nonexistent/program"}}}}}}}};
  ASSERT_TRUE(api_.rest().Create(client::Path("pods", "default"), pod).ok());
  ASSERT_TRUE(WaitFor([&] { return Phase("p4") == "Failed"; })) << Pod("p4").dump();
  json t = Pod("p4")["status"]["containerStatuses"][0]["state"]["terminated"];
  EXPECT_EQ(t["reason"], "StartError");
  EXPECT_NE(t["message"].get<std::string>().find("/nonexistent/program"), std::string::npos);
}

TEST_F(AgentTest, GracefulDeleteSendsSigtermThenDeletesThePod) {
  StartAgent(Options("n1"));
  std::string file = dir_ + "/got-term";
  CreatePod("p5", "n1",
            "trap 'echo term > " + file +
                "; exit 0' TERM; echo started; "
                "while true; do sleep 0.05; done");
  ASSERT_TRUE(WaitFor([&] { return Logs("p5") == "started\n"; }));
  EXPECT_EQ(Phase("p5"), "Running");
  ASSERT_TRUE(api_.rest().Delete(client::Path("pods", "default", "p5")).ok());
  ASSERT_TRUE(WaitFor([&] {
    return api_.rest().Get(client::Path("pods", "default", "p5")).status().code() ==
           StatusCode::kNotFound;
  }));
  EXPECT_EQ(ReadFile(file), "term\n");
}

TEST_F(AgentTest, GracePeriodEndsWithSigkill) {
  StartAgent(Options("n1"));
  CreatePod("p6", "n1", "trap '' TERM; echo started; while true; do sleep 0.05; done", "Never",
            json::array(), json::object(), 1);
  ASSERT_TRUE(WaitFor([&] { return Logs("p6") == "started\n"; }));
  ASSERT_TRUE(api_.rest().Delete(client::Path("pods", "default", "p6")).ok());
  ASSERT_TRUE(WaitFor([&] {
    return api_.rest().Get(client::Path("pods", "default", "p6")).status().code() ==
           StatusCode::kNotFound;
  }));
}

TEST_F(AgentTest, NewAgentAdoptsRunningContainers) {
  StartAgent(Options("n1"));
  std::string file = dir_ + "/starts";
  // "$$$$": Kubernetes' expansion turns "$$" into "$", so the shell sees "$$" (its pid).
  CreatePod("p7", "n1", "echo $$$$ >> " + file + "; exec sleep 60");
  ASSERT_TRUE(WaitFor([&] { return Phase("p7") == "Running" && !ReadFile(file).empty(); }));
  pid_t pid = std::stoi(ReadFile(file));
  pids_to_kill_.push_back(pid);
  agent_.reset();  // the agent goes away; the container does not
  ASSERT_EQ(kill(pid, 0), 0);
  StartAgent(Options("n1"));
  // The new agent owns the process: deleting the pod stops that very process.
  ASSERT_TRUE(api_.rest().Delete(client::Path("pods", "default", "p7"), 1).ok());
  ASSERT_TRUE(WaitFor([&] {
    return api_.rest().Get(client::Path("pods", "default", "p7")).status().code() ==
           StatusCode::kNotFound;
  }));
  EXPECT_TRUE(WaitFor([&] { return kill(pid, 0) != 0; }));
  EXPECT_EQ(ReadFile(file), std::to_string(pid) + "\n");  // started exactly once
}

TEST_F(AgentTest, AdoptedContainerThatEndedIsReported) {
  StartAgent(Options("n1"));
  std::string go = dir_ + "/go";
  std::string file = dir_ + "/starts";
  CreatePod("p8", "n1",
            "echo x >> " + file + "; while [ ! -f " + go + " ]; do sleep 0.02; done; exit 4");
  ASSERT_TRUE(WaitFor([&] { return Phase("p8") == "Running"; }));
  agent_.reset();
  std::ofstream(go).close();  // it ends while no agent runs
  StartAgent(Options("n1"));
  ASSERT_TRUE(WaitFor([&] { return Phase("p8") == "Failed"; })) << Pod("p8").dump();
  EXPECT_EQ(Pod("p8")["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"], 4);
  EXPECT_EQ(ReadFile(file), "x\n");
}

TEST_F(AgentTest, LogsEndpointTailsAndFollows) {
  StartAgent(Options("n1"));
  std::string go = dir_ + "/go";
  CreatePod("p9", "n1",
            "for i in 1 2 3 4 5; do echo $i; done; while [ ! -f " + go +
                " ]; do sleep 0.02; done; echo end");
  ASSERT_TRUE(WaitFor([&] { return Logs("p9") == "1\n2\n3\n4\n5\n"; }));
  EXPECT_EQ(Logs("p9", "?tailLines=2"), "4\n5\n");
  EXPECT_EQ(Logs("p9", "?limitBytes=3"), "1\n2");
  api::http::ClientOptions o;
  o.port = agent_->port();
  o.tls = false;
  api::http::HttpClient client(o);
  std::string streamed;
  std::thread follower([&] {
    client
        .Stream("GET", "/containerLogs/default/p9/main?follow=true&tailLines=1",
                [&](std::string_view data) {
                  streamed += data;
                  return true;
                })
        .ok();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // not for ordering: let it attach
  std::ofstream(go).close();
  follower.join();  // the stream ends when the container does
  EXPECT_EQ(streamed, "5\nend\n");
  api::http::HttpClient health(o);
  auto h = health.Do("GET", "/healthz");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->body, "ok");
  auto missing = health.Do("GET", "/containerLogs/default/nope/main");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 404);
}

TEST_F(AgentTest, ReadinessAndLivenessProbes) {
  StartAgent(Options("n1"));
  std::string ready = dir_ + "/ready";
  std::string starts = dir_ + "/starts";
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "p10"}, {"namespace", "default"}}},
              {"spec",
               {{"nodeName", "n1"},
                {"restartPolicy", "Always"},
                {"containers",
                 {{{"name", "main"},
                   {"image", "x"},
                   {"command", {"sh", "-c", "echo x >> " + starts + "; exec sleep 60"}},
                   {"readinessProbe",
                    {{"exec", {{"command", {"test", "-f", ready}}}}, {"periodSeconds", 1}}},
                   {"livenessProbe",
                    {{"exec", {{"command", {"sh", "-c", "test $(wc -l < " + starts + ") -lt 2"}}}},
                     {"periodSeconds", 1},
                     {"failureThreshold", 1}}}}}}}}};
  ASSERT_TRUE(api_.rest().Create(client::Path("pods", "default"), pod).ok());
  ASSERT_TRUE(WaitFor([&] { return Phase("p10") == "Running"; }));
  EXPECT_EQ(Pod("p10")["status"]["containerStatuses"][0]["ready"], false);
  std::ofstream(ready).close();
  ASSERT_TRUE(WaitFor(
      [&] { return Pod("p10").value("/status/containerStatuses/0/ready"_json_pointer, false); }));
  // Liveness fails once a second start is recorded: simulate by appending a line.
  std::ofstream(starts, std::ios::app) << "x\n";
  ASSERT_TRUE(WaitFor([&] {
    return Pod("p10").value("/status/containerStatuses/0/restartCount"_json_pointer, 0) >= 1;
  }));
  ASSERT_TRUE(api_.rest().Delete(client::Path("pods", "default", "p10"), 0).ok());
}

}  // namespace
}  // namespace etna::agent
