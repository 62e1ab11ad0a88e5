#include "agent/stats_summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/time.h"

namespace etna::agent {
namespace {

using nlohmann::json;

constexpr int64_t kMiB = 1024 * 1024;

json Cpu(const runtime::CpuRate& rate, int64_t cumulative_ns, const std::string& time) {
  return {{"time", time},
          {"usageNanoCores", rate.nano_cores},
          {"usageCoreNanoSeconds", cumulative_ns},
          {"window", rate.window_ms}};
}

json Memory(int64_t bytes, const std::string& time) {
  return {{"time", time}, {"workingSetBytes", bytes}, {"rssBytes", bytes}};
}

// The accelerators pod `ns/name` holds, from the holders of each device.
json Accelerators(const SummaryInput& in, const std::string& ns, const std::string& name) {
  json out = json::array();
  for (const GpuDevice& d : in.gpus) {
    auto it = in.holders.find(d.gpu.index);
    if (it == in.holders.end()) continue;
    for (const GpuHolder& h : it->second) {
      if (h.ns != ns || h.pod != name) continue;
      json a = {{"make", "nvidia"},
                {"model", d.gpu.model},
                {"id", d.gpu.uuid},
                {"memoryTotal", d.gpu.memory_mib * kMiB},
                {"memoryUsed", std::max<int64_t>(d.metrics.memory_used_mib, 0) * kMiB},
                {"dutyCycle", std::max(d.metrics.gpu_utilization_percent, 0)}};
      if (h.mig_instance >= 0) {
        a["id"] = fmt::format("MIG-{}/{}", d.gpu.uuid, h.mig_instance);
        for (const MigMetrics& m : d.mig_metrics) {
          if (m.id != h.mig_instance) continue;
          a["memoryTotal"] = std::max<int64_t>(m.memory_mib, 0) * kMiB;
          a["memoryUsed"] = std::max<int64_t>(m.memory_used_mib, 0) * kMiB;
        }
      } else if (h.memory_mib >= 0) {
        a["memoryTotal"] = h.memory_mib * kMiB;
        a["memoryUsed"] =
            std::min(h.memory_mib, d.metrics.memory_used_mib < 0 ? 0 : d.metrics.memory_used_mib) *
            kMiB;
      }
      out.push_back(std::move(a));
    }
  }
  return out;
}

}  // namespace

json StatsSummary(const SummaryInput& in, runtime::UsageSampler* sampler) {
  const std::string now = FormatRfc3339(in.now);
  json pods = json::array();
  std::set<int64_t> live;
  int64_t node_cpu_ns = 0, node_nano_cores = 0, node_memory = 0, node_window = 0;
  for (const runtime::RunningPod& p : in.pods) {
    json containers = json::array();
    int64_t pod_cpu_ns = 0, pod_nano_cores = 0, pod_memory = 0, window = 0;
    for (const auto& [cname, session] : p.containers) {
      auto it = in.sessions.find(session);
      if (it == in.sessions.end()) continue;  // ended since the runtime looked
      live.insert(session);
      runtime::CpuRate rate = sampler->Rate(session, it->second, in.now);
      const std::string started =
          FormatRfc3339(it->second.leader_start_ms > 0 ? it->second.leader_start_ms : p.start_ms);
      json c = {{"name", cname},
                {"startTime", started},
                {"cpu", Cpu(rate, it->second.cpu_ns, now)},
                {"memory", Memory(it->second.rss_bytes, now)}};
      if (containers.empty()) c["accelerators"] = Accelerators(in, p.ns, p.name);
      containers.push_back(std::move(c));
      pod_cpu_ns += it->second.cpu_ns;
      pod_nano_cores += rate.nano_cores;
      pod_memory += it->second.rss_bytes;
      window = std::max(window, rate.window_ms);
    }
    if (containers.empty()) continue;
    if (!containers[0].contains("accelerators")) {
      containers[0]["accelerators"] = Accelerators(in, p.ns, p.name);
    }
    pods.push_back({{"podRef", {{"name", p.name}, {"namespace", p.ns}, {"uid", p.uid}}},
                    {"startTime", FormatRfc3339(p.start_ms)},
                    {"cpu", Cpu({pod_nano_cores, window}, pod_cpu_ns, now)},
                    {"memory", Memory(pod_memory, now)},
                    {"containers", std::move(containers)}});
    node_cpu_ns += pod_cpu_ns;
    node_nano_cores += pod_nano_cores;
    node_memory += pod_memory;
    node_window = std::max(node_window, window);
  }
  json node = {{"nodeName", in.node_name}};
  if (in.node_from_pods) {
    node["cpu"] = Cpu({node_nano_cores, node_window}, node_cpu_ns, now);
    node["memory"] = Memory(node_memory, now);
  } else {
    live.insert(-1);
    runtime::CpuRate rate = sampler->Rate(-1, in.host, in.now);
    node["startTime"] = FormatRfc3339(in.host.leader_start_ms);
    node["cpu"] = Cpu(rate, in.host.cpu_ns, now);
    node["memory"] = Memory(in.host.rss_bytes, now);
  }
  sampler->Retain(live);
  return {{"node", std::move(node)}, {"pods", std::move(pods)}};
}

}  // namespace etna::agent
