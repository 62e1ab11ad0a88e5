#include "sched/devices/inventory.h"

#include <fmt/format.h>

#include <algorithm>

#include "gpu/mig_catalog.h"
#include "sched/devices/request.h"

namespace etna::sched::devices {

Result<std::vector<GpuDevice>> BuildGpus(const NodeGpuSpec& spec) {
  const gpu::GpuModelSpec* model = gpu::FindGpuModel(spec.model);
  int64_t memory = spec.memory_mib > 0 ? spec.memory_mib : (model ? model->memory_mib : 81920);
  int per_domain = std::max(1, spec.count / std::max(1, spec.nvlink_domains));
  std::vector<GpuDevice> gpus;
  for (int i = 0; i < spec.count; ++i) {
    GpuDevice g;
    g.index = i;
    g.uuid = fmt::format("GPU-{}-{}", spec.node, i);
    g.model = spec.model;
    g.memory_mib = memory;
    g.nvlink_domain = spec.nvlink_domains > 0 ? i / per_domain : -1;
    g.numa_node = i < spec.count / 2 ? 0 : 1;
    gpus.push_back(std::move(g));
  }
  for (const auto& [index, profiles] : spec.mig) {
    if (index < 0 || index >= spec.count) {
      return Status::InvalidArgument(
          fmt::format("MIG layout for GPU {} of node {}: no such GPU", index, spec.node));
    }
    auto instances = MakeMigInstances(spec.model, profiles);
    if (!instances.ok()) {
      return instances.status().WithContext(fmt::format("GPU {} of node {}", index, spec.node));
    }
    gpus[index].mig = std::move(instances).value();
  }
  return gpus;
}

Result<std::vector<MigInstance>> MakeMigInstances(std::string_view model,
                                                  const std::vector<std::string>& profiles) {
  ETNA_ASSIGN_OR_RETURN(std::vector<gpu::MigSlot> slots, gpu::LayOutMig(model, profiles));
  std::vector<MigInstance> instances;
  for (const auto& slot : slots) instances.push_back({slot.profile, slot.id});
  return instances;
}

Status AdvertiseDevices(const std::vector<GpuDevice>& gpus, const AdvertiseOptions& options,
                        ResourceVector* allocatable) {
  ResourceNames& names = ResourceNames::Global();
  int64_t whole = 0, memory = 0;
  std::map<std::string, int64_t> mig;
  for (const auto& g : gpus) {
    if (!g.healthy) continue;
    if (g.mig.empty()) {
      ++whole;
      memory += g.memory_mib;
    }
    for (const auto& m : g.mig) ++mig[m.profile];
  }
  allocatable->Set(kGpu, whole * 1000);
  for (const auto& [profile, count] : mig) {
    ETNA_ASSIGN_OR_RETURN(ResourceId id, names.Intern(gpu::MigResourceName(profile)));
    allocatable->Set(id, count * 1000);
  }
  if (options.vgpu_split > 0) {
    ETNA_ASSIGN_OR_RETURN(ResourceId number, names.Intern(kVgpuNumber));
    ETNA_ASSIGN_OR_RETURN(ResourceId mem, names.Intern(kVgpuMemory));
    ETNA_ASSIGN_OR_RETURN(ResourceId cores, names.Intern(kVgpuCores));
    allocatable->Set(number, whole * options.vgpu_split * 1000);
    allocatable->Set(mem, memory * 1000);
    allocatable->Set(cores, whole * 100 * 1000);
  }
  if (options.legacy_share) {
    ETNA_ASSIGN_OR_RETURN(ResourceId mem, names.Intern(kGpuMemory));
    allocatable->Set(mem, memory * 1000);
  }
  return Status::Ok();
}

}  // namespace etna::sched::devices
