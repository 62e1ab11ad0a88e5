#include "sched/plugins/nodeorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "sched/plugins/kube_matching.h"

namespace etna::sched {
namespace {

constexpr int64_t kMaxNodeScore = 100;
constexpr ResourceId kScored[] = {kCpu, kMemory};

// Σ scorer(requested, allocatable) over cpu and memory the node has, averaged (weights 1).
template <typename Scorer>
int64_t ResourceScore(const Task& t, const Node& n, Scorer scorer) {
  int64_t sum = 0, count = 0;
  for (ResourceId r : kScored) {
    int64_t alloc = n.allocatable.Get(r);
    if (alloc <= 0) continue;
    int64_t requested = n.used.Get(r) + t.request.Get(r);
    sum += requested > alloc ? 0 : scorer(requested, alloc);
    ++count;
  }
  return count == 0 ? 0 : sum / count;
}

const std::vector<Toleration>& TolerationsOf(const Task& t) {
  static const std::vector<Toleration> kNoTolerations;
  return t.spec ? t.spec->tolerations : kNoTolerations;
}

int64_t NodeAffinityRaw(const Task& t, const Node& n) {
  if (!t.spec) return 0;
  int64_t raw = 0;
  for (const auto& p : t.spec->node_affinity_preferred) {
    if (NodeMatchesTerm(p.term, n)) raw += p.weight;
  }
  return raw;
}

}  // namespace

Result<std::unique_ptr<Plugin>> NodeOrderPlugin::Create(PluginBuildContext& ctx) {
  Arguments& a = ctx.arguments;
  Weights w;
  struct Arg {
    const char* key;
    int64_t* out;
  };
  int64_t ignored[3] = {0, 0, 0};
  const Arg args[] = {{"leastrequested.weight", &w.least_requested},
                      {"mostrequested.weight", &w.most_requested},
                      {"balancedresource.weight", &w.balanced_resource},
                      {"nodeaffinity.weight", &w.node_affinity},
                      {"podaffinity.weight", &w.pod_affinity},
                      {"tainttoleration.weight", &w.taint_toleration},
                      {"imagelocality.weight", &ignored[0]},
                      {"podtopologyspread.weight", &w.pod_topology_spread},
                      {"selectorspread.weight", &ignored[1]},
                      {"volumebinding.weight", &ignored[2]}};
  for (const auto& arg : args) {
    ETNA_RETURN_IF_ERROR(a.GetInt(arg.key, arg.out));
    if (*arg.out < 0) {
      return Status::InvalidArgument(fmt::format("argument {}: must be >= 0", arg.key));
    }
  }
  return std::unique_ptr<Plugin>(new NodeOrderPlugin(w));
}

int64_t NodeOrderPlugin::LeastRequested(const Task& t, const Node& n) {
  return ResourceScore(
      t, n, [](int64_t req, int64_t alloc) { return (alloc - req) * kMaxNodeScore / alloc; });
}

int64_t NodeOrderPlugin::MostRequested(const Task& t, const Node& n) {
  return ResourceScore(t, n,
                       [](int64_t req, int64_t alloc) { return req * kMaxNodeScore / alloc; });
}

int64_t NodeOrderPlugin::BalancedResource(const Task& t, const Node& n) {
  double fraction[2];
  int count = 0;
  for (ResourceId r : kScored) {
    int64_t alloc = n.allocatable.Get(r);
    if (alloc <= 0) continue;
    int64_t requested = n.used.Get(r) + t.request.Get(r);
    fraction[count++] = std::min(1.0, static_cast<double>(requested) / static_cast<double>(alloc));
  }
  if (count < 2) return kMaxNodeScore;  // one resource is always balanced
  double std_dev = std::abs(fraction[0] - fraction[1]) / 2;
  return static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

void NodeOrderPlugin::OnSessionOpen(Session& s) {
  if (w_.least_requested > 0) {
    int64_t w = w_.least_requested;
    s.AddNodeOrderFn([w](const Task& t, const Node& n) {
      return static_cast<double>(LeastRequested(t, n) * w);
    });
  }
  if (w_.most_requested > 0) {
    int64_t w = w_.most_requested;
    s.AddNodeOrderFn(
        [w](const Task& t, const Node& n) { return static_cast<double>(MostRequested(t, n) * w); });
  }
  if (w_.balanced_resource > 0) {
    int64_t w = w_.balanced_resource;
    s.AddNodeOrderFn([w](const Task& t, const Node& n) {
      return static_cast<double>(BalancedResource(t, n) * w);
    });
  }
  if (w_.node_affinity > 0) {
    s.AddNodeOrderFn([this, &s](const Task& t, const Node& n) {
      return NodeAffinityScore(s, t, n) * static_cast<double>(w_.node_affinity);
    });
  }
  // Without PreferNoSchedule taints every node scores the same: skip the work.
  bool any_soft_taint = false;
  for (const Node& n : s.nodes()) {
    for (const auto& taint : n.taints) {
      any_soft_taint |= taint.effect == Taint::Effect::kPreferNoSchedule;
    }
  }
  if (w_.taint_toleration > 0 && any_soft_taint) {
    s.AddNodeOrderFn([this, &s](const Task& t, const Node& n) {
      return TaintScore(s, t, n) * static_cast<double>(w_.taint_toleration);
    });
  }
  if (w_.pod_affinity > 0) {
    s.AddNodeOrderFn([this, &s](const Task& t, const Node& n) {
      return PodAffinityScore(s, t, n) * static_cast<double>(w_.pod_affinity);
    });
  }
  if (w_.pod_topology_spread > 0 && AnyTopologySpread(s, /*hard=*/false)) {
    s.AddNodeOrderFn([this, &s](const Task& t, const Node& n) {
      return spread_.Score(s, t, n) * static_cast<double>(w_.pod_topology_spread);
    });
  }
}

double NodeOrderPlugin::NodeAffinityScore(const Session& s, const Task& t, const Node& n) {
  if (!t.spec || t.spec->node_affinity_preferred.empty()) return 0;
  auto [it, fresh] = node_affinity_max_.try_emplace(t.spec.get(), 0);
  if (fresh) {
    for (const Node& other : s.nodes()) {
      if (s.Schedulable(other)) it->second = std::max(it->second, NodeAffinityRaw(t, other));
    }
  }
  if (it->second <= 0) return 0;
  return static_cast<double>(NodeAffinityRaw(t, n) * kMaxNodeScore / it->second);
}

double NodeOrderPlugin::TaintScore(const Session& s, const Task& t, const Node& n) {
  auto [it, fresh] = taint_max_.try_emplace(t.spec.get(), 0);
  if (fresh) {
    for (const Node& other : s.nodes()) {
      if (!s.Schedulable(other)) continue;
      it->second =
          std::max<int64_t>(it->second, CountIntolerablePreferNoSchedule(TolerationsOf(t), other));
    }
  }
  if (it->second <= 0) return static_cast<double>(kMaxNodeScore);
  int64_t raw = CountIntolerablePreferNoSchedule(TolerationsOf(t), n);
  return static_cast<double>(kMaxNodeScore - raw * kMaxNodeScore / it->second);
}

double NodeOrderPlugin::PodAffinityScore(const Session& s, const Task& t, const Node& n) {
  if (!t.spec ||
      (t.spec->pod_affinity_preferred.empty() && t.spec->pod_anti_affinity_preferred.empty())) {
    return 0;
  }
  PodAffinityState& st = pod_affinity_;
  TaskIdx idx = s.IndexOf(t);
  size_t pos = s.node_change_log().size();
  if (st.task != idx || st.log_pos != pos) {
    st = PodAffinityState{idx, pos, std::vector<int64_t>(s.nodes().size(), 0), 0, 0};
    std::map<TopologyPair, int64_t> by_domain;
    std::set<std::string> keys;
    TopologyPair pair;
    auto add_terms = [&](const std::vector<WeightedPodAffinityTerm>& terms, int64_t sign) {
      for (const auto& wt : terms) {
        keys.insert(wt.term.topology_key);
        for (const Node& pn : s.nodes()) {
          if (!NodeDomain(pn, wt.term.topology_key, &pair)) continue;
          for (TaskIdx pi : pn.tasks) {
            const Task& p = s.task(pi);
            if (pi != idx && OnNode(p) && AffinityTermMatches(wt.term, t.ns, p)) {
              by_domain[pair] += sign * wt.weight;
            }
          }
        }
      }
    };
    add_terms(t.spec->pod_affinity_preferred, 1);
    add_terms(t.spec->pod_anti_affinity_preferred, -1);
    bool first = true;
    for (size_t i = 0; i < s.nodes().size(); ++i) {
      const Node& node = s.nodes()[i];
      int64_t raw = 0;
      for (const auto& key : keys) {
        if (!NodeDomain(node, key, &pair)) continue;
        if (auto it = by_domain.find(pair); it != by_domain.end()) raw += it->second;
      }
      st.raw[i] = raw;
      if (!s.Schedulable(node)) continue;
      st.min = first ? raw : std::min(st.min, raw);
      st.max = first ? raw : std::max(st.max, raw);
      first = false;
    }
  }
  int64_t diff = st.max - st.min;
  if (diff <= 0) return 0;
  return static_cast<double>(kMaxNodeScore) * static_cast<double>(st.raw[s.IndexOf(n)] - st.min) /
         static_cast<double>(diff);
}

}  // namespace etna::sched
