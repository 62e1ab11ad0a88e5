#include "sched/devices/request.h"

#include <cctype>

#include "common/strings.h"
#include "gpu/mig_catalog.h"

namespace etna::sched::devices {
namespace {

// Extended resources are stored in milli-units; device quantities are whole numbers.
int64_t Whole(int64_t milli) { return milli <= 0 ? 0 : (milli + 999) / 1000; }

}  // namespace

DeviceResourceIds DeviceResourceIds::Lookup() {
  const ResourceNames& names = ResourceNames::Global();
  DeviceResourceIds ids;
  ids.vgpu_number = names.Find(kVgpuNumber);
  ids.vgpu_memory = names.Find(kVgpuMemory);
  ids.vgpu_cores = names.Find(kVgpuCores);
  ids.gpu_memory = names.Find(kGpuMemory);
  ids.gpu_number = names.Find(kGpuNumber);
  for (int i = 0; i < names.size(); ++i) {
    const std::string& n = names.Name(static_cast<ResourceId>(i));
    if (n.starts_with(gpu::kMigResourcePrefix)) {
      ids.mig.emplace_back(static_cast<ResourceId>(i), n.substr(gpu::kMigResourcePrefix.size()));
    }
  }
  return ids;
}

DeviceRequest ParseDeviceRequest(const ResourceVector& request, const DeviceResourceIds& ids) {
  DeviceRequest r;
  auto get = [&](const std::optional<ResourceId>& id) {
    return id && *id < request.dims() ? Whole(request.Get(*id)) : 0;
  };
  r.gpu_milli = request.Get(kGpu);
  r.gpu_number = static_cast<int32_t>(get(ids.gpu_number));
  r.vgpu_number = static_cast<int32_t>(get(ids.vgpu_number));
  r.vgpu_memory_mib = get(ids.vgpu_memory);
  r.vgpu_cores = static_cast<int32_t>(get(ids.vgpu_cores));
  r.gpu_memory_mib = get(ids.gpu_memory);
  // vgpu-memory or vgpu-cores without a number means one vGPU (HAMi's defaultGPUNum).
  if (r.vgpu_number == 0 && (r.vgpu_memory_mib > 0 || r.vgpu_cores > 0)) r.vgpu_number = 1;
  for (const auto& [id, profile] : ids.mig) {
    if (id >= request.dims()) continue;
    if (int64_t n = Whole(request.Get(id)); n > 0) {
      r.mig.push_back({profile, static_cast<int32_t>(n)});
    }
  }
  return r;
}

std::vector<std::string> ParseGpuModels(std::string_view spec) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t end = spec.find_first_of("|,", start);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view item = Trim(spec.substr(start, end - start));
    if (!item.empty()) out.emplace_back(item);
    start = end + 1;
  }
  return out;
}

bool GpuModelAllowed(const std::vector<std::string>& allowed, std::string_view model) {
  if (allowed.empty()) return true;
  for (const auto& a : allowed) {
    if (EqualsIgnoreCase(a, model)) return true;
  }
  return false;
}

}  // namespace etna::sched::devices
