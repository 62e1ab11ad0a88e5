#include "sched/plugins/conformance.h"

#include "sched/framework/session.h"

namespace etna::sched {

Result<std::unique_ptr<Plugin>> ConformancePlugin::Create(PluginBuildContext&) {
  return std::unique_ptr<Plugin>(new ConformancePlugin());
}

void ConformancePlugin::OnSessionOpen(Session& s) {
  auto victims = [&s](const Task&, const std::vector<TaskIdx>& candidates, EvictionScope) {
    std::vector<TaskIdx> allowed;
    for (TaskIdx ti : candidates) {
      const Task& t = s.task(ti);
      if (t.priority_class == "system-cluster-critical" ||
          t.priority_class == "system-node-critical" || t.ns == "kube-system") {
        continue;
      }
      allowed.push_back(ti);
    }
    return std::optional<std::vector<TaskIdx>>(std::move(allowed));
  };
  s.AddPreemptableFn(victims);
  s.AddReclaimableFn(victims);
}

}  // namespace etna::sched
