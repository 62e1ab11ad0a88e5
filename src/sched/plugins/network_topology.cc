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
  s.AddMemberNodeOrderFn(
      [this, &s](const Task& t, const std::vector<const Node*>& nodes,
                 std::vector<double>& scores) { AddScores(s, t, nodes, scores); });
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

void NetworkTopologyPlugin::AddScores(const Session& s, const Task& t,
                                      const std::vector<const Node*>& nodes,
                                      std::vector<double>& scores) {
  if (t.job == kNone || !Applies(s.job(t.job))) return;
  const MemberNodes& m = members_.Get(s, t, topology_.get());
  for (size_t i = 0; i < nodes.size(); ++i) {
    scores[i] += Score(s, t, m, *nodes[i]) * static_cast<double>(o_.weight);
  }
}

double NetworkTopologyPlugin::Score(const Session& s, const Task& t, const MemberNodes& m,
                                    const Node& n) {
  NodeIdx ni = s.IndexOf(n);
  if (m.members > 0) {
    double penalty_sum = 0;
    ForEachMemberDistance(*topology_, m, ni, [&](int32_t d, int count) {
      penalty_sum +=
          static_cast<double>(count) *
          static_cast<double>(d == 0 ? o_.intra_node_penalty : o_.inter_node_penalty * d);
    });
    return std::max(0.0, 100.0 - penalty_sum / m.members);
  }
  double want = static_cast<double>(m.pending + 1);
  int64_t on_node = CopiesThatFit(t.request, n.Idle());
  const auto& containing = topology_->Containing(ni);
  int64_t on_switch = containing.empty() ? on_node : SwitchFit(s, t, containing.front());
  return 50.0 * std::min(1.0, static_cast<double>(on_node) / want) +
         50.0 * std::min(1.0, static_cast<double>(on_switch) / want);
}

}  // namespace etna::sched
