#include "agent/gpu/dcgm_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "common/metrics.h"

namespace etna::agent {
namespace {

struct Family {
  const char* name;
  const char* type;
  const char* help;
  std::function<double(const GpuDevice&)> device;  // < 0: unknown
  // Per MIG instance; null for the families NVML only answers for the whole device.
  std::function<double(const MigMetrics&)> instance = nullptr;
};

double Known(int64_t v) { return v < 0 ? -1.0 : static_cast<double>(v); }

double Free(int64_t total, int64_t used) {
  return used < 0 || total < 0 ? -1.0 : static_cast<double>(std::max<int64_t>(total - used, 0));
}

const std::vector<Family>& Families() {
  static const std::vector<Family> families = {
      {"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).",
       [](const GpuDevice& d) { return Known(d.metrics.gpu_utilization_percent); }},
      {"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).",
       [](const GpuDevice& d) { return Known(d.metrics.memory_utilization_percent); }},
      {"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).",
       [](const GpuDevice& d) { return Known(d.metrics.memory_used_mib); },
       [](const MigMetrics& m) { return Known(m.memory_used_mib); }},
      {"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).",
       [](const GpuDevice& d) { return Free(d.gpu.memory_mib, d.metrics.memory_used_mib); },
       [](const MigMetrics& m) { return Free(m.memory_mib, m.memory_used_mib); }},
      {"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).",
       [](const GpuDevice& d) { return Known(d.metrics.temperature_c); }},
      {"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).",
       [](const GpuDevice& d) {
         return d.metrics.power_mw < 0 ? -1.0 : static_cast<double>(d.metrics.power_mw) / 1000.0;
       }},
      {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
       "Total energy consumption since boot (in mJ).",
       [](const GpuDevice& d) { return Known(d.metrics.energy_mj); }},
      {"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).",
       [](const GpuDevice& d) { return Known(d.metrics.sm_clock_mhz); }},
      {"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).",
       [](const GpuDevice& d) { return Known(d.metrics.memory_clock_mhz); }},
      {"DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.",
       [](const GpuDevice& d) {
         return d.xids.empty() ? 0.0 : static_cast<double>(d.xids.back());
       }},
      {"DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "counter",
       "Total number of NVLink bandwidth counters for all lanes (in bytes).",
       [](const GpuDevice& d) { return Known(d.metrics.nvlink_bytes); }},
  };
  return families;
}

std::string Value(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

// The holders of device `d` (of one instance, or of the device and all its instances when
// `instance` is -1), each pod once.
std::vector<const GpuHolder*> HoldersOf(const GpuHolders& holders, int32_t index,
                                        int32_t instance) {
  std::vector<const GpuHolder*> out;
  auto it = holders.find(index);
  if (it == holders.end()) return out;
  for (const GpuHolder& h : it->second) {
    if (instance >= 0 && h.mig_instance != instance) continue;
    bool seen = false;
    for (const GpuHolder* o : out) {
      seen = seen || (o->ns == h.ns && o->pod == h.pod && o->container == h.container);
    }
    if (!seen) out.push_back(&h);
  }
  return out;
}

// The series of one device or instance: once per holder, once without any when idle.
void WriteSeries(const std::string& name, const std::string& labels,
                 const std::vector<const GpuHolder*>& holders, double value, std::string* out) {
  std::string v = Value(value);
  if (holders.empty()) {
    *out += fmt::format("{}{{{}}} {}\n", name, labels, v);
    return;
  }
  for (const GpuHolder* h : holders) {
    *out += fmt::format("{}{{{},container=\"{}\",namespace=\"{}\",pod=\"{}\"}} {}\n", name, labels,
                        metrics::EscapeLabelValue(h->container), metrics::EscapeLabelValue(h->ns),
                        metrics::EscapeLabelValue(h->pod), v);
  }
}

}  // namespace

std::string DcgmMetrics(const std::string& hostname, const std::vector<GpuDevice>& gpus,
                        const GpuHolders& holders) {
  std::string host = metrics::EscapeLabelValue(hostname);
  auto device_labels = [&](const GpuDevice& d, const client::NodeMigInstance* mig) {
    std::string labels = fmt::format(
        "gpu=\"{}\",UUID=\"{}\",pci_bus_id=\"{}\",device=\"nvidia{}\",modelName=\"{}\"",
        d.gpu.index, metrics::EscapeLabelValue(d.gpu.uuid), metrics::EscapeLabelValue(d.pci_bus_id),
        d.gpu.index, metrics::EscapeLabelValue(d.gpu.model));
    if (mig != nullptr) {
      labels += fmt::format(",GPU_I_PROFILE=\"{}\",GPU_I_ID=\"{}\"",
                            metrics::EscapeLabelValue(mig->profile), mig->id);
    }
    return labels + ",Hostname=\"" + host + "\"";
  };
  std::string out;
  for (const Family& f : Families()) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, f.help, f.name, f.type);
    for (const GpuDevice& d : gpus) {
      double v = f.device(d);
      if (v >= 0) {
        WriteSeries(f.name, device_labels(d, nullptr), HoldersOf(holders, d.gpu.index, -1), v,
                    &out);
      }
      if (!f.instance) continue;
      for (const MigMetrics& m : d.mig_metrics) {
        const client::NodeMigInstance* mig = nullptr;
        for (const auto& i : d.gpu.mig) {
          if (i.id == m.id) mig = &i;
        }
        double iv = f.instance(m);
        if (mig == nullptr || iv < 0) continue;
        WriteSeries(f.name, device_labels(d, mig), HoldersOf(holders, d.gpu.index, m.id), iv, &out);
      }
    }
  }
  int healthy = 0;
  for (const GpuDevice& d : gpus) healthy += d.gpu.healthy ? 1 : 0;
  out += fmt::format(
      "# HELP DCGM_FI_DEV_COUNT Number of healthy GPUs on the node.\n"
      "# TYPE DCGM_FI_DEV_COUNT gauge\nDCGM_FI_DEV_COUNT{{Hostname=\"{}\"}} {}\n",
      host, healthy);
  return out;
}

}  // namespace etna::agent
