// Test kit for the scheduler's tests: an in-process API, nodes made as the agent makes them,
// PodGroups and pods as the job controller makes them, and the polling wait (common/testing).
// Thread-safety: test-only; one kit per test.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/types/well_known.h"
#include "client/node_gpus.h"
#include "client/testing/in_process_api.h"
#include "common/testing/wait.h"
#include "scheduler/scheduler.h"

namespace etna::scheduler::testkit {

using nlohmann::json;

// The scheduler's loop and informers run on their own threads: their effects are polled.
using common_testing::WaitFor;

class Kit {
 public:
  client::RestClient& rest() { return api_.rest(); }
  client::testing::InProcessApi& api() { return api_; }

  // A Ready node with `gpus` devices; devices [0, gpus/2) in NVLink domain 0, the rest in 1.
  void AddNode(const std::string& name, int gpus, const std::string& switch_name = "s0") {
    std::vector<client::NodeGpu> list;
    for (int i = 0; i < gpus; ++i) {
      client::NodeGpu g;
      g.index = i;
      g.uuid = "GPU-" + name + "-" + std::to_string(i);
      g.model = "NVIDIA-H100-80GB-HBM3";
      g.memory_mib = 81559;
      g.nvlink_domain = i < gpus / 2 ? 0 : 1;
      list.push_back(g);
    }
    json node = {
        {"metadata",
         {{"name", name},
          {"labels",
           {{api::types::kHostnameLabel, name},
            {api::types::kGpuModelLabel, "NVIDIA-H100-80GB-HBM3"},
            {api::types::kSwitchLabel, switch_name}}},
          {"annotations", {{api::types::kNodeGpusAnnotation, client::EncodeNodeGpus(list)}}}}}};
    ASSERT_TRUE(rest().Create(client::Path("nodes"), node).ok());
    json status = {
        {"capacity",
         {{"cpu", "64"},
          {"memory", "512Gi"},
          {"pods", "110"},
          {"nvidia.com/gpu", std::to_string(gpus)}}},
        {"allocatable",
         {{"cpu", "64"},
          {"memory", "512Gi"},
          {"pods", "110"},
          {"nvidia.com/gpu", std::to_string(gpus)}}},
        {"conditions",
         json::array({{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}})}};
    auto r = rest().MergePatch(client::Path("nodes", "", name), {{"status", status}}, "status");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  void AddQueue(const std::string& name, const json& spec) {
    auto r =
        rest().Create(client::Path("queues"), {{"metadata", {{"name", name}}}, {"spec", spec}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // A PodGroup `name` of `pods` pods named <name>-<i>, each asking `gpus` GPUs.
  void AddGang(const std::string& name, int pods, int min_member, int gpus,
               const std::string& queue = "default", const std::string& priority_class = "",
               const std::string& scheduler = "volcano") {
    json spec = {{"minMember", min_member}, {"queue", queue}};
    if (!priority_class.empty()) spec["priorityClassName"] = priority_class;
    auto r = rest().Create(client::Path("podgroups", "default"),
                           {{"metadata", {{"name", name}}}, {"spec", spec}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (int i = 0; i < pods; ++i) {
      AddPod(fmt::format("{}-{}", name, i), name, gpus, priority_class, scheduler);
    }
  }

  void AddPod(const std::string& name, const std::string& group, int gpus,
              const std::string& priority_class = "", const std::string& scheduler = "volcano") {
    json pod = {
        {"metadata", {{"name", name}, {"annotations", json::object()}}},
        {"spec",
         {{"schedulerName", scheduler},
          {"containers", json::array({{{"name", "c"},
                                       {"image", "busybox"},
                                       {"resources",
                                        {{"requests", {{"cpu", "1"}, {"nvidia.com/gpu", gpus}}},
                                         {"limits", {{"nvidia.com/gpu", gpus}}}}}}})}}}};
    if (!group.empty()) pod["metadata"]["annotations"][api::types::kGroupNameAnnotation] = group;
    if (!priority_class.empty()) pod["spec"]["priorityClassName"] = priority_class;
    auto r = rest().Create(client::Path("pods", "default"), pod);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  json GetPod(const std::string& name) {
    auto p = rest().Get(client::Path("pods", "default", name));
    return p.ok() ? *p : json();
  }
  json GetPodGroup(const std::string& name) {
    auto p = rest().Get(client::Path("podgroups", "default", name));
    return p.ok() ? *p : json();
  }
  std::string NodeOf(const std::string& pod) {
    json p = GetPod(pod);
    return p.is_null() ? "" : p["spec"].value("nodeName", "");
  }
  // Marks a bound pod Running, as the agent would.
  void SetRunning(const std::string& pod) {
    auto r = rest().MergePatch(client::Path("pods", "default", pod),
                               {{"status", {{"phase", "Running"}}}}, "status");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  std::vector<json> Events() {
    auto list = rest().List(client::Path("events", "default"));
    return list.ok() ? *list : std::vector<json>{};
  }

  // The clock and zone the next MakeScheduler uses (default: the system clock, the host's zone).
  void UseClock(const Clock* clock, TimeZone zone) {
    clock_ = clock;
    zone_ = std::move(zone);
  }

  std::unique_ptr<Scheduler> MakeScheduler(bool run_loop = false, std::string conf_yaml = {}) {
    SchedulerOptions o;
    o.transports = api_.Factory();
    o.run_loop = run_loop;
    o.conf_yaml = std::move(conf_yaml);
    o.period = std::chrono::milliseconds(100);
    o.bind_workers = 4;
    o.clock = clock_;
    o.time_zone = zone_;
    auto s = std::make_unique<Scheduler>(std::move(o));
    Status st = s->Start();
    EXPECT_TRUE(st.ok()) << st.ToString();
    return s;
  }

 private:
  client::testing::InProcessApi api_;
  const Clock* clock_ = nullptr;
  std::optional<TimeZone> zone_;
};

}  // namespace etna::scheduler::testkit
