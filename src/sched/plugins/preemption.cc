#include "sched/plugins/preemption.h"

#include <fmt/format.h>

#include "sched/framework/session.h"

namespace etna::sched {
namespace {

Status ReadFraction(Arguments& args, const std::string& key, double* out) {
  ETNA_RETURN_IF_ERROR(args.GetDouble(key, out));
  if (!(*out > 0.0 && *out <= 1.0)) {
    return Status::InvalidArgument(
        fmt::format("argument {}: must be a fraction in (0, 1], got {}", key, *out));
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Plugin>> PreemptionPlugin::Create(PluginBuildContext& ctx) {
  auto plugin = std::make_unique<PreemptionPlugin>();
  PreemptionPolicy& p = plugin->policy_;
  Arguments& args = ctx.arguments;
  ETNA_RETURN_IF_ERROR(
      ReadFraction(args, "preemption.maxClusterFraction", &p.max_cluster_fraction));
  ETNA_RETURN_IF_ERROR(ReadFraction(args, "preemption.maxJobFraction", &p.max_job_fraction));
  if (args.Has("preemption.victimOrder")) {
    std::string order;
    ETNA_RETURN_IF_ERROR(args.GetString("preemption.victimOrder", &order));
    if (order == "longest-running") {
      p.victim_order = VictimOrder::kLongestRunning;
    } else if (order == "least-work-lost") {
      p.victim_order = VictimOrder::kLeastWorkLost;
    } else {
      return Status::InvalidArgument(
          fmt::format("argument preemption.victimOrder: \"{}\" is not one of longest-running, "
                      "least-work-lost",
                      order));
    }
  }
  ETNA_RETURN_IF_ERROR(args.GetBool("preemption.wholeGang", &p.whole_gang));
  ETNA_RETURN_IF_ERROR(
      args.GetBool("preemption.requireHigherPriority", &p.require_higher_priority));
  return std::unique_ptr<Plugin>(std::move(plugin));
}

void PreemptionPlugin::OnSessionOpen(Session& session) { session.preemption_policy() = policy_; }

}  // namespace etna::sched
