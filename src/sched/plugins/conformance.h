// conformance: Volcano's conformance plugin. Preempt and reclaim never evict pods of priority
// class system-cluster-critical or system-node-critical, nor pods in namespace kube-system.
// Stateless; thread-safety as the session.
#pragma once

#include "sched/framework/plugin.h"

namespace etna::sched {

class ConformancePlugin : public Plugin {
 public:
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  std::string_view name() const override { return "conformance"; }
  void OnSessionOpen(Session& session) override;
};

}  // namespace etna::sched
