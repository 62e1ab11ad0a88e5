// priority: orders jobs and tasks by priority and lets a job preempt only lower-priority work
// (Volcano's priority plugin). Within one job, a task may displace a lower-priority task.
#pragma once

#include "sched/framework/plugin.h"

namespace etna::sched {

class PriorityPlugin : public Plugin {
 public:
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  std::string_view name() const override { return "priority"; }
  void OnSessionOpen(Session& session) override;
};

}  // namespace etna::sched
