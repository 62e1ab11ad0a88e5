// sla: Volcano's sla plugin. A job's waiting limit is its own sla_waiting_ms (the
// volcano.sh/sla-waiting-time annotation) or else the `sla-waiting-time` argument (a
// duration; none: jobs without their own limit have no SLA).
//   JobOrder: jobs with an SLA before jobs without; among them the earlier deadline
//     (creation + limit) first, so jobs past their SLA come first, the longest overdue first.
//   JobEnqueueable and JobPipelined: Permit (force) a job past its deadline, else abstain.
// Thread-safety: none; one instance per session.
#pragma once

#include <optional>

#include "common/clock.h"
#include "sched/framework/plugin.h"
#include "sched/model/snapshot.h"

namespace etna::sched {

class SlaPlugin : public Plugin {
 public:
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  explicit SlaPlugin(TimeMs waiting_ms) : waiting_ms_(waiting_ms) {}
  std::string_view name() const override { return "sla"; }
  void OnSessionOpen(Session& session) override;

  // creation + waiting limit, or nullopt without an SLA.
  std::optional<TimeMs> Deadline(const Job& j) const;

 private:
  TimeMs waiting_ms_;  // 0: no default
};

}  // namespace etna::sched
