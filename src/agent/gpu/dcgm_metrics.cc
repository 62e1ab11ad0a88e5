#include "agent/gpu/dcgm_metrics.h"

#include <fmt/format.h>

#include <functional>

namespace etna::agent {

std::string DcgmMetrics(const std::string& hostname, const std::vector<GpuDevice>& gpus) {
  struct Metric {
    const char* name;
    const char* help;
    std::function<double(const GpuDevice&)> value;  // < 0: unknown
  };
  const Metric metrics[] = {
      {"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).",
       [](const GpuDevice& d) { return d.metrics.gpu_utilization_percent; }},
      {"DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).",
       [](const GpuDevice& d) { return d.metrics.memory_utilization_percent; }},
      {"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).",
       [](const GpuDevice& d) { return static_cast<double>(d.metrics.memory_used_mib); }},
      {"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).",
       [](const GpuDevice& d) {
         return d.metrics.memory_used_mib < 0
                    ? -1.0
                    : static_cast<double>(d.gpu.memory_mib - d.metrics.memory_used_mib);
       }},
      {"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).",
       [](const GpuDevice& d) { return d.metrics.temperature_c; }},
      {"DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).",
       [](const GpuDevice& d) {
         return d.metrics.power_mw < 0 ? -1.0 : static_cast<double>(d.metrics.power_mw) / 1000.0;
       }},
      {"DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered.",
       [](const GpuDevice& d) {
         return d.xids.empty() ? 0.0 : static_cast<double>(d.xids.back());
       }},
  };
  std::string out;
  for (const Metric& m : metrics) {
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", m.name, m.help, m.name);
    for (const GpuDevice& d : gpus) {
      double v = m.value(d);
      if (v < 0) continue;
      out += fmt::format(
          "{}{{gpu=\"{}\",UUID=\"{}\",device=\"nvidia{}\",modelName=\"{}\",Hostname=\"{}\"}} {}\n",
          m.name, d.gpu.index, d.gpu.uuid, d.gpu.index, d.gpu.model, hostname, v);
    }
  }
  return out;
}

}  // namespace etna::agent
