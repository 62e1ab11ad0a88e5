// libetna_fake_nvml.so: a stand-in for libnvidia-ml.so.1 that reports the GPUs a JSON file
// describes, for tests and for trying the agent's NVML path on machines without GPUs.
//
// ETNA_FAKE_NVML_CONFIG names the file, read at nvmlInit_v2:
//   {"devices": [{"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-…", "memoryMiB": 81559,
//                 "usedMiB": 0, "utilization": {"gpu": 0, "memory": 0}, "temperature": 35,
//                 "powerMw": 70000, "smClockMHz": 1980, "memClockMHz": 2619,
//                 "energyMj": 123456789, "nvlinkTxKiB": 1000, "nvlinkRxKiB": 2000,
//                 "nvlinkPeers": [1], "nvswitch": false, "migMode": true,
//                 "mig": [{"profile": "1g.10gb", "id": 7, "memoryMiB": 9984, "usedMiB": 10}]}],
//    "xidFile": "/tmp/xids"}
// smClockMHz, memClockMHz (nvmlDeviceGetClockInfo), energyMj
// (nvmlDeviceGetTotalEnergyConsumption) and nvlinkTxKiB / nvlinkRxKiB (nvmlDeviceGetFieldValues'
// NVLINK_THROUGHPUT_DATA_TX/RX with scopeId UINT_MAX; per-link scopes are not served) answer
// NOT_SUPPORTED when absent, as NVML does on devices without them. A MIG instance answers
// nvmlDeviceGetMemoryInfo with its own memoryMiB / usedMiB, NOT_SUPPORTED without memoryMiB.
// XIDs are injected by appending lines "<device index> <xid>" to xidFile; each becomes one
// critical-XID event. nvlinkPeers are device indices joined by a link each; nvswitch puts every
// device with it on links to one NVSwitch.
// Thread-safety: one mutex around all state, as NVML calls may come from any thread.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "agent/gpu/nvml_api.h"

struct nvmlDevice_st {
  nlohmann::json config;
  int index = 0;
  std::string bus_id;
  bool is_mig = false;
  std::string mig_profile;
  unsigned int gpu_instance = 0;
  nlohmann::json mig_config;  // a MIG instance's own entry
  nvmlDevice_st* parent = nullptr;
  std::vector<std::unique_ptr<nvmlDevice_st>> mig;
  bool lost = false;  // "<index> lost" in the XID file: every query says GPU_IS_LOST
};

struct nvmlEventSet_st {
  int unused = 0;
};

namespace {

using etna::agent::nvml::kErrorNotFound;
using etna::agent::nvml::kErrorNotSupported;
using etna::agent::nvml::kErrorTimeout;
using etna::agent::nvml::kSuccess;
constexpr nvmlReturn_t kErrorUninitialized = 1;
constexpr nvmlReturn_t kErrorInvalidArgument = 2;
constexpr nvmlReturn_t kErrorInsufficientSize = 7;

std::mutex mu;
std::vector<std::unique_ptr<nvmlDevice_st>> devices;
std::string xid_file;
std::streamoff xid_offset = 0;
std::deque<nvmlEventData_t> pending;
int init_count = 0;
nvmlEventSet_st the_event_set;
const std::string kSwitchBusId = "00000000:FF:00.0";

nvmlReturn_t CopyString(const std::string& s, char* out, unsigned int length) {
  if (out == nullptr) return kErrorInvalidArgument;
  if (s.size() + 1 > length) return kErrorInsufficientSize;
  std::memcpy(out, s.c_str(), s.size() + 1);
  return kSuccess;
}

nvmlReturn_t Load() {
  const char* path = std::getenv("ETNA_FAKE_NVML_CONFIG");
  if (path == nullptr) return kErrorNotFound;
  std::ifstream in(path);
  if (!in) return kErrorNotFound;
  nlohmann::json config = nlohmann::json::parse(in, nullptr, false);
  if (config.is_discarded() || !config.is_object()) return kErrorInvalidArgument;
  devices.clear();
  pending.clear();
  int index = 0;
  for (const auto& d : config.value("devices", nlohmann::json::array())) {
    auto dev = std::make_unique<nvmlDevice_st>();
    dev->config = d;
    dev->index = index;
    dev->bus_id = fmt::format("00000000:{:02X}:00.0", 0x10 + index);
    for (const auto& m : d.value("mig", nlohmann::json::array())) {
      auto mig = std::make_unique<nvmlDevice_st>();
      mig->is_mig = true;
      mig->parent = dev.get();
      mig->mig_profile = m.value("profile", "");
      mig->gpu_instance = m.value("id", 0u);
      mig->config = d;
      mig->mig_config = m;
      dev->mig.push_back(std::move(mig));
    }
    devices.push_back(std::move(dev));
    ++index;
  }
  xid_file = config.value("xidFile", "");
  xid_offset = 0;
  if (!xid_file.empty()) {  // XIDs written before init are history, not events
    std::ifstream x(xid_file, std::ios::ate);
    if (x) xid_offset = x.tellg();
  }
  return kSuccess;
}

void ReadXids() {
  if (xid_file.empty()) return;
  std::ifstream in(xid_file);
  if (!in) return;
  in.seekg(xid_offset);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a line still being written
    xid_offset = in.tellg();
    std::istringstream ls(line);
    int dev = -1;
    std::string what;
    if (!(ls >> dev >> what) || dev < 0 || dev >= static_cast<int>(devices.size())) continue;
    if (what == "lost") {
      devices[dev]->lost = true;
      continue;
    }
    unsigned long long xid = std::strtoull(what.c_str(), nullptr, 10);
    nvmlEventData_t e{};
    e.device = devices[dev].get();
    e.eventType = etna::agent::nvml::kEventTypeXidCriticalError;
    e.eventData = xid;
    e.gpuInstanceId = 0xFFFFFFFF;
    e.computeInstanceId = 0xFFFFFFFF;
    pending.push_back(e);
  }
}

nvmlDevice_st* Root(nvmlDevice_t d) { return d->is_mig ? d->parent : d; }

}  // namespace

extern "C" {

__attribute__((visibility("default"))) nvmlReturn_t nvmlInit_v2() {
  std::lock_guard<std::mutex> lock(mu);
  if (init_count++ > 0) return kSuccess;
  nvmlReturn_t r = Load();
  if (r != kSuccess) init_count = 0;
  return r;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlShutdown() {
  std::lock_guard<std::mutex> lock(mu);
  if (init_count == 0) return kErrorUninitialized;
  --init_count;
  return kSuccess;
}

__attribute__((visibility("default"))) const char* nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case 0:
      return "Success";
    case 1:
      return "Uninitialized";
    case 2:
      return "Invalid Argument";
    case 3:
      return "Not Supported";
    case 6:
      return "Not Found (fake NVML: set ETNA_FAKE_NVML_CONFIG to a JSON file)";
    case 7:
      return "Insufficient Size";
    case 10:
      return "Timeout";
    default:
      return "Unknown Error";
  }
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  std::lock_guard<std::mutex> lock(mu);
  if (init_count == 0) return kErrorUninitialized;
  *count = static_cast<unsigned int>(devices.size());
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(
    unsigned int index, nvmlDevice_t* device) {
  std::lock_guard<std::mutex> lock(mu);
  if (init_count == 0) return kErrorUninitialized;
  if (index >= devices.size()) return kErrorInvalidArgument;
  ReadXids();  // a GPU lost since the last look is lost now
  if (devices[index]->lost) return etna::agent::nvml::kErrorGpuIsLost;
  *device = devices[index].get();
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name,
                                                                      unsigned int length) {
  std::lock_guard<std::mutex> lock(mu);
  std::string n = d->config.value("name", "Fake GPU");
  if (d->is_mig) n += " MIG " + d->mig_profile;
  return CopyString(n, name, length);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid,
                                                                      unsigned int length) {
  std::lock_guard<std::mutex> lock(mu);
  std::string u = Root(d)->config.value("uuid", fmt::format("GPU-fake-{}", Root(d)->index));
  if (d->is_mig) u = fmt::format("MIG-{}/{}/0", u, d->gpu_instance);
  return CopyString(u, uuid, length);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d,
                                                                            nvmlMemory_t* m) {
  std::lock_guard<std::mutex> lock(mu);
  const nlohmann::json& c = d->is_mig ? d->mig_config : d->config;
  if (d->is_mig && !c.contains("memoryMiB")) return kErrorNotSupported;
  unsigned long long total = c.value("memoryMiB", 16384ull) << 20;
  unsigned long long used = c.value("usedMiB", 0ull) << 20;
  m->total = total;
  m->used = used;
  m->free = total > used ? total - used : 0;
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUtilizationRates(
    nvmlDevice_t d, nvmlUtilization_t* u) {
  std::lock_guard<std::mutex> lock(mu);
  auto util = d->config.value("utilization", nlohmann::json::object());
  u->gpu = util.value("gpu", 0u);
  u->memory = util.value("memory", 0u);
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d,
                                                                             unsigned int,
                                                                             unsigned int* t) {
  std::lock_guard<std::mutex> lock(mu);
  *t = d->config.value("temperature", 30u);
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d,
                                                                            unsigned int* mw) {
  std::lock_guard<std::mutex> lock(mu);
  *mw = d->config.value("powerMw", 50000u);
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d,
                                                                           unsigned int type,
                                                                           unsigned int* mhz) {
  std::lock_guard<std::mutex> lock(mu);
  const char* key = type == etna::agent::nvml::kClockSm    ? "smClockMHz"
                    : type == etna::agent::nvml::kClockMem ? "memClockMHz"
                                                           : nullptr;
  if (key == nullptr || d->is_mig || !d->config.contains(key)) return kErrorNotSupported;
  *mhz = d->config.value(key, 0u);
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(
    nvmlDevice_t d, unsigned long long* mj) {
  std::lock_guard<std::mutex> lock(mu);
  if (d->is_mig || !d->config.contains("energyMj")) return kErrorNotSupported;
  *mj = d->config.value("energyMj", 0ull);
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetFieldValues(
    nvmlDevice_t d, int count, nvmlFieldValue_t* values) {
  std::lock_guard<std::mutex> lock(mu);
  if (count < 0 || (count > 0 && values == nullptr)) return kErrorInvalidArgument;
  for (int i = 0; i < count; ++i) {
    nvmlFieldValue_t& f = values[i];
    const char* key = f.fieldId == etna::agent::nvml::kFieldNvLinkDataTxKiB   ? "nvlinkTxKiB"
                      : f.fieldId == etna::agent::nvml::kFieldNvLinkDataRxKiB ? "nvlinkRxKiB"
                                                                              : nullptr;
    f.timestamp = 0;
    f.latencyUsec = 0;
    f.value = {};
    if (key == nullptr || d->is_mig || f.scopeId != etna::agent::nvml::kScopeAllLinks ||
        !d->config.contains(key)) {
      f.nvmlReturn = kErrorNotSupported;
      continue;
    }
    f.valueType = etna::agent::nvml::kValueUnsignedLongLong;
    f.value.ullVal = d->config.value(key, 0ull);
    f.nvmlReturn = kSuccess;
  }
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMigMode(
    nvmlDevice_t d, unsigned int* current, unsigned int* pending_mode) {
  std::lock_guard<std::mutex> lock(mu);
  if (!Root(d)->config.contains("migMode")) return kErrorNotSupported;
  *current = *pending_mode = Root(d)->config.value("migMode", false) ? 1 : 0;
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(
    nvmlDevice_t d, unsigned int* count) {
  std::lock_guard<std::mutex> lock(mu);
  *count = static_cast<unsigned int>(d->mig.size());
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(
    nvmlDevice_t d, unsigned int index, nvmlDevice_t* mig) {
  std::lock_guard<std::mutex> lock(mu);
  if (index >= d->mig.size()) return kErrorNotFound;
  *mig = d->mig[index].get();
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d,
                                                                               unsigned int* id) {
  if (!d->is_mig) return kErrorNotSupported;
  *id = d->gpu_instance;
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d,
                                                                            nvmlPciInfo_t* pci) {
  std::lock_guard<std::mutex> lock(mu);
  *pci = {};
  std::snprintf(pci->busId, sizeof(pci->busId), "%s", Root(d)->bus_id.c_str());
  pci->bus = static_cast<unsigned int>(0x10 + Root(d)->index);
  return kSuccess;
}

// Links 0..peers-1 go to the listed peers; with nvswitch, links 0..3 go to the switch.
static nvmlReturn_t RemoteOf(nvmlDevice_t d, unsigned int link, std::string* bus) {
  const auto& c = d->config;
  if (c.value("nvswitch", false)) {
    if (link >= 4) return kErrorNotSupported;
    *bus = kSwitchBusId;
    return kSuccess;
  }
  auto peers = c.value("nvlinkPeers", std::vector<int>{});
  if (link >= peers.size() || peers[link] < 0 || peers[link] >= static_cast<int>(devices.size())) {
    return kErrorNotSupported;
  }
  *bus = devices[peers[link]]->bus_id;
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d,
                                                                             unsigned int link,
                                                                             unsigned int* active) {
  std::lock_guard<std::mutex> lock(mu);
  std::string bus;
  nvmlReturn_t r = RemoteOf(d, link, &bus);
  if (r != kSuccess) return r;
  *active = 1;
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(
    nvmlDevice_t d, unsigned int link, nvmlPciInfo_t* pci) {
  std::lock_guard<std::mutex> lock(mu);
  std::string bus;
  nvmlReturn_t r = RemoteOf(d, link, &bus);
  if (r != kSuccess) return r;
  *pci = {};
  std::snprintf(pci->busId, sizeof(pci->busId), "%s", bus.c_str());
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  *set = &the_event_set;
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t,
                                                                             unsigned long long,
                                                                             nvmlEventSet_t) {
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t,
                                                                        nvmlEventData_t* data,
                                                                        unsigned int) {
  std::lock_guard<std::mutex> lock(mu);
  ReadXids();
  if (pending.empty()) return kErrorTimeout;
  *data = pending.front();
  pending.pop_front();
  return kSuccess;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t) {
  return kSuccess;
}

}  // extern "C"
