// The devices of a bind as pod annotations and back; the format is described, and decoded for
// every part, in api/types/bound_devices.h.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "api/types/bound_devices.h"
#include "api/types/well_known.h"
#include "sched/devices/choose.h"
#include "scheduler/convert.h"

namespace etna::scheduler {
namespace {

// One value when all are equal, else one per device.
std::string JoinValues(const std::vector<int64_t>& v) {
  bool same = std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == v[0]; });
  return same ? fmt::format("{}", v[0]) : fmt::format("{}", fmt::join(v, ","));
}

}  // namespace

json EncodeBindAnnotations(const sched::BindDecision& bind, const sched::Node& node) {
  json out = json::object();
  std::vector<std::string> ids, uuids, mig;
  std::string model;
  std::vector<int64_t> memory, cores;
  bool share = false;
  for (const auto& d : bind.devices) {
    const sched::GpuDevice* g = nullptr;
    for (const auto& x : node.gpus) {
      if (x.index == d.gpu) g = &x;
    }
    if (g != nullptr && model.empty()) model = g->model;
    if (d.mig_instance >= 0) {
      if (g && d.mig_instance < static_cast<int32_t>(g->mig.size())) {
        const auto& m = g->mig[d.mig_instance];
        mig.push_back(fmt::format("{}:{}:{}", d.gpu, m.profile, m.id));
      }
      continue;
    }
    ids.push_back(std::to_string(d.gpu));
    uuids.push_back(g ? g->uuid : std::string());
    memory.push_back(d.memory_mib);
    int32_t c = d.cores_percent > 0 ? d.cores_percent : d.milli / 10;
    cores.push_back(c);
    share |= sched::devices::IsShare(d);
  }
  if (!ids.empty()) {
    out[api::types::kGpuIdsAnnotation] = fmt::format("{}", fmt::join(ids, ","));
    out[api::types::kGpuUuidsAnnotation] = fmt::format("{}", fmt::join(uuids, ","));
  }
  if (share) {
    out[api::types::kGpuMemoryMibAnnotation] = JoinValues(memory);
    out[api::types::kGpuCoresPercentAnnotation] = JoinValues(cores);
  }
  if (!mig.empty())
    out[api::types::kMigInstancesAnnotation] = fmt::format("{}", fmt::join(mig, ","));
  if (!model.empty()) out[api::types::kGpuModelAnnotation] = model;
  return out;
}

Status DecodeHeldDevices(const json& annotations, std::vector<sched::DeviceAllocation>* devices,
                         std::vector<int32_t>* mig_ids) {
  devices->clear();
  mig_ids->clear();
  ETNA_ASSIGN_OR_RETURN(api::types::BoundDevices bound,
                        api::types::DecodeBoundDevices(annotations));
  for (const api::types::BoundGpu& g : bound.gpus) {
    sched::DeviceAllocation d;
    d.gpu = g.index;
    if (g.share) {
      d.memory_mib = g.memory_mib;
      d.cores_percent = g.cores_percent;
      d.milli = g.cores_percent * 10;
    }
    devices->push_back(d);
    mig_ids->push_back(-1);
  }
  for (const api::types::BoundMigInstance& m : bound.mig) {
    sched::DeviceAllocation d;
    d.gpu = m.gpu;
    d.milli = 0;
    devices->push_back(d);
    mig_ids->push_back(m.instance);
  }
  return Status::Ok();
}

}  // namespace etna::scheduler
