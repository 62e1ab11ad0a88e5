// Synthetic clusters for benchmarks: N nodes of 8 GPUs (with CPU and memory), 20 queues, and
// either 10×N pending tasks in gangs of 1–64 (MakeCluster), or every GPU busy with low-priority
// work and high-priority gangs waiting to preempt it (MakeFullCluster). Drawn from a seeded Rng.
#pragma once

#include <cstdint>

#include "sched/model/snapshot.h"

namespace etna::bench {

struct ClusterShape {
  int nodes = 1000;
  int tasks_per_node = 10;
  int queues = 20;
  int max_gang = 64;
  uint64_t seed = 42;
};

sched::Snapshot MakeCluster(const ClusterShape& shape);

// A full cluster for the preemption benchmark: every node runs 8 one-GPU tasks of priority-0
// jobs (gangs of 1, 2, 4 or 8 on the node, each in a random queue, started at different times),
// and `preemptors` priority-100 gangs of 1–8 one-GPU tasks wait, each in a random queue, so each
// can succeed only by evicting lower-priority work of its own queue. With `reclaim`, the
// preemptors wait instead in one more queue (weight 4) that holds nothing yet, so they are served
// by reclaiming from the others, down to those queues' shares.
struct FullClusterShape {
  int nodes = 1000;
  int preemptors = 400;
  int queues = 20;
  bool reclaim = false;
  uint64_t seed = 42;
};

sched::Snapshot MakeFullCluster(const FullClusterShape& shape);

}  // namespace etna::bench
