#include "agent/gpu/gpu_holders.h"

#include "client/bound_devices.h"

namespace etna::agent {
namespace {

using nlohmann::json;

bool Holds(const json& pod) {
  if (!pod.is_object()) return false;
  std::string phase = pod.value("/status/phase"_json_pointer, std::string());
  return phase != "Succeeded" && phase != "Failed";
}

}  // namespace

GpuHolders GpuHoldersFromPods(const std::vector<json>& pods) {
  GpuHolders out;
  for (const json& pod : pods) {
    if (!Holds(pod)) continue;
    GpuHolder who;
    who.pod = pod.value("/metadata/name"_json_pointer, std::string());
    who.ns = pod.value("/metadata/namespace"_json_pointer, std::string());
    const json containers = pod.value("/spec/containers"_json_pointer, json::array());
    if (containers.is_array() && !containers.empty() && containers[0].is_object()) {
      who.container = containers[0].value("name", "");
    }
    auto bound =
        client::DecodeBoundDevices(pod.value("/metadata/annotations"_json_pointer, json::object()));
    if (!bound.ok()) continue;  // metrics never fail on one pod's annotations
    for (const client::BoundGpu& g : bound->gpus) {
      GpuHolder h = who;
      if (g.share && g.memory_mib > 0) h.memory_mib = g.memory_mib;
      out[g.index].push_back(std::move(h));
    }
    for (const client::BoundMigInstance& m : bound->mig) {
      GpuHolder h = who;
      h.mig_instance = m.instance;
      out[m.gpu].push_back(std::move(h));
    }
  }
  return out;
}

}  // namespace etna::agent
