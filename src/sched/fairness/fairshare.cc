#include "sched/fairness/fairshare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "sched/framework/conf.h"

namespace etna::sched::fairness {

Status ReadFairshareArguments(Arguments& args, FairshareOptions* out) {
  ETNA_RETURN_IF_ERROR(args.GetBool("fairshare", &out->enabled));
  bool has_half_life = args.Has("fairshare.halfLife");
  ETNA_RETURN_IF_ERROR(args.GetDurationMs("fairshare.halfLife", &out->half_life_ms));
  if (has_half_life && out->half_life_ms <= 0) {
    return Status::InvalidArgument("fairshare.halfLife: must be longer than 0");
  }
  if (has_half_life && !out->enabled) {
    return Status::InvalidArgument("fairshare.halfLife: set without fairshare: true");
  }
  return Status::Ok();
}

Result<FairshareOptions> FairshareOf(const SchedulerConf& conf) {
  FairshareOptions found;
  std::string found_in;
  for (const Tier& tier : conf.tiers) {
    for (const PluginOption& p : tier.plugins) {
      if (p.name != "proportion" && p.name != "capacity" && p.name != "drf") continue;
      Arguments args = p.arguments;
      FairshareOptions o;
      ETNA_RETURN_IF_ERROR(ReadFairshareArguments(args, &o));
      if (!o.enabled) continue;
      if (found.enabled && o.half_life_ms != found.half_life_ms) {
        return Status::InvalidArgument(
            fmt::format("fairshare.halfLife: {} and {} keep usage with different half-lives "
                        "({} ms and {} ms); give them one",
                        found_in, p.name, found.half_life_ms, o.half_life_ms));
      }
      found = o;
      found_in = p.name;
    }
  }
  return found;
}

std::vector<QueueFairshare> ComputeFairshare(const std::vector<Queue>& queues,
                                             const QueueTree& tree, const ResourceVector& capacity,
                                             TimeMs half_life_ms) {
  const auto n = static_cast<QueueIdx>(queues.size());
  std::vector<DecayedUsage> subtree(n);
  for (QueueIdx q = 0; q < n; ++q) {
    for (QueueIdx a : tree.Path(q)) subtree[a] += queues[q].usage;
  }
  std::map<QueueIdx, int64_t> sibling_weights;  // by parent (kNone = root)
  for (QueueIdx q = 0; q < n; ++q) sibling_weights[tree.Parent(q)] += std::max(1, queues[q].weight);
  std::vector<QueueFairshare> out(n);
  for (QueueIdx q : tree.TopDown()) {
    QueueIdx p = tree.Parent(q);
    double parent_share = p == kNone ? 1.0 : out[p].share;
    QueueFairshare& f = out[q];
    f.share =
        parent_share * std::max(1, queues[q].weight) / static_cast<double>(sibling_weights[p]);
    f.usage = subtree[q].Normalized(capacity, half_life_ms);
    f.factor = f.share > 0 ? std::exp2(-f.usage / f.share) : (f.usage > 0 ? 0.0 : 1.0);
  }
  return out;
}

int32_t OverQuotaWeight(int32_t weight, double factor) {
  double scaled = std::round(std::max(1, weight) * 1000.0 * factor);
  scaled = std::clamp(scaled, 1.0, static_cast<double>(std::numeric_limits<int32_t>::max()));
  return static_cast<int32_t>(scaled);
}

std::vector<int32_t> FairWeights(Session& s, const QueueTree& tree,
                                 const FairshareOptions& options) {
  std::vector<int32_t> out;
  out.reserve(s.queues().size());
  if (!options.enabled) {
    for (const Queue& q : s.queues()) out.push_back(q.weight);
    return out;
  }
  auto fs = ComputeFairshare(s.queues(), tree, s.cluster_total(), options.half_life_ms);
  for (size_t q = 0; q < fs.size(); ++q) {
    out.push_back(OverQuotaWeight(s.queues()[q].weight, fs[q].factor));
    s.ReportQueueFairshare(static_cast<QueueIdx>(q), fs[q].usage, fs[q].factor);
  }
  return out;
}

int ThenByFairWeight(int by_share, const FairshareOptions& options, int32_t l, int32_t r) {
  if (by_share != 0 || !options.enabled || l == r) return by_share;
  return l > r ? -1 : 1;
}

}  // namespace etna::sched::fairness
