// gang: all-or-nothing jobs (Volcano's gang plugin).
//
// A job is valid only with at least minAvailable live tasks (and minTaskMember per role); ready
// when that many hold a node; pipelined when that many hold or wait for one. Jobs not yet ready
// are ordered first. A running task may be a victim only if its job keeps minAvailable members
// (and each role its minTaskMember) after every eviction chosen so far.
#pragma once

#include "sched/framework/plugin.h"

namespace etna::sched {

class GangPlugin : public Plugin {
 public:
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  std::string_view name() const override { return "gang"; }
  void OnSessionOpen(Session& session) override;
};

}  // namespace etna::sched
