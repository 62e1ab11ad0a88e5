#include "sim/replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>

#include "sched/framework/incremental.h"
#include "sched/framework/registry.h"
#include "sched/framework/session.h"
#include "sched/placement/gpu_frag.h"
#include "sched/plugins/gpushare_policies.h"
#include "sim/workload.h"

namespace etna::sim {

using sched::GpuFragModel;
using sched::WeightedShape;

const std::vector<Policy>& Policies() {
  static const std::vector<Policy> kPolicies = {
      {"random", "randomfit", "01-Random"},
      {"dotprod", "dotprod", "02-DotProd"},
      {"gpuclustering", "gpuclustering", "03-GpuClustering"},
      {"gpupacking", "gpupacking", "04-GpuPacking"},
      {"bestfit", "bestfit", "05-BestFit"},
      {"fgd", "fgd", "06-FGD"},
      {"etna", "fgdplus", "07-Etna"},
  };
  return kPolicies;
}

Result<Policy> FindPolicy(const std::string& name) {
  std::string names;
  for (const auto& p : Policies()) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  return Status::InvalidArgument(fmt::format("unknown policy \"{}\" (known: {})", name, names));
}

namespace {

sched::GpuTaskShape ShapeOf(const TracePod& p) {
  sched::GpuTaskShape s;
  s.cpu_milli = p.cpu_milli;
  s.num_gpu = p.num_gpu;
  s.gpu_milli = p.gpu_milli;
  s.models = p.num_gpu > 0 ? p.gpu_spec : "";
  return s;
}

std::vector<WeightedShape> ShapeCounts(const std::vector<TracePod>& pods) {
  std::map<std::tuple<int64_t, int32_t, int32_t, std::string>, double> counts;
  for (const auto& p : pods) {
    auto s = ShapeOf(p);
    counts[{s.cpu_milli, s.num_gpu, s.gpu_milli, s.models}] += 1;
  }
  std::vector<WeightedShape> out;
  for (const auto& [k, c] : counts) {
    out.push_back({{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k)}, c});
  }
  return out;
}

// Shuffle, then re-sample with replacement to `tune` × capacity (the simulator's
// TunePodsByNodeTotalResource, including its stop rule on the per-GPU share).
std::vector<TracePod> ArrivalOrder(const std::vector<TracePod>& pods, int64_t capacity_milli,
                                   double tune, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<TracePod> order = pods;
  std::shuffle(order.begin(), order.end(), rng);
  if (tune <= 0 || pods.empty()) return order;
  double target = tune * static_cast<double>(capacity_milli);
  int64_t total = 0;
  for (const auto& p : order) total += p.TotalGpuMilli();
  if (static_cast<double>(total) < target) {
    std::uniform_int_distribution<size_t> pick(0, pods.size() - 1);
    for (int i = 0;; ++i) {
      TracePod p = pods[pick(rng)];
      if (static_cast<double>(total + p.gpu_milli) > target) break;
      total += p.TotalGpuMilli();
      p.name += fmt::format("-tuned-{}", i);
      order.push_back(std::move(p));
    }
  } else {
    while (static_cast<double>(total) > target && !order.empty()) {
      size_t i = std::uniform_int_distribution<size_t>(0, order.size() - 1)(rng);
      total -= order[i].TotalGpuMilli();
      order.erase(order.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return order;
}

}  // namespace

Result<ReplayResult> Replay(const std::vector<TraceNode>& nodes, const std::vector<TracePod>& pods,
                            const ReplayOptions& options) {
  ReplayResult result;
  result.seed = options.seed;

  // ---- Cluster snapshot ----
  sched::Snapshot snap;
  snap.nodes = NodesFromOpenb(nodes);
  for (const sched::Node& n : snap.nodes) result.total_gpu_milli += n.allocatable.Get(kGpu);
  if (result.total_gpu_milli == 0) {
    return Status::InvalidArgument("the node list has no GPUs");
  }
  sched::Queue q;
  q.name = "default";
  snap.queues.push_back(q);

  // ---- Scheduler configuration: predicates + the policy ----
  std::vector<WeightedShape> counts = ShapeCounts(pods);
  sched::SchedulerConf conf;
  sched::Tier tier;
  sched::PluginOption predicates;
  predicates.name = "predicates";
  predicates.enabled.set();
  sched::PluginOption policy;
  policy.name = options.policy.plugin;
  policy.enabled.set();
  policy.arguments.Set("seed", std::to_string(options.seed));
  if (options.policy.plugin == "fgd" || options.policy.plugin == "fgdplus") {
    policy.arguments.Set("workload", sched::GpuSharePolicyPlugin::FormatWorkload(counts));
    policy.arguments.Set("popularity", std::to_string(options.popularity));
  }
  tier.plugins = {predicates, policy};
  conf.tiers.push_back(tier);

  sched::Session session(std::move(snap), conf, sched::BuiltinRegistry());
  ETNA_RETURN_IF_ERROR(session.Open());
  sched::Job job;
  job.uid = job.name = "openb";
  job.queue = 0;
  job.phase = sched::PodGroupPhase::kInqueue;
  sched::JobIdx ji = session.AppendJob(std::move(job));
  sched::IncrementalPlacer placer(
      session, {.seed = options.seed * 0x9e3779b97f4a7c15ULL + 1,
                .cache = true,
                .tie_break = options.fixed_tie_order && options.policy.name != "random"
                                 ? sched::IncrementalPlacer::TieBreak::kFixedOrder
                                 : sched::IncrementalPlacer::TieBreak::kUniform});

  // ---- Metrics: FGD fragmentation per node, kept up to date ----
  GpuFragModel frag(sched::TypicalShapes(counts, options.popularity));
  std::vector<double> node_frag(session.nodes().size());
  double frag_sum = 0;
  int64_t idle = result.total_gpu_milli;
  for (size_t i = 0; i < node_frag.size(); ++i) {
    node_frag[i] = frag.Frag(frag.StateOf(session.nodes()[i]));
    frag_sum += node_frag[i];
  }

  std::map<std::string, std::shared_ptr<const sched::PodSpec>> specs;
  std::vector<TracePod> order =
      ArrivalOrder(pods, result.total_gpu_milli, options.tune, options.seed);
  result.events.reserve(order.size());
  int64_t arrived = 0, used = 0;
  for (const auto& p : order) {
    arrived += p.TotalGpuMilli();
    sched::Task t;
    t.uid = t.name = p.name;
    t.job = ji;
    t.request.Set(kCpu, p.cpu_milli);
    t.request.Set(kMemory, p.memory_mib * 1024 * 1024);
    if (p.num_gpu > 0) t.request.Set(kGpu, p.TotalGpuMilli());
    if (p.num_gpu > 0 && !p.gpu_spec.empty()) {
      auto& spec = specs[p.gpu_spec];
      if (!spec) {
        auto s = std::make_shared<sched::PodSpec>();
        sched::NodeSelectorTerm term;
        sched::SelectorRequirement req;
        req.key = sched::kGpuModelLabel;
        req.op = sched::SelectorRequirement::Op::kIn;
        size_t start = 0;
        while (start <= p.gpu_spec.size()) {
          size_t bar = p.gpu_spec.find('|', start);
          if (bar == std::string::npos) bar = p.gpu_spec.size();
          if (bar > start) req.values.push_back(p.gpu_spec.substr(start, bar - start));
          start = bar + 1;
        }
        term.match_expressions.push_back(std::move(req));
        s->node_affinity_required.push_back(std::move(term));
        spec = std::move(s);
      }
      t.spec = spec;
    }
    sched::TaskIdx ti = session.AppendTask(std::move(t));
    sched::NodeIdx n = placer.Place(ti);
    ++result.pods;
    if (n == sched::kNone) {
      session.AbandonTask(ti);
      ++result.failed;
    } else {
      used += p.TotalGpuMilli();
      idle -= p.TotalGpuMilli();
      double f = frag.Frag(frag.StateOf(session.node(n)));
      frag_sum += f - node_frag[n];
      node_frag[n] = f;
    }
    result.events.push_back({arrived, used, std::max(0.0, frag_sum), idle});
  }
  Discretize(result);
  return result;
}

void Discretize(ReplayResult& r) {
  double total = static_cast<double>(r.total_gpu_milli);
  struct Acc {
    double alloc = 0, frag = 0, ratio = 0;
    int n = 0, n_ratio = 0;
  };
  std::vector<Acc> acc(kBuckets + 2);
  for (const auto& e : r.events) {
    double pct = std::nearbyint(static_cast<double>(e.arrived_milli) / total * 100);
    if (pct < 0 || pct > kBuckets) continue;
    Acc& a = acc[static_cast<size_t>(pct)];
    a.alloc += std::round(static_cast<double>(e.used_milli) / total * 100 * 100) / 100;
    a.frag += e.frag_milli / total * 100;
    if (e.idle_milli > 0) {
      a.ratio += e.frag_milli / static_cast<double>(e.idle_milli) * 100;
      ++a.n_ratio;
    }
    ++a.n;
  }
  auto round2 = [](double x) { return std::round(x * 100) / 100; };
  for (int b = 0; b < kBuckets; ++b) {
    Acc sum = acc[b];
    if (sum.n == 0) {
      sum = Acc{};
      for (int k = std::max(0, b - 1); k <= b + 1; ++k) {
        sum.alloc += acc[k].alloc;
        sum.frag += acc[k].frag;
        sum.ratio += acc[k].ratio;
        sum.n += acc[k].n;
        sum.n_ratio += acc[k].n_ratio;
      }
    }
    if (sum.n == 0) continue;
    r.alloc[b] = round2(sum.alloc / sum.n);
    r.frag[b] = round2(sum.frag / sum.n);
    if (sum.n_ratio > 0) r.frag_ratio[b] = sum.ratio / sum.n_ratio;
  }
}

}  // namespace etna::sim
