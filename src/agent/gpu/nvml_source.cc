#include "agent/gpu/nvml_source.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>

namespace etna::agent {

struct NvmlGpuSource::Api {
  nvml::InitFn init = nullptr;
  nvml::ShutdownFn shutdown = nullptr;
  nvml::ErrorStringFn error_string = nullptr;
  nvml::GetCountFn get_count = nullptr;
  nvml::GetHandleByIndexFn get_handle = nullptr;
  nvml::GetStringFn get_name = nullptr;
  nvml::GetStringFn get_uuid = nullptr;
  nvml::GetMemoryInfoFn get_memory = nullptr;
  nvml::GetUtilizationFn get_utilization = nullptr;
  nvml::GetTemperatureFn get_temperature = nullptr;
  nvml::GetUintFn get_power = nullptr;
  nvml::GetMigModeFn get_mig_mode = nullptr;
  nvml::GetUintFn get_max_mig = nullptr;
  nvml::GetMigDeviceByIndexFn get_mig_device = nullptr;
  nvml::GetUintFn get_gpu_instance_id = nullptr;
  nvml::GetClockInfoFn get_clock = nullptr;
  nvml::GetEnergyFn get_energy = nullptr;
  nvml::GetFieldValuesFn get_field_values = nullptr;
  nvml::GetPciInfoFn get_pci = nullptr;
  nvml::GetNvLinkStateFn get_nvlink_state = nullptr;
  nvml::GetNvLinkRemotePciFn get_nvlink_remote = nullptr;
  nvml::EventSetCreateFn event_set_create = nullptr;
  nvml::RegisterEventsFn register_events = nullptr;
  nvml::EventSetWaitFn event_set_wait = nullptr;
  nvml::EventSetFreeFn event_set_free = nullptr;
};

namespace {

template <typename Fn>
bool Resolve(void* handle, const char* name, Fn* out, bool required, std::string* missing) {
  *out = reinterpret_cast<Fn>(dlsym(handle, name));
  if (*out == nullptr && required) *missing += std::string(missing->empty() ? "" : ", ") + name;
  return *out != nullptr;
}

std::string Dashed(std::string s) {
  std::replace(s.begin(), s.end(), ' ', '-');
  return s;
}

// An integer field's value; nullopt unless NVML answered it.
std::optional<int64_t> FieldInt(const nvmlFieldValue_t& f) {
  if (f.nvmlReturn != nvml::kSuccess) return std::nullopt;
  switch (f.valueType) {
    case nvml::kValueUnsignedInt:
      return static_cast<int64_t>(f.value.uiVal);
    case nvml::kValueUnsignedLong:
      return static_cast<int64_t>(f.value.ulVal);
    case nvml::kValueUnsignedLongLong:
      return static_cast<int64_t>(f.value.ullVal);
    case nvml::kValueSignedLongLong:
      return static_cast<int64_t>(f.value.sllVal);
    case nvml::kValueSignedInt:
      return static_cast<int64_t>(f.value.siVal);
    case nvml::kValueDouble:
      return static_cast<int64_t>(f.value.dVal);
    default:
      return std::nullopt;
  }
}

// Union-find over bus ids: GPUs reachable over NVLink (through switches too) end up together.
struct Domains {
  std::map<std::string, std::string> parent;
  std::string Find(const std::string& x) {
    auto it = parent.find(x);
    if (it == parent.end() || it->second == x) {
      parent[x] = x;
      return x;
    }
    return it->second = Find(it->second);
  }
  void Join(const std::string& a, const std::string& b) { parent[Find(a)] = Find(b); }
};

}  // namespace

Result<std::unique_ptr<NvmlGpuSource>> NvmlGpuSource::Open(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    return Status::Unavailable(fmt::format("NVML: {}", err ? err : library));
  }
  auto api = std::make_unique<Api>();
  std::string missing;
  Resolve(handle, "nvmlInit_v2", &api->init, true, &missing);
  Resolve(handle, "nvmlShutdown", &api->shutdown, true, &missing);
  Resolve(handle, "nvmlErrorString", &api->error_string, false, &missing);
  Resolve(handle, "nvmlDeviceGetCount_v2", &api->get_count, true, &missing);
  Resolve(handle, "nvmlDeviceGetHandleByIndex_v2", &api->get_handle, true, &missing);
  Resolve(handle, "nvmlDeviceGetName", &api->get_name, true, &missing);
  Resolve(handle, "nvmlDeviceGetUUID", &api->get_uuid, true, &missing);
  Resolve(handle, "nvmlDeviceGetMemoryInfo", &api->get_memory, true, &missing);
  Resolve(handle, "nvmlDeviceGetUtilizationRates", &api->get_utilization, false, &missing);
  Resolve(handle, "nvmlDeviceGetTemperature", &api->get_temperature, false, &missing);
  Resolve(handle, "nvmlDeviceGetPowerUsage", &api->get_power, false, &missing);
  Resolve(handle, "nvmlDeviceGetMigMode", &api->get_mig_mode, false, &missing);
  Resolve(handle, "nvmlDeviceGetMaxMigDeviceCount", &api->get_max_mig, false, &missing);
  Resolve(handle, "nvmlDeviceGetMigDeviceHandleByIndex", &api->get_mig_device, false, &missing);
  Resolve(handle, "nvmlDeviceGetGpuInstanceId", &api->get_gpu_instance_id, false, &missing);
  Resolve(handle, "nvmlDeviceGetClockInfo", &api->get_clock, false, &missing);
  Resolve(handle, "nvmlDeviceGetTotalEnergyConsumption", &api->get_energy, false, &missing);
  Resolve(handle, "nvmlDeviceGetFieldValues", &api->get_field_values, false, &missing);
  Resolve(handle, "nvmlDeviceGetPciInfo_v3", &api->get_pci, false, &missing);
  Resolve(handle, "nvmlDeviceGetNvLinkState", &api->get_nvlink_state, false, &missing);
  Resolve(handle, "nvmlDeviceGetNvLinkRemotePciInfo_v2", &api->get_nvlink_remote, false, &missing);
  Resolve(handle, "nvmlEventSetCreate", &api->event_set_create, false, &missing);
  Resolve(handle, "nvmlDeviceRegisterEvents", &api->register_events, false, &missing);
  Resolve(handle, "nvmlEventSetWait_v2", &api->event_set_wait, false, &missing);
  Resolve(handle, "nvmlEventSetFree", &api->event_set_free, false, &missing);
  if (!missing.empty()) {
    dlclose(handle);
    return Status::Unavailable(fmt::format("NVML {}: missing symbols {}", library, missing));
  }
  std::unique_ptr<NvmlGpuSource> source(new NvmlGpuSource(library, handle, std::move(api)));
  ETNA_RETURN_IF_ERROR(source->Init());
  return source;
}

NvmlGpuSource::NvmlGpuSource(std::string library, void* handle, std::unique_ptr<Api> api)
    : library_(std::move(library)), handle_(handle), api_(std::move(api)) {}

NvmlGpuSource::~NvmlGpuSource() {
  if (events_ != nullptr && api_->event_set_free) api_->event_set_free(events_);
  api_->shutdown();
  dlclose(handle_);
}

std::string NvmlGpuSource::Error(nvmlReturn_t r) const {
  if (api_->error_string) return api_->error_string(r);
  return fmt::format("NVML error {}", r);
}

Status NvmlGpuSource::Init() {
  nvmlReturn_t r = api_->init();
  if (r != nvml::kSuccess) return Status::Unavailable("nvmlInit: " + Error(r));
  if (api_->event_set_create && api_->register_events && api_->event_set_wait &&
      api_->event_set_create(&events_) == nvml::kSuccess) {
    unsigned int count = 0;
    if (api_->get_count(&count) == nvml::kSuccess) {
      for (unsigned int i = 0; i < count; ++i) {
        nvmlDevice_t dev;
        if (api_->get_handle(i, &dev) == nvml::kSuccess) {
          api_->register_events(dev, nvml::kEventTypeXidCriticalError, events_);
        }
      }
    }
  }
  return Status::Ok();
}

void NvmlGpuSource::DrainXids() {
  if (events_ == nullptr) return;
  for (int i = 0; i < 1000; ++i) {
    nvmlEventData_t data{};
    if (api_->event_set_wait(events_, &data, 0) != nvml::kSuccess) return;
    if (!(data.eventType & nvml::kEventTypeXidCriticalError) || data.device == nullptr) continue;
    char uuid[96] = {0};
    if (api_->get_uuid(data.device, uuid, sizeof(uuid)) != nvml::kSuccess) continue;
    xids_[uuid].push_back(data.eventData);
  }
}

void NvmlGpuSource::ReadReadings(nvmlDevice_t dev, GpuDevice* d) const {
  GpuMetrics& m = d->metrics;
  nvmlMemory_t mem{};
  if (api_->get_memory(dev, &mem) == nvml::kSuccess) {
    d->gpu.memory_mib = static_cast<int64_t>(mem.total >> 20);
    m.memory_used_mib = static_cast<int64_t>(mem.used >> 20);
  }
  nvmlUtilization_t util{};
  if (api_->get_utilization && api_->get_utilization(dev, &util) == nvml::kSuccess) {
    m.gpu_utilization_percent = static_cast<int>(util.gpu);
    m.memory_utilization_percent = static_cast<int>(util.memory);
  }
  unsigned int value = 0;
  if (api_->get_temperature &&
      api_->get_temperature(dev, nvml::kTemperatureGpu, &value) == nvml::kSuccess) {
    m.temperature_c = static_cast<int>(value);
  }
  if (api_->get_power && api_->get_power(dev, &value) == nvml::kSuccess) m.power_mw = value;
  if (api_->get_clock && api_->get_clock(dev, nvml::kClockSm, &value) == nvml::kSuccess) {
    m.sm_clock_mhz = static_cast<int>(value);
  }
  if (api_->get_clock && api_->get_clock(dev, nvml::kClockMem, &value) == nvml::kSuccess) {
    m.memory_clock_mhz = static_cast<int>(value);
  }
  unsigned long long energy = 0;
  if (api_->get_energy && api_->get_energy(dev, &energy) == nvml::kSuccess) {
    m.energy_mj = static_cast<int64_t>(energy);
  }
}

void NvmlGpuSource::ReadMig(nvmlDevice_t dev, GpuDevice* d) const {
  unsigned int mig_current = 0, mig_pending = 0;
  if (api_->get_mig_mode && api_->get_mig_mode(dev, &mig_current, &mig_pending) == nvml::kSuccess) {
    d->mig_enabled = mig_current == nvml::kMigEnabled;
  }
  unsigned int max = 0;
  if (!d->mig_enabled || !api_->get_max_mig || !api_->get_mig_device ||
      !api_->get_gpu_instance_id || api_->get_max_mig(dev, &max) != nvml::kSuccess) {
    return;
  }
  for (unsigned int m = 0; m < max; ++m) {
    nvmlDevice_t mig;
    if (api_->get_mig_device(dev, m, &mig) != nvml::kSuccess) continue;
    char name[128] = {0};
    unsigned int gi = 0;
    if (api_->get_name(mig, name, sizeof(name)) != nvml::kSuccess ||
        api_->get_gpu_instance_id(mig, &gi) != nvml::kSuccess) {
      continue;
    }
    // "NVIDIA A100-SXM4-80GB MIG 1g.10gb" -> "1g.10gb"
    std::string n = name;
    size_t at = n.rfind("MIG ");
    d->gpu.mig.push_back(
        {at == std::string::npos ? n : n.substr(at + 4), static_cast<int32_t>(gi)});
    nvmlMemory_t mem{};
    if (api_->get_memory(mig, &mem) == nvml::kSuccess) {
      d->mig_metrics.push_back({static_cast<int32_t>(gi), static_cast<int64_t>(mem.total >> 20),
                                static_cast<int64_t>(mem.used >> 20)});
    }
  }
}

int64_t NvmlGpuSource::NvLinkBytes(nvmlDevice_t dev) const {
  if (!api_->get_field_values) return -1;
  nvmlFieldValue_t fields[2] = {};
  fields[0].fieldId = nvml::kFieldNvLinkDataTxKiB;
  fields[1].fieldId = nvml::kFieldNvLinkDataRxKiB;
  fields[0].scopeId = fields[1].scopeId = nvml::kScopeAllLinks;
  if (api_->get_field_values(dev, 2, fields) != nvml::kSuccess) return -1;
  auto tx = FieldInt(fields[0]), rx = FieldInt(fields[1]);
  if (!tx || !rx) return -1;
  return (*tx + *rx) * 1024;
}

Result<std::vector<GpuDevice>> NvmlGpuSource::Devices() {
  DrainXids();
  unsigned int count = 0;
  nvmlReturn_t r = api_->get_count(&count);
  if (r != nvml::kSuccess) return Status::Unavailable("nvmlDeviceGetCount: " + Error(r));
  std::vector<GpuDevice> out;
  std::vector<std::string> bus_ids;
  Domains domains;
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t dev;
    r = api_->get_handle(i, &dev);
    if (r == nvml::kErrorGpuIsLost) {  // one GPU gone: it is unhealthy, the others stay
      GpuDevice d;
      d.gpu = last_seen_.count(i) ? last_seen_[i] : client::NodeGpu{};
      d.gpu.index = static_cast<int32_t>(i);
      d.gpu.healthy = false;
      d.lost = true;
      bus_ids.push_back(d.pci_bus_id.empty() ? fmt::format("gpu{}", i) : d.pci_bus_id);
      domains.Find(bus_ids.back());
      out.push_back(std::move(d));
      continue;
    }
    if (r != nvml::kSuccess) return Status::Unavailable(fmt::format("GPU {}: {}", i, Error(r)));
    GpuDevice d;
    d.gpu.index = static_cast<int32_t>(i);
    char buf[128] = {0};
    if (api_->get_name(dev, buf, sizeof(buf)) == nvml::kSuccess) d.gpu.model = Dashed(buf);
    char uuid[96] = {0};
    if (api_->get_uuid(dev, uuid, sizeof(uuid)) == nvml::kSuccess) d.gpu.uuid = uuid;
    ReadReadings(dev, &d);
    ReadMig(dev, &d);
    nvmlPciInfo_t pci{};
    std::string bus = fmt::format("gpu{}", i);
    if (api_->get_pci && api_->get_pci(dev, &pci) == nvml::kSuccess) {
      bus = pci.busId;
      d.pci_bus_id = pci.busId;
    }
    bus_ids.push_back(bus);
    domains.Find(bus);
    bool nvlink = false;
    if (api_->get_nvlink_state && api_->get_nvlink_remote) {
      for (unsigned int link = 0; link < nvml::kNvLinkMaxLinks; ++link) {
        unsigned int active = 0;
        if (api_->get_nvlink_state(dev, link, &active) != nvml::kSuccess || !active) continue;
        nvlink = true;
        nvmlPciInfo_t remote{};
        if (api_->get_nvlink_remote(dev, link, &remote) != nvml::kSuccess) continue;
        domains.Join(bus, remote.busId);
      }
    }
    if (nvlink) d.metrics.nvlink_bytes = NvLinkBytes(dev);
    auto seen = xids_.find(d.gpu.uuid);
    if (seen != xids_.end()) {
      d.xids = seen->second;
      for (uint64_t xid : d.xids) d.gpu.healthy = d.gpu.healthy && !IsCriticalXid(xid);
    }
    last_seen_[i] = d.gpu;
    out.push_back(std::move(d));
  }
  // Domain numbers: only where a GPU has an NVLink partner, numbered in device order.
  std::map<std::string, int> size, number;
  for (const auto& b : bus_ids) ++size[domains.Find(b)];
  for (size_t i = 0; i < out.size(); ++i) {
    std::string root = domains.Find(bus_ids[i]);
    if (size[root] < 2) continue;
    if (!number.count(root)) {
      int next = static_cast<int>(number.size());
      number[root] = next;
    }
    out[i].gpu.nvlink_domain = number[root];
  }
  return out;
}

}  // namespace etna::agent
