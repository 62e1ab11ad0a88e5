#include "bench/volcano_workload.h"

#include <fmt/format.h>

#include "common/rng.h"

namespace etna::bench {

std::vector<BenchJob> VolcanoBenchWorkload(int jobs, uint64_t seed) {
  static constexpr int kSingleNodeGpus[] = {1, 2, 4, 8};
  Rng rng(seed);
  std::vector<BenchJob> out;
  out.reserve(jobs);
  for (int i = 0; i < jobs; ++i) {
    BenchJob job;
    job.name = fmt::format("job-{:05d}", i);
    if (rng.UniformDouble() < 0.05) {
      job.nodes = 2 + static_cast<int>(rng.Uniform(3));
      job.gpus_per_node = 8;
    } else {
      job.gpus_per_node = kSingleNodeGpus[rng.Uniform(4)];
    }
    out.push_back(std::move(job));
  }
  return out;
}

std::string WorkloadLines(const std::vector<BenchJob>& jobs) {
  std::string out;
  for (const BenchJob& j : jobs) {
    out +=
        fmt::format("{} nodes={} gpus_per_node={} cpus_per_node={} memory_gib_per_node={}\n",
                    j.name, j.nodes, j.gpus_per_node, j.cpus_per_node(), j.memory_gib_per_node());
  }
  return out;
}

}  // namespace etna::bench
