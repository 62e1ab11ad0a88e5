// overcommit: Volcano's overcommit plugin, admission against an inflated cluster.
//
// At session open: idle = floor(cluster_total × overcommit-factor) − Σ node used, and
// inqueue = Σ minResources of Inqueue jobs + Σ (minResources − allocated, at least 0) of
// Running jobs. JobEnqueueable permits a job whose minResources (none: always) plus inqueue
// fit in idle on every resource the job asks for, else rejects; JobEnqueued adds the admitted job's
// minResources to inqueue. Argument: overcommit-factor (default 1.2, must be >= 1).
//
// Thread-safety: none; one instance per session.
#pragma once

#include "common/resource.h"
#include "sched/framework/plugin.h"

namespace etna::sched {

class OvercommitPlugin : public Plugin {
 public:
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  explicit OvercommitPlugin(double factor) : factor_(factor) {}
  std::string_view name() const override { return "overcommit"; }
  void OnSessionOpen(Session& session) override;

 private:
  double factor_;
  ResourceVector idle_;
  ResourceVector inqueue_;
};

}  // namespace etna::sched
