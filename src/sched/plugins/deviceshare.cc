#include "sched/plugins/deviceshare.h"

#include <fmt/format.h>

#include <string>

namespace etna::sched {
namespace {

using devices::DevicePolicy;
using devices::DeviceRequest;

const std::vector<std::string>& Models(const Task& t) {
  static const std::vector<std::string> kNone;
  return t.spec ? t.spec->gpu_models : kNone;
}

bool NodeHasModel(const Node& n, const std::vector<std::string>& models) {
  auto label = n.labels.find(devices::kGpuModelLabel);
  if (label != n.labels.end() && devices::GpuModelAllowed(models, label->second)) return true;
  for (const auto& g : n.gpus) {
    if (devices::GpuModelAllowed(models, g.model)) return true;
  }
  return false;
}

}  // namespace

Result<std::unique_ptr<Plugin>> DeviceSharePlugin::Create(PluginBuildContext& ctx) {
  Arguments& a = ctx.arguments;
  Options o;
  bool node_lock = false;
  std::string policy = "binpack", cm_name, cm_namespace;
  ETNA_RETURN_IF_ERROR(a.GetBool("deviceshare.GPUSharingEnable", &o.gpu_sharing));
  ETNA_RETURN_IF_ERROR(a.GetBool("deviceshare.GPUNumberEnable", &o.gpu_number));
  ETNA_RETURN_IF_ERROR(a.GetBool("deviceshare.VGPUEnable", &o.vgpu));
  ETNA_RETURN_IF_ERROR(a.GetBool("deviceshare.NodeLockEnable", &node_lock));
  ETNA_RETURN_IF_ERROR(a.GetString("deviceshare.SchedulePolicy", &policy));
  ETNA_RETURN_IF_ERROR(a.GetInt("deviceshare.ScheduleWeight", &o.weight));
  ETNA_RETURN_IF_ERROR(a.GetString("deviceshare.KnownGeometriesCMName", &cm_name));
  ETNA_RETURN_IF_ERROR(a.GetString("deviceshare.KnownGeometriesCMNamespace", &cm_namespace));
  if (policy == "binpack" || policy.empty()) {
    o.policy = DevicePolicy::kBinpack;
  } else if (policy == "spread") {
    o.policy = DevicePolicy::kSpread;
  } else {
    return Status::InvalidArgument(fmt::format(
        "argument deviceshare.SchedulePolicy: \"{}\" is neither binpack nor spread", policy));
  }
  if (o.weight < 0) {
    return Status::InvalidArgument("argument deviceshare.ScheduleWeight: must be >= 0");
  }
  return std::unique_ptr<Plugin>(new DeviceSharePlugin(o));
}

std::optional<DeviceRequest> DeviceSharePlugin::Served(const Task& t) const {
  TaskIdx i = session_->IndexOf(t);
  if (i >= 0 && i < static_cast<TaskIdx>(served_.size()) && &session_->task(i) == &t &&
      !served_[i]) {
    return std::nullopt;
  }
  return Parse(t);
}

std::optional<DeviceRequest> DeviceSharePlugin::Parse(const Task& t) const {
  DeviceRequest r = devices::ParseDeviceRequest(t.request, ids_);
  if (!o_.vgpu) r.vgpu_number = 0, r.vgpu_memory_mib = 0, r.vgpu_cores = 0;
  if (!o_.gpu_sharing) r.gpu_memory_mib = 0;
  if (!o_.gpu_number) r.gpu_number = 0;
  if (!r.Any()) return std::nullopt;
  return r;
}

std::optional<DeviceChoice> DeviceSharePlugin::Choose(const Task& t, const Node& n) const {
  auto r = Served(t);
  if (!r) return std::nullopt;
  DeviceChoice c;
  int kinds = (r->gpu_milli > 0 || r->gpu_number > 0) + r->HasMig() + r->HasShare();
  if (kinds > 1) {
    c.fits = false;
    c.reason = "node(s) cannot serve a request that mixes MIG instances, GPU shares and whole GPUs";
    return c;
  }
  std::optional<std::vector<DeviceAllocation>> picked;
  if (r->HasMig()) {
    picked = devices::ChooseMig(n, r->mig, Models(t), o_.policy, &c.reason);
  } else if (r->HasShare()) {
    devices::ShareState state;
    state.models = Models(t);
    state.shares.assign(n.gpus.size(), 0);
    for (TaskIdx ti : n.tasks) {
      const Task& other = session_->task(ti);
      if (!HoldsNode(other.status)) continue;
      for (const auto& d : other.devices) {
        if (devices::IsShare(d) && d.gpu >= 0 && d.gpu < static_cast<int32_t>(n.gpus.size())) {
          ++state.shares[d.gpu];
        }
      }
    }
    picked = devices::ChooseShares(n, *r, state, o_.policy, &c.reason);
  } else {
    Task whole;
    whole.request.Set(kGpu, int64_t{r->gpu_number} * 1000);
    picked = Session::DefaultDevices(whole, n);
    if (!picked) c.reason = fmt::format("node(s) had fewer than {} free GPUs", r->gpu_number);
  }
  c.fits = picked.has_value();
  if (picked) c.devices = std::move(*picked);
  return c;
}

void DeviceSharePlugin::OnSessionOpen(Session& s) {
  session_ = &s;
  ids_ = devices::DeviceResourceIds::Lookup();
  served_.assign(s.tasks().size(), 0);
  bool any = false;
  for (size_t i = 0; i < s.tasks().size(); ++i) {
    served_[i] = Parse(s.tasks()[i]).has_value();
    any |= served_[i] != 0;
  }
  // Static: depends on the spec's models and the node's label and device models only.
  s.AddPredicateFn(
      [](const Task& t, const Node& n) {
        const auto& models = Models(t);
        if (models.empty() || NodeHasModel(n, models)) return PredicateResult::Pass();
        return PredicateResult::Fail("node(s) didn't match the requested GPU model");
      },
      /*cacheable=*/true);
  // Tasks submitted after the snapshot was taken do not exist; with none served there is
  // nothing to choose and the session keeps its cheap default path.
  if (!any) return;
  s.AddDeviceChooserFn([this](const Task& t, const Node& n) { return Choose(t, n); });
  if (o_.weight > 0) {
    s.AddNodeOrderFn([this](const Task& t, const Node& n) {
      auto c = Choose(t, n);
      if (!c || !c->fits) return 0.0;
      return devices::ScoreChoice(n, c->devices, o_.policy) * static_cast<double>(o_.weight);
    });
  }
}

}  // namespace etna::sched
