// The agent's usage summary: CPU rates from cumulative time, this process's session read from
// /proc, the kubelet Summary shape, and the accelerators a pod holds whole, shared or as a MIG
// instance.
#include "agent/stats_summary.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace etna::agent {
namespace {

using nlohmann::json;
using runtime::ProcessUsage;
using runtime::UsageSampler;

TEST(UsageSampler, RateOverTheIntervalSinceThePreviousSample) {
  UsageSampler sampler(1000);
  // First sample: the average since the leader started (2 s of CPU over 4 s = half a core).
  runtime::CpuRate first = sampler.Rate(7, {2'000'000'000, 0, 6'000}, 10'000);
  EXPECT_EQ(first.nano_cores, 500'000'000);
  EXPECT_EQ(first.window_ms, 4'000);
  // Under the minimum interval: the same rate again.
  EXPECT_EQ(sampler.Rate(7, {2'100'000'000, 0, 6'000}, 10'500).nano_cores, 500'000'000);
  // 1.5 s of CPU over the 2 s since the last sample: 0.75 cores.
  runtime::CpuRate next = sampler.Rate(7, {3'500'000'000, 0, 6'000}, 12'000);
  EXPECT_EQ(next.nano_cores, 750'000'000);
  EXPECT_EQ(next.window_ms, 2'000);
  // A new session under the same id (less cumulative time): measured from its start again.
  EXPECT_EQ(sampler.Rate(7, {1'000'000'000, 0, 11'000}, 13'000).nano_cores, 500'000'000);
  sampler.Retain({});
  EXPECT_EQ(sampler.Rate(7, {0, 0, 0}, 14'000).nano_cores, 0);  // forgotten, nothing to measure
}

// A child in its own session, as the shim starts each container: the test does not depend on
// where its own session leader is (under CI it may sit outside this PID namespace).
TEST(ProcessUsage, ReadsAChildsOwnSession) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setsid();
    volatile double x = 0;
    for (int i = 0; i < 20'000'000; ++i) x = x + i;  // some CPU time to find
    char c = 1;
    (void)!write(ready[1], &c, 1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  auto usage = runtime::ReadSessions({child});
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(usage.count(child));
  EXPECT_GT(usage[child].cpu_ns, 0);
  EXPECT_GT(usage[child].rss_bytes, 1 << 20);
  EXPECT_GT(usage[child].leader_start_ms, 0);
  EXPECT_TRUE(runtime::ReadSessions({}).empty());
  ProcessUsage host = runtime::ReadHost();
  EXPECT_GT(host.cpu_ns, 0);
  EXPECT_GT(host.rss_bytes, 0);
  EXPECT_GT(host.leader_start_ms, 0);
}

SummaryInput Input() {
  SummaryInput in;
  in.node_name = "n1";
  in.now = 100'000;
  in.node_from_pods = true;
  in.pods = {{"inference", "whole", "u1", 50'000, {{"server", 11}, {"sidecar", 12}}},
             {"inference", "share", "u2", 60'000, {{"server", 21}}},
             {"inference", "mig", "u3", 60'000, {{"server", 31}}}};
  in.sessions = {{11, {4'000'000'000, 100 << 20, 60'000}},
                 {12, {0, 1 << 20, 60'000}},
                 {21, {1'000'000'000, 10 << 20, 90'000}},
                 {31, {0, 5 << 20, 90'000}}};
  std::vector<GpuDevice> gpus(3);
  for (int i = 0; i < 3; ++i) {
    gpus[i].gpu.index = i;
    gpus[i].gpu.uuid = "GPU-" + std::to_string(i);
    gpus[i].gpu.model = "H100";
    gpus[i].gpu.memory_mib = 81920;
    gpus[i].metrics.gpu_utilization_percent = 10 * (i + 1);
    gpus[i].metrics.memory_used_mib = 1000;
  }
  gpus[2].mig_metrics = {{3, 10240, 7680}};
  in.gpus = gpus;
  in.holders[0] = {{"whole", "inference", "server"}};
  in.holders[1] = {{"share", "inference", "server", -1, 4096}};
  in.holders[2] = {{"mig", "inference", "server", 3, -1}};
  return in;
}

TEST(StatsSummary, KubeletShapeWithEachPodsAccelerators) {
  UsageSampler sampler;
  json s = StatsSummary(Input(), &sampler);
  ASSERT_EQ(s["pods"].size(), 3u);
  const json& whole = s["pods"][0];
  EXPECT_EQ(whole["podRef"], json({{"name", "whole"}, {"namespace", "inference"}, {"uid", "u1"}}));
  EXPECT_EQ(whole["cpu"]["usageNanoCores"], 100'000'000);  // 4 s of CPU over 40 s
  EXPECT_EQ(whole["memory"]["workingSetBytes"], (100 << 20) + (1 << 20));
  ASSERT_EQ(whole["containers"].size(), 2u);
  const json& acc = whole["containers"][0]["accelerators"];
  ASSERT_EQ(acc.size(), 1u);
  EXPECT_EQ(acc[0]["id"], "GPU-0");
  EXPECT_EQ(acc[0]["dutyCycle"], 10);
  EXPECT_EQ(acc[0]["memoryTotal"], 81920LL << 20);
  EXPECT_FALSE(whole["containers"][1].contains("accelerators"));
  const json& share = s["pods"][1]["containers"][0]["accelerators"][0];
  EXPECT_EQ(share["memoryTotal"], 4096LL << 20);
  EXPECT_EQ(share["memoryUsed"], 1000LL << 20);
  EXPECT_EQ(share["dutyCycle"], 20);  // the device's
  const json& mig = s["pods"][2]["containers"][0]["accelerators"][0];
  EXPECT_EQ(mig["id"], "MIG-GPU-2/3");
  EXPECT_EQ(mig["memoryTotal"], 10240LL << 20);
  EXPECT_EQ(mig["memoryUsed"], 7680LL << 20);
  // A simulated node is the sum of its pods.
  EXPECT_EQ(s["node"]["nodeName"], "n1");
  EXPECT_EQ(s["node"]["cpu"]["usageNanoCores"], 100'000'000 + 100'000'000);
  EXPECT_EQ(s["node"]["memory"]["workingSetBytes"], (100 + 1 + 10 + 5) << 20);
}

TEST(StatsSummary, AContainerThatEndedIsLeftOut) {
  SummaryInput in = Input();
  in.sessions.erase(21);
  UsageSampler sampler;
  json s = StatsSummary(in, &sampler);
  ASSERT_EQ(s["pods"].size(), 2u);
  EXPECT_EQ(s["pods"][1]["podRef"]["name"], "mig");
}

}  // namespace
}  // namespace etna::agent
