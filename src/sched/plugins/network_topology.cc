#include "sched/plugins/network_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "sched/framework/session.h"

namespace etna::sched {
namespace {

Status NonNegative(Arguments& a, const char* key, int64_t* v) {
  ETNA_RETURN_IF_ERROR(a.GetInt(key, v));
  if (*v < 0) return Status::InvalidArgument(fmt::format("argument {}: must be >= 0", key));
  return Status::Ok();
}

}  // namespace

int64_t CopiesThatFit(const ResourceVector& request, const ResourceVector& idle) {
  int64_t copies = std::numeric_limits<int32_t>::max();
  for (int r = 0; r < request.dims(); ++r) {
    int64_t want = request.Get(r);
    if (want <= 0) continue;
    copies = std::min(copies, std::max<int64_t>(0, idle.Get(r)) / want);
  }
  return copies;
}

Result<std::unique_ptr<Plugin>> NetworkTopologyPlugin::Create(PluginBuildContext& ctx) {
  Options o;
  ETNA_RETURN_IF_ERROR(NonNegative(ctx.arguments, "weight", &o.weight));
  ETNA_RETURN_IF_ERROR(NonNegative(ctx.arguments, "intraNodePenalty", &o.intra_node_penalty));
  ETNA_RETURN_IF_ERROR(NonNegative(ctx.arguments, "interNodePenalty", &o.inter_node_penalty));
  return std::unique_ptr<Plugin>(new NetworkTopologyPlugin(o));
}

bool NetworkTopologyPlugin::Applies(const Job& job) {
  return job.min_available > 1 || job.network_topology.mode != Job::NetworkTopology::Mode::kNone;
}

void NetworkTopologyPlugin::OnSessionOpen(Session& s) {
  if (o_.weight == 0) return;
  bool needed = false;
  for (const Job& job : s.jobs()) {
    if (Applies(job) && s.PendingTasks(job).size() >= 2) needed = true;
  }
  if (!needed) return;
  topology_ = std::make_unique<HyperNodeIndex>(s.nodes(), s.hypernodes());
  s.AddNodeOrderFn([this, &s](const Task& t, const Node& n) { return Score(s, t, n); },
                   /*member_dependent=*/true);
}

int64_t NetworkTopologyPlugin::SwitchFit(const Session& s, const Task& t, int32_t h) {
  TaskIdx ti = s.IndexOf(t);
  if (fit_task_ != ti || fit_log_ != s.node_change_log().size()) {
    fit_task_ = ti;
    fit_log_ = s.node_change_log().size();
    switch_fit_.assign(topology_->hypernodes().size(), -1);
  }
  int64_t& fit = switch_fit_[h];
  if (fit < 0) {
    fit = 0;
    for (NodeIdx m : topology_->Members(h)) {
      const Node& node = s.node(m);
      if (s.Schedulable(node)) fit += CopiesThatFit(t.request, node.Idle());
    }
  }
  return fit;
}

double NetworkTopologyPlugin::Score(const Session& s, const Task& t, const Node& n) {
  if (t.job == kNone) return 0;
  const Job& job = s.job(t.job);
  if (!Applies(job)) return 0;
  NodeIdx ni = s.IndexOf(n);
  const MemberNodes& m = members_.Get(s, t, topology_.get());
  double score;
  if (m.members > 0) {
    double penalty_sum = 0;
    ForEachMemberDistance(*topology_, m, ni, [&](int32_t d, int count) {
      penalty_sum +=
          static_cast<double>(count) *
          static_cast<double>(d == 0 ? o_.intra_node_penalty : o_.inter_node_penalty * d);
    });
    score = std::max(0.0, 100.0 - penalty_sum / m.members);
  } else {
    int64_t pending = m.pending;
    double want = static_cast<double>(pending + 1);
    int64_t on_node = CopiesThatFit(t.request, n.Idle());
    const auto& containing = topology_->Containing(ni);
    int64_t on_switch = containing.empty() ? on_node : SwitchFit(s, t, containing.front());
    score = 50.0 * std::min(1.0, static_cast<double>(on_node) / want) +
            50.0 * std::min(1.0, static_cast<double>(on_switch) / want);
  }
  return score * static_cast<double>(o_.weight);
}

}  // namespace etna::sched
