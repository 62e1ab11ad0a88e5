// GPU discovery through NVML, loaded with dlopen at run time (the agent runs, and builds,
// where no NVIDIA driver is installed). Reads every device's name, UUID, PCI bus id, memory,
// utilization, temperature, power, SM and memory clocks, total energy, MIG mode and instances
// (with each instance's memory), NVLink data bytes (nvmlDeviceGetFieldValues, TX plus RX summed
// over all links, only for a device with an active link), and NVLink links (GPUs joined by active
// links, directly or through an NVSwitch, share an nvlinkDomain); listens for XID critical errors
// and marks a GPU unhealthy on one (IsCriticalXid). A reading whose entry point is missing from the
// library or that NVML does not answer (NOT_SUPPORTED, ...) stays unknown (-1). Works the same
// against libetna_fake_nvml.so.
// Thread-safety: one thread at a time (the agent's status loop).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "agent/gpu/gpu_source.h"
#include "agent/gpu/nvml_api.h"

namespace etna::agent {

class NvmlGpuSource final : public GpuSource {
 public:
  // dlopens `library` ("libnvidia-ml.so.1" or a path) and initialises NVML; Unavailable with
  // dlerror's or NVML's message otherwise.
  static Result<std::unique_ptr<NvmlGpuSource>> Open(const std::string& library);
  ~NvmlGpuSource() override;

  Result<std::vector<GpuDevice>> Devices() override;
  std::string Describe() const override { return "NVML (" + library_ + ")"; }

 private:
  struct Api;
  NvmlGpuSource(std::string library, void* handle, std::unique_ptr<Api> api);
  Status Init();
  void DrainXids();
  void ReadReadings(nvmlDevice_t dev, GpuDevice* d) const;
  void ReadMig(nvmlDevice_t dev, GpuDevice* d) const;
  int64_t NvLinkBytes(nvmlDevice_t dev) const;  // -1: unknown
  std::string Error(nvmlReturn_t r) const;

  std::string library_;
  void* handle_;
  std::unique_ptr<Api> api_;
  nvmlEventSet_t events_ = nullptr;
  std::map<std::string, std::vector<uint64_t>> xids_;  // by UUID
  // Each index's GPU as last read: what a GPU that NVML now calls lost was.
  std::map<unsigned int, client::NodeGpu> last_seen_;
};

}  // namespace etna::agent
