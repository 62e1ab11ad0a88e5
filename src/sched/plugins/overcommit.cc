#include "sched/plugins/overcommit.h"

#include <cmath>

#include "sched/framework/session.h"

namespace etna::sched {

Result<std::unique_ptr<Plugin>> OvercommitPlugin::Create(PluginBuildContext& ctx) {
  double factor = 1.2;
  ETNA_RETURN_IF_ERROR(ctx.arguments.GetDouble("overcommit-factor", &factor));
  if (factor < 1.0) {
    return Status::InvalidArgument("argument overcommit-factor: must be >= 1.0");
  }
  return std::unique_ptr<Plugin>(new OvercommitPlugin(factor));
}

void OvercommitPlugin::OnSessionOpen(Session& s) {
  const ResourceVector& total = s.cluster_total();
  idle_ = ResourceVector();
  // total × factor in exact integers: the factor in millionths, the product in 128 bits.
  auto ppm = static_cast<__int128>(std::llround(factor_ * 1e6));
  for (int r = 0; r < total.dims(); ++r) {
    idle_.Set(static_cast<ResourceId>(r), static_cast<int64_t>(total.Get(r) * ppm / 1'000'000));
  }
  for (const Node& n : s.nodes()) {
    if (n.ready) idle_ -= n.used;
  }
  inqueue_ = ResourceVector();
  for (const Job& j : s.jobs()) {
    if (j.min_resources.IsZero()) continue;
    if (j.phase == PodGroupPhase::kInqueue) {
      inqueue_ += j.min_resources;
    } else if (j.phase == PodGroupPhase::kRunning) {
      inqueue_ += (j.min_resources - j.allocated).ClampedAtZero();
    }
  }
  s.AddJobEnqueueableFn([this](const Job& j) {
    if (j.min_resources.IsZero()) return Vote::kPermit;
    // Only the resources the job asks for are compared: one it does not need never blocks it.
    ResourceVector want = inqueue_ + j.min_resources;
    for (int r = 0; r < j.min_resources.dims(); ++r) {
      auto id = static_cast<ResourceId>(r);
      if (j.min_resources.Get(id) > 0 && want.Get(id) > idle_.Get(id)) return Vote::kReject;
    }
    return Vote::kPermit;
  });
  s.AddJobEnqueuedFn([this](const Job& j) { inqueue_ += j.min_resources; });
}

}  // namespace etna::sched
