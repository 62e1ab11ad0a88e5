#include "agent/gpu/gpu_holders.h"

#include "api/types/pod.h"

namespace etna::agent {
namespace {

using nlohmann::json;
namespace types = etna::api::types;

}  // namespace

GpuHolders GpuHoldersFromPods(const std::vector<json>& pods) {
  GpuHolders out;
  for (const json& object : pods) {
    types::Pod pod(object);
    if (!object.is_object() || pod.IsTerminal()) continue;
    GpuHolder who;
    who.pod = pod.name();
    who.ns = pod.ns();
    who.uid = pod.uid();
    who.ready = pod.IsReady();
    const json& containers = pod.containers();
    if (!containers.empty()) who.container = types::String(containers[0], {"name"});
    auto bound = pod.BoundGpus();
    if (!bound.ok()) continue;  // metrics never fail on one pod's annotations
    for (const types::BoundGpu& g : bound->gpus) {
      GpuHolder h = who;
      if (g.share && g.memory_mib > 0) h.memory_mib = g.memory_mib;
      out[g.index].push_back(std::move(h));
    }
    for (const types::BoundMigInstance& m : bound->mig) {
      GpuHolder h = who;
      h.mig_instance = m.instance;
      out[m.gpu].push_back(std::move(h));
    }
  }
  return out;
}

}  // namespace etna::agent
