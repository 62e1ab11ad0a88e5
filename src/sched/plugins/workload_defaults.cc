#include "sched/plugins/workload_defaults.h"

#include <algorithm>

#include "sched/framework/session.h"
#include "sched/plugins/gpu_topology.h"

namespace etna::sched {
namespace {

bool Large(const Job& job) {
  return job.kind == Job::Kind::kTraining &&
         job.total_request.Get(kGpu) >= WorkloadDefaultsPlugin::kLargeTrainingMilliGpu;
}

int WholeGpus(const Task& t) {
  int64_t gpu = t.request.Get(kGpu);
  return gpu > 0 && gpu % 1000 == 0 ? static_cast<int>(gpu / 1000) : 0;
}

double FillAfter(const Task& t, const Node& n) {
  int64_t alloc = n.allocatable.Get(kGpu);
  if (alloc <= 0) return 0;
  double fill =
      static_cast<double>(n.used.Get(kGpu) + t.request.Get(kGpu)) / static_cast<double>(alloc);
  return std::min(1.0, fill);
}

// The share of the job's whole GPUs that would sit together on `n` (those of its members
// already there plus as many of its unplaced ones, this task's included, as n's largest free
// NVLink domain holds), times how tightly that domain fits them (gpu-topology's score).
double DomainFit(const Session& s, const Task& t, const Node& n, int whole) {
  const Job& job = s.job(t.job);
  int64_t total = job.total_request.Get(kGpu) / 1000;
  int64_t left = (job.total_request.Get(kGpu) - job.allocated.Get(kGpu)) / 1000;
  int64_t here = 0;
  for (TaskIdx i : n.tasks) {
    const Task& other = s.task(i);
    if (other.job == t.job) here += other.request.Get(kGpu) / 1000;
  }
  int64_t fits = std::min<int64_t>(left, GpuTopologyPlugin::LargestFreeDomain(n));
  double together = total > 0 ? std::min(1.0, static_cast<double>(here + fits) / total) : 1.0;
  int count = std::max<int>(whole, static_cast<int>(fits));
  return together * GpuTopologyPlugin::Score(n, count) / 100.0;
}

}  // namespace

Result<std::unique_ptr<Plugin>> WorkloadDefaultsPlugin::Create(PluginBuildContext& ctx) {
  int64_t weight = 1;
  ETNA_RETURN_IF_ERROR(ctx.arguments.GetInt("weight", &weight));
  if (weight < 0) return Status::InvalidArgument("argument weight: must be >= 0");
  return std::unique_ptr<Plugin>(new WorkloadDefaultsPlugin(weight));
}

void WorkloadDefaultsPlugin::OnSessionOpen(Session& s) {
  if (weight_ == 0) return;
  bool cross_node = false;
  bool small_gangs = false;
  for (const Job& job : s.jobs()) {
    if (job.kind != Job::Kind::kTraining || job.total_request.Get(kGpu) <= 1000) continue;
    bool several = s.PendingTasks(job).size() >= 2;
    if (Large(job)) cross_node |= several;
    if (!Large(job)) small_gangs |= several;
  }
  s.AddNodeOrderFn([this, &s](const Task& t, const Node& n) { return Score(s, t, n); });
  if (small_gangs) {
    // How much of a small gang one NVLink domain can hold depends on how much of it is placed.
    s.AddMemberNodeOrderFn(
        [this, &s](const Task& t, const std::vector<const Node*>& nodes,
                   std::vector<double>& scores) { AddGangDomainScores(s, t, nodes, scores); });
  }
  if (cross_node) {
    // The switch term depends on where the other members went.
    topology_ = std::make_unique<HyperNodeIndex>(s.nodes(), s.hypernodes());
    s.AddMemberNodeOrderFn(
        [this, &s](const Task& t, const std::vector<const Node*>& nodes,
                   std::vector<double>& scores) { AddTogetherScores(s, t, nodes, scores); });
  }
}

void WorkloadDefaultsPlugin::AddGangDomainScores(const Session& s, const Task& t,
                                                 const std::vector<const Node*>& nodes,
                                                 std::vector<double>& scores) const {
  int whole = WholeGpus(t);
  if (whole == 0 || t.job == kNone) return;
  const Job& job = s.job(t.job);
  if (job.kind != Job::Kind::kTraining || Large(job) || job.total_request == t.request) return;
  for (size_t i = 0; i < nodes.size(); ++i) {
    // Replaces the task's own domain term (in Score) with the gang's.
    double own = GpuTopologyPlugin::Score(*nodes[i], whole) / 100.0;
    scores[i] += 50 * (DomainFit(s, t, *nodes[i], whole) - own) * static_cast<double>(weight_);
  }
}

void WorkloadDefaultsPlugin::AddTogetherScores(const Session& s, const Task& t,
                                               const std::vector<const Node*>& nodes,
                                               std::vector<double>& scores) {
  if (t.request.Get(kGpu) <= 0 || t.job == kNone) return;
  const Job& job = s.job(t.job);
  if (job.kind == Job::Kind::kInference || !Large(job)) return;
  const MemberNodes& m = members_.Get(s, t, topology_.get());
  for (size_t i = 0; i < nodes.size(); ++i) {
    double together = 1;
    int near = 0;
    ForEachMemberDistance(*topology_, m, s.IndexOf(*nodes[i]),
                          [&](int32_t d, int count) { near += d <= 1 ? count : 0; });
    if (m.members > 0) together = static_cast<double>(near) / m.members;
    scores[i] += 50 * together * static_cast<double>(weight_);
  }
}

double WorkloadDefaultsPlugin::Score(const Session& s, const Task& t, const Node& n) {
  int64_t gpu = t.request.Get(kGpu);
  if (gpu <= 0 || t.job == kNone) return 0;
  const Job& job = s.job(t.job);
  double fill = FillAfter(t, n);
  double score = 0;
  if (job.kind == Job::Kind::kInference) {
    double device = fill;
    if (gpu < 1000) {
      device = 0;
      for (const auto& g : n.gpus) {
        if (!g.healthy || !g.mig.empty() || g.used_milli + gpu > 1000) continue;
        device = std::max(device, static_cast<double>(g.used_milli + gpu) / 1000.0);
      }
    }
    score = 50 * fill + 50 * device;
  } else if (!Large(job)) {
    score = 50 * fill + 50 * GpuTopologyPlugin::Score(n, WholeGpus(t)) / 100.0;
  } else {
    // Large training: spread (least-loaded nodes); AddTogetherScores adds the same-switch term.
    score = 50 * (1 - fill) + (topology_ ? 0 : 50);
  }
  return score * static_cast<double>(weight_);
}

}  // namespace etna::sched
