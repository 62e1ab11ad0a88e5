// The fixture of the agent's tests: an in-process API, a temporary dir, an Agent with
// sub-second periods and the shim built beside the tests, and helpers to make and read pods.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "agent/agent.h"
#include "agent/gpu/nvml_source.h"
#include "api/types/well_known.h"
#include "client/testing/in_process_api.h"
#include "common/file.h"
#include "common/testing/wait.h"
#include "net/http/client.h"

namespace etna::agent::testing {

using nlohmann::json;
namespace fs = std::filesystem;

// The agent's pods are real processes: their progress is polled.
using common_testing::WaitFor;

// The file's text, or "" while it does not exist yet (tests poll for it).
inline std::string TextOrEmpty(const std::string& path) {
  auto text = ReadFile(path);
  return text.ok() ? *text : "";
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
    // Pods go first so that the agent stops their processes; anything left whose command line
    // names this test's dir (a shim and its command) is then killed by its pid.
    if (agent_) {
      auto pods = api_.rest().List(client::Path("pods", "default"));
      if (pods.ok()) {
        for (const auto& p : *pods) {
          api_.rest()
              .Delete(client::Path("pods", "default", p["metadata"]["name"].get<std::string>()), 0)
              .ok();
        }
      }
      WaitFor([&] { return ProcessesOfThisTest().empty(); }, std::chrono::seconds(5));
    }
    agent_.reset();
    for (pid_t pid : ProcessesOfThisTest()) kill(pid, SIGKILL);
    for (pid_t pid : pids_to_kill_) kill(pid, SIGKILL);
    fs::remove_all(dir_);
  }

  std::vector<pid_t> ProcessesOfThisTest() const {
    std::vector<pid_t> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
      std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::string cmdline = TextOrEmpty(entry.path().string() + "/cmdline");
      if (cmdline.find(dir_) != std::string::npos) out.push_back(std::stoi(name));
    }
    return out;
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

  // Starts the agent of node `name` of examples/clusters/dev.yaml, its GPUs simulated.
  void StartSimulatedAgent(const std::string& name) {
    auto nodes = LoadClusterProfile(std::string(ETNA_SOURCE_DIR) + "/examples/clusters/dev.yaml");
    ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
    auto node = FindProfileNode(*nodes, name);
    ASSERT_TRUE(node.ok()) << node.status().ToString();
    AgentOptions o = SimulatedNodeOptions(*node, api_.Factory(), dir_);
    o.shim_binary = ETNA_AGENT_SHIM_PATH;
    o.sync_period = std::chrono::milliseconds(20);
    StartAgent(std::move(o));
  }

  // Starts node `name`'s agent over the project's fake NVML library reporting `config`.
  void StartFakeNvmlAgent(const std::string& name, const json& config) {
    std::ofstream(dir_ + "/nvml.json") << config.dump();
    setenv("ETNA_FAKE_NVML_CONFIG", (dir_ + "/nvml.json").c_str(), 1);
    auto nvml = NvmlGpuSource::Open(ETNA_FAKE_NVML_PATH);
    ASSERT_TRUE(nvml.ok()) << nvml.status().ToString();
    AgentOptions o = Options(name);
    o.gpu_source = std::move(*nvml);
    StartAgent(std::move(o));
  }

  // Node t4-node over the fake NVML with GPUs GPU-t0 and GPU-t1; returns its XID file (append
  // "<index> <xid>" lines to inject XIDs).
  std::string StartTwoT4Node() {
    std::string xids = dir_ + "/xids";
    std::ofstream(xids).close();
    json config = {{"xidFile", xids},
                   {"devices",
                    {{{"name", "Tesla T4"}, {"uuid", "GPU-t0"}, {"memoryMiB", 15360}},
                     {{"name", "Tesla T4"}, {"uuid", "GPU-t1"}, {"memoryMiB", 15360}}}}};
    StartFakeNvmlAgent("t4-node", config);
    return xids;
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

  // Runs pod `name` on n1 until it Succeeded: its `script` leaves a process running and writes
  // that process's pid to `pid_file`. The pid, killed at teardown in any case; 0 on a failure,
  // which it reports.
  pid_t RunPodLeavingAProcess(const std::string& name, const std::string& script,
                              const std::string& pid_file) {
    CreatePod(name, "n1", script);
    if (!WaitFor([&] { return Phase(name) == "Succeeded"; })) {
      ADD_FAILURE() << name << " did not succeed";
      return 0;
    }
    std::string text = TextOrEmpty(pid_file);
    if (text.empty()) {
      ADD_FAILURE() << name << " wrote no pid to " << pid_file;
      return 0;
    }
    pid_t pid = std::stoi(text);
    pids_to_kill_.push_back(pid);
    return pid;
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
    net::http::ClientOptions o;
    o.port = agent_->port();
    o.tls = false;
    net::http::HttpClient client(o);
    auto r = client.Do("GET", "/containerLogs/default/" + pod + "/main" + query);
    if (!r.ok()) return "<" + r.status().ToString() + ">";
    return r->body;
  }

  client::testing::InProcessApi api_;
  std::string dir_;
  std::unique_ptr<Agent> agent_;
  std::vector<pid_t> pids_to_kill_;
};

}  // namespace etna::agent::testing
