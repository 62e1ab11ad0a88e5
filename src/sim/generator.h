// Synthetic job traces for the time-aware replay (sim/timeline.h), written as etna's job CSV
// (sim/workload.h) by `etna sim generate`:
//
//   seed           the shapes the seed's users run, sized to `gpus`: training gangs of 1-64 GPUs
//                  (whole nodes of 8 past 8) running 2 hours to 2 weeks (log-uniform) in queue
//                  "training", arriving so that they ask about 60 % of the cluster; inference
//                  services of 1-2 GPUs that run the whole horizon in "inference", about 10 %;
//                  and bursts of 10-60 one-GPU experiments of 10-90 minutes, a few a day at
//                  random times, in "experiment".
//   bursty-steady  two queues of equal weight, for the fair-share-over-time comparison: "bursty"
//                  submits 3 × gpus jobs of 1 GPU for 6 hours at the start of every day (the
//                  cluster's worth for 18 hours), alone on day 0; from day 1 "steady" submits a
//                  1-GPU, 1-hour job every 60/(0.62 × gpus) minutes (62 % of the cluster). The
//                  cluster is overloaded, so someone waits; decay decides who.
//
// Deterministic for a seed. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "sim/timeline.h"

namespace etna::sim {

struct GeneratorOptions {
  std::string shape = "seed";  // seed | bursty-steady
  uint64_t seed = 42;
  int64_t days = 7;
  int32_t gpus = 64;  // the cluster's GPUs the load is sized to
};

Result<std::vector<SimJob>> GenerateTrace(const GeneratorOptions& options);
// The jobs as etna's job CSV (sim/workload.h), read back by ParseJobCsv to the same jobs.
std::string JobCsv(const std::vector<SimJob>& jobs);

}  // namespace etna::sim
