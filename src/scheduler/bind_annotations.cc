// The devices of a bind as pod annotations (client/well_known.h) and back:
//   etna.io/gpu-ids            "0,1"   whole GPUs and shares, device indices in allocation order
//   etna.io/gpu-uuids          "GPU-a,GPU-b"  the same devices' UUIDs
//   etna.io/gpu-memory-mib     "40960" (one value for every device) or "40960,20480" per device
//   etna.io/gpu-cores-percent  "30" likewise; present only for shares
//   etna.io/mig-instances      "<gpu>:<profile>:<gi id>,..."; MIG devices are not in gpu-ids
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

#include "client/well_known.h"
#include "sched/devices/choose.h"
#include "scheduler/convert.h"

namespace etna::scheduler {
namespace {

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::optional<int64_t> ToInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// One value when all are equal, else one per device.
std::string JoinValues(const std::vector<int64_t>& v) {
  bool same = std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == v[0]; });
  return same ? fmt::format("{}", v[0]) : fmt::format("{}", fmt::join(v, ","));
}

std::string Get(const json& annotations, const char* key) {
  auto it = annotations.find(key);
  return it != annotations.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

json EncodeBindAnnotations(const sched::BindDecision& bind, const sched::Node& node) {
  json out = json::object();
  std::vector<std::string> ids, uuids, mig;
  std::vector<int64_t> memory, cores;
  bool share = false;
  for (const auto& d : bind.devices) {
    const sched::GpuDevice* g = nullptr;
    for (const auto& x : node.gpus) {
      if (x.index == d.gpu) g = &x;
    }
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
    out[client::kGpuIdsAnnotation] = fmt::format("{}", fmt::join(ids, ","));
    out[client::kGpuUuidsAnnotation] = fmt::format("{}", fmt::join(uuids, ","));
  }
  if (share) {
    out[client::kGpuMemoryMibAnnotation] = JoinValues(memory);
    out[client::kGpuCoresPercentAnnotation] = JoinValues(cores);
  }
  if (!mig.empty()) out[client::kMigInstancesAnnotation] = fmt::format("{}", fmt::join(mig, ","));
  return out;
}

Status DecodeHeldDevices(const json& annotations, std::vector<sched::DeviceAllocation>* devices,
                         std::vector<int32_t>* mig_ids) {
  devices->clear();
  mig_ids->clear();
  if (!annotations.is_object()) return Status::Ok();
  std::vector<std::string> ids = Split(Get(annotations, client::kGpuIdsAnnotation));
  std::string memory_text = Get(annotations, client::kGpuMemoryMibAnnotation);
  std::string cores_text = Get(annotations, client::kGpuCoresPercentAnnotation);
  std::vector<std::string> memory = Split(memory_text), cores = Split(cores_text);
  bool share = !memory_text.empty() || !cores_text.empty();
  auto per_device = [&](const std::vector<std::string>& v, size_t i, const char* key,
                        int64_t* out) -> Status {
    if (v.empty()) return Status::Ok();
    const std::string& s = v.size() == 1 ? v[0] : (i < v.size() ? v[i] : std::string());
    auto n = ToInt(s);
    if (!n) return Status::InvalidArgument(fmt::format("annotation {}: bad value '{}'", key, s));
    *out = *n;
    return Status::Ok();
  };
  for (size_t i = 0; i < ids.size(); ++i) {
    auto gpu = ToInt(ids[i]);
    if (!gpu) {
      return Status::InvalidArgument(
          fmt::format("annotation {}: bad device index '{}'", client::kGpuIdsAnnotation, ids[i]));
    }
    sched::DeviceAllocation d;
    d.gpu = static_cast<int32_t>(*gpu);
    if (share) {
      int64_t mem = 0, c = 0;
      ETNA_RETURN_IF_ERROR(per_device(memory, i, client::kGpuMemoryMibAnnotation, &mem));
      ETNA_RETURN_IF_ERROR(per_device(cores, i, client::kGpuCoresPercentAnnotation, &c));
      d.memory_mib = mem;
      d.cores_percent = static_cast<int32_t>(c);
      d.milli = static_cast<int32_t>(c * 10);
    }
    devices->push_back(d);
    mig_ids->push_back(-1);
  }
  for (const auto& item : Split(Get(annotations, client::kMigInstancesAnnotation))) {
    size_t a = item.find(':'), b = item.rfind(':');
    auto gpu = a == std::string::npos ? std::nullopt : ToInt(item.substr(0, a));
    auto id = b == a ? std::nullopt : ToInt(item.substr(b + 1));
    if (!gpu || !id) {
      return Status::InvalidArgument(
          fmt::format("annotation {}: bad instance '{}'", client::kMigInstancesAnnotation, item));
    }
    sched::DeviceAllocation d;
    d.gpu = static_cast<int32_t>(*gpu);
    d.milli = 0;
    devices->push_back(d);
    mig_ids->push_back(static_cast<int32_t>(*id));
  }
  return Status::Ok();
}

}  // namespace etna::scheduler
