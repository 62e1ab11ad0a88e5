// GPU discovery through NVML, loaded with dlopen at run time (the agent runs, and builds,
// where no NVIDIA driver is installed). Reads every device's name, UUID, memory, utilization,
// temperature, power, MIG mode and instances, and NVLink links (GPUs joined by active links,
// directly or through an NVSwitch, share an nvlinkDomain); listens for XID critical errors and
// marks a GPU unhealthy on one (IsCriticalXid). Works the same against libetna_fake_nvml.so.
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
  std::string Error(nvmlReturn_t r) const;

  std::string library_;
  void* handle_;
  std::unique_ptr<Api> api_;
  nvmlEventSet_t events_ = nullptr;
  std::map<std::string, std::vector<uint64_t>> xids_;  // by UUID
};

}  // namespace etna::agent
