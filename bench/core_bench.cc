// The scheduling core's cycle benchmark: one full cycle (enqueue + allocate) with the default
// plugin tiers over 1,000, 5,000 and 10,000 nodes of 8 GPUs and 10× as many pending tasks in
// gangs of 1–64 across 20 queues. Google Benchmark measures; afterwards one summary line per
// case is printed in the form other tools read:
//   BENCH core nodes=<N> tasks=<T> cycle_ms=<X> placements_per_s=<Y> peak_rss_mb=<Z>
// Cases run in ascending size, so the process's peak RSS after a case is that case's peak.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "bench/cluster_gen.h"
#include "sched/framework/conf.h"
#include "sched/framework/cycle.h"
#include "sched/framework/registry.h"

namespace {

using namespace etna;
using namespace etna::sched;

struct CaseResult {
  int nodes = 0;
  size_t tasks = 0;
  double best_ms = 0;
  size_t binds = 0;
  double peak_rss_mb = 0;
};
std::vector<CaseResult> g_results;

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

void BM_Cycle(benchmark::State& state) {
  bench::ClusterShape shape;
  shape.nodes = static_cast<int>(state.range(0));
  Snapshot snapshot = bench::MakeCluster(shape);
  // The default plugin tiers; the cycle measured is enqueue + allocate.
  auto conf = ParseSchedulerConf(DefaultSchedulerConfYaml(), BuiltinRegistry());
  if (!conf.ok()) {
    state.SkipWithError(conf.status().ToString().c_str());
    return;
  }
  conf->actions = {"enqueue", "allocate"};
  CaseResult r;
  r.nodes = shape.nodes;
  r.tasks = snapshot.tasks.size();
  r.best_ms = 1e18;
  for (auto _ : state) {
    Snapshot copy = snapshot;
    auto start = std::chrono::steady_clock::now();
    auto decision = RunCycle(std::move(copy), *conf);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!decision.ok()) {
      state.SkipWithError(decision.status().ToString().c_str());
      return;
    }
    r.binds = decision->binds.size();
    r.best_ms = std::min(r.best_ms, ms);
    benchmark::DoNotOptimize(decision);
  }
  state.counters["binds"] = static_cast<double>(r.binds);
  state.counters["tasks"] = static_cast<double>(r.tasks);
  r.peak_rss_mb = PeakRssMb();
  g_results.push_back(r);
}

BENCHMARK(BM_Cycle)->Arg(1000)->Arg(5000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const auto& r : g_results) {
    std::printf(
        "BENCH core nodes=%d tasks=%zu cycle_ms=%.1f placements_per_s=%.0f peak_rss_mb=%.0f\n",
        r.nodes, r.tasks, r.best_ms, r.binds / (r.best_ms / 1000.0), r.peak_rss_mb);
  }
  return 0;
}
