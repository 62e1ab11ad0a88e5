// Fair share over time: the `fairshare` argument of the proportion, capacity and (hierarchical)
// drf plugins, and the factor by which a queue's recent usage scales its over-quota weight.
//
// For queue q with decayed usage U (model/usage.h, its subtree's under a hierarchy):
//   u = U / (cluster capacity · τ), dominant over resources   the share of the cluster it held
//   s = weight / Σ siblings' weights · s(parent)               the share it is entitled to
//   F = 2^(−u / s)                                             Slurm's classic fair-share factor
// F is 1 for a queue that used nothing and ½ for one that used exactly its share. The plugins
// hand out what lies above guarantees (and explicit deserved) in proportion to weight · F, so a
// queue that ran hot yesterday deserves less today: it orders after the others and is reclaimed
// from first. Guarantees and explicit deserved are untouched, and the water-fill stays
// work-conserving: what nobody else asks for still goes to the hot queue.
//
// Pure functions, thread-safe, except FairWeights, which reports to the session it is given.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "sched/fairness/queue_tree.h"
#include "sched/framework/arguments.h"
#include "sched/framework/session.h"
#include "sched/model/snapshot.h"

namespace etna::sched {
struct SchedulerConf;
}

namespace etna::sched::fairness {

struct FairshareOptions {
  bool enabled = false;
  TimeMs half_life_ms = kDefaultUsageHalfLifeMs;
};

// Reads `fairshare` (bool) and `fairshare.halfLife` (a duration > 0); a half-life without
// `fairshare: true` is refused, naming it.
Status ReadFairshareArguments(Arguments& args, FairshareOptions* out);

// The fair-share options in force for `conf`: those of the proportion, capacity or drf plugin
// that enables it; off when none does. Two plugins with different half-lives are refused.
Result<FairshareOptions> FairshareOf(const SchedulerConf& conf);

struct QueueFairshare {
  double usage = 0;   // u: normalized decayed usage of the queue's subtree
  double share = 0;   // s: normalized entitlement
  double factor = 1;  // F = 2^(−u/s)
};

// Per queue (indexed like `queues`), siblings as `tree` groups them (flat: all queues).
std::vector<QueueFairshare> ComputeFairshare(const std::vector<Queue>& queues,
                                             const QueueTree& tree, const ResourceVector& capacity,
                                             TimeMs half_life_ms);

// weight · F on a scale of 1,000 per unit of weight (at least 1), the weight the water-fill and
// queue order use with fair share on. The scale rounds away usage too small to matter (u/s
// under about 0.0007), so minutes of usage do not reorder queues with equal shares.
int32_t OverQuotaWeight(int32_t weight, double factor);

// The weight each queue of `s` shares what is above guarantees with: OverQuotaWeight with fair
// share on (each queue's u and F reported to the session), its spec.weight as written otherwise.
std::vector<int32_t> FairWeights(Session& s, const QueueTree& tree,
                                 const FairshareOptions& options);

// Queue order's last word: `by_share` when it decides or fair share is off, else the larger fair
// weight first.
int ThenByFairWeight(int by_share, const FairshareOptions& options, int32_t l, int32_t r);

}  // namespace etna::sched::fairness
