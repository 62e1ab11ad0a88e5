// Built-in device plugins.
#include "sched/builtins.h"
#include "sched/plugins/deviceshare.h"

namespace etna::sched {

void RegisterDevicePlugins(Registry& r) { r.AddPlugin("deviceshare", DeviceSharePlugin::Create); }

}  // namespace etna::sched
