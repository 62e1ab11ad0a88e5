// The agent's /stats/summary: what the node and each running pod use, in the shape of the
// kubelet's Summary API (stats/v1alpha1), which `etna server` reads to serve metrics.k8s.io
// (kubectl top, HPA Resource metrics) and the GPU metrics of custom.metrics.k8s.io and
// external.metrics.k8s.io (api/server/metrics_api.h).
//
//   {"node": {"nodeName", "startTime", "cpu": {"time", "usageNanoCores", "usageCoreNanoSeconds"},
//             "memory": {"time", "workingSetBytes", "rssBytes"}},
//    "pods": [{"podRef": {"name", "namespace", "uid"}, "startTime", "cpu", "memory",
//              "containers": [{"name", "startTime", "cpu", "memory",
//                              "accelerators": [{"make", "model", "id", "memoryTotal",
//                                                "memoryUsed", "dutyCycle"}]}]}]}
//
// CPU rates come from UsageSampler (runtime/process_usage.h); "window" (ms) is the interval
// they were measured over. A pod's GPUs are listed under its first container, as
// dcgm-exporter attributes a device: one accelerator per device it holds whole or shares (id:
// the GPU's UUID; dutyCycle: the device's utilization %; memoryTotal/Used in bytes: the
// device's, or the share's framebuffer) and per MIG instance ("MIG-<uuid>/<instance>", the
// instance's memory, the parent device's utilization).
// A simulated node (SummaryInput::node_from_pods) reports the sum of its pods as its own usage:
// the host it shares with other simulated nodes is not its own.
// Thread-safety: a pure function apart from the sampler it is given.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/gpu/gpu_holders.h"
#include "agent/gpu/gpu_source.h"
#include "agent/runtime/process_usage.h"
#include "agent/runtime/runtime.h"

namespace etna::agent {

struct SummaryInput {
  std::string node_name;
  TimeMs now = 0;
  bool node_from_pods = false;
  runtime::ProcessUsage host;  // unused when node_from_pods
  std::vector<runtime::RunningPod> pods;
  std::map<pid_t, runtime::ProcessUsage> sessions;  // runtime::ReadSessions of the pods'
  std::vector<GpuDevice> gpus;
  GpuHolders holders;
};

nlohmann::json StatsSummary(const SummaryInput& in, runtime::UsageSampler* sampler);

}  // namespace etna::agent
