// Replay of an openb trace through the scheduling core, as the FGD paper's experiment does
// (hkust-adsl/kubernetes-scheduler-simulator; testdata/openb/SOURCE.md):
// shuffle the pods with the seed, re-sample them with replacement until the GPU request reaches
// `tune` × cluster GPU capacity (or drop random pods when above), then place one pod at a time
// and never remove any. After each pod the cluster's arrived GPU request, allocated milli-GPU,
// FGD fragmentation and idle milli-GPU are recorded.
//
// Placement goes through one sched::Session with the `predicates` plugin (GPU-model
// constraints as required node affinity on nvidia.com/gpu.model) and the policy's plugin, one
// pod at a time with sched::IncrementalPlacer.
//
// Thread-safety: Replay is reentrant; runs for different seeds may go on different threads.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "sim/trace.h"

namespace etna::sim {

struct Policy {
  std::string name;    // CLI name: random, dotprod, gpuclustering, gpupacking, bestfit, fgd, etna
  std::string plugin;  // sched plugin
  std::string label;   // sc_policy column as the published results name it ("06-FGD")
};
// The known policies, in the published order.
const std::vector<Policy>& Policies();
Result<Policy> FindPolicy(const std::string& name);

struct ReplayOptions {
  Policy policy;
  uint64_t seed = 42;
  double tune = 1.3;
  int popularity = 95;  // typical-task coverage, %
  // Equal best scores: one random node order per run (the published simulator's), or uniform
  // per pod. `random` always draws uniformly (its score is the same everywhere).
  bool fixed_tie_order = true;
};

struct Event {
  int64_t arrived_milli = 0;
  int64_t used_milli = 0;
  double frag_milli = 0;
  int64_t idle_milli = 0;
};

inline constexpr int kBuckets = 131;  // 0..130 % of GPU capacity arrived
using Curve = std::array<std::optional<double>, kBuckets>;

struct ReplayResult {
  uint64_t seed = 0;
  int64_t total_gpu_milli = 0;
  int64_t pods = 0;
  int64_t failed = 0;
  std::vector<Event> events;
  Curve alloc;       // allocated / capacity, %
  Curve frag;        // fragmented / capacity, %
  Curve frag_ratio;  // fragmented / idle, %
};

Result<ReplayResult> Replay(const std::vector<TraceNode>& nodes, const std::vector<TracePod>& pods,
                            const ReplayOptions& options);

// Re-samples events at each whole percent of arrived GPU request the way the published
// analysis does: events whose arrived share rounds to p are averaged; when there are none,
// those within p±1.
void Discretize(ReplayResult& r);

}  // namespace etna::sim
