// deviceshare: Volcano's device-sharing plugin, extended to MIG. It chooses the concrete
// devices of tasks that ask for MIG instances (`nvidia.com/mig-<profile>`, always on), vGPU
// shares (`volcano.sh/vgpu-*`, with deviceshare.VGPUEnable), legacy memory shares
// (`volcano.sh/gpu-memory`, with deviceshare.GPUSharingEnable) or whole GPUs by
// `volcano.sh/gpu-number` (with deviceshare.GPUNumberEnable); plain `nvidia.com/gpu` is left to
// the session's default chooser. Devices are picked by deviceshare.SchedulePolicy (binpack:
// fullest device first, the default; spread: emptiest first) and nodes scored by the same
// policy × deviceshare.ScheduleWeight (0 by default, as in Volcano: no score). A static
// predicate enforces the task's GPU model constraint (PodSpec::gpu_models against the node
// label nvidia.com/gpu.model or its devices' models). When devices cannot hold a task the
// chooser's reason ("node(s) had no free MIG instance of profile 1g.10gb") is what the session
// reports. deviceshare.NodeLockEnable, deviceshare.KnownGeometriesCMName and
// deviceshare.KnownGeometriesCMNamespace are accepted and have no effect.
//
// Thread-safety: none; one instance per session.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sched/devices/choose.h"
#include "sched/devices/request.h"
#include "sched/framework/plugin.h"
#include "sched/framework/session.h"

namespace etna::sched {

class DeviceSharePlugin : public Plugin {
 public:
  struct Options {
    bool gpu_sharing = false;
    bool gpu_number = false;
    bool vgpu = false;
    devices::DevicePolicy policy = devices::DevicePolicy::kBinpack;
    int64_t weight = 0;
  };
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  explicit DeviceSharePlugin(Options o) : o_(o) {}
  std::string_view name() const override { return "deviceshare"; }
  void OnSessionOpen(Session& session) override;

 private:
  // The device request of a task this plugin serves, or nullopt.
  std::optional<devices::DeviceRequest> Served(const Task& t) const;  // cached "not served"
  std::optional<devices::DeviceRequest> Parse(const Task& t) const;
  std::optional<DeviceChoice> Choose(const Task& t, const Node& n) const;

  Options o_;
  Session* session_ = nullptr;
  devices::DeviceResourceIds ids_;
  std::vector<uint8_t> served_;  // per task: 1 when Served() may answer
};

}  // namespace etna::sched
