// Synthetic clusters for benchmarks: N nodes of 8 GPUs (with CPU and memory), 20 queues, and
// 10×N pending tasks in gangs of 1–64 drawn from a seeded Rng.
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

}  // namespace etna::bench
