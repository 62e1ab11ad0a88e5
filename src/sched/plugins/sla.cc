#include "sched/plugins/sla.h"

#include "sched/framework/session.h"

namespace etna::sched {

Result<std::unique_ptr<Plugin>> SlaPlugin::Create(PluginBuildContext& ctx) {
  int64_t ms = 0;
  ETNA_RETURN_IF_ERROR(ctx.arguments.GetDurationMs("sla-waiting-time", &ms));
  if (ms < 0) return Status::InvalidArgument("argument sla-waiting-time: must be >= 0");
  return std::unique_ptr<Plugin>(new SlaPlugin(ms));
}

std::optional<TimeMs> SlaPlugin::Deadline(const Job& j) const {
  TimeMs waiting = j.sla_waiting_ms > 0 ? j.sla_waiting_ms : waiting_ms_;
  if (waiting <= 0) return std::nullopt;
  return j.creation_ms + waiting;
}

void SlaPlugin::OnSessionOpen(Session& s) {
  s.AddJobOrderFn([this](const Job& l, const Job& r) {
    auto ld = Deadline(l), rd = Deadline(r);
    if (!ld) return rd ? 1 : 0;
    if (!rd) return -1;
    if (*ld == *rd) return 0;
    return *ld < *rd ? -1 : 1;
  });
  auto past_due = [this, &s](const Job& j) {
    auto d = Deadline(j);
    return d && s.now() >= *d ? Vote::kPermit : Vote::kAbstain;
  };
  s.AddJobEnqueueableFn(past_due);
  s.AddJobPipelinedFn(past_due);
}

}  // namespace etna::sched
