// The scheduling core's cycle benchmarks, with the default plugin tiers. Google Benchmark
// measures; afterwards one summary line per case is printed in the form other tools read.
//  - BM_Cycle: one cycle (enqueue + allocate) over 1,000, 5,000 and 10,000 nodes of 8 GPUs and
//    10× as many pending tasks in gangs of 1–64 across 20 queues:
//      BENCH core nodes=<N> tasks=<T> cycle_ms=<X> placements_per_s=<Y> peak_rss_mb=<Z>
//  - BM_Preempt: one cycle with every default action (enqueue, allocate, preempt, reclaim,
//    backfill) over a full cluster of 1,000 or 10,000 nodes where 40 % as many high-priority
//    gangs as nodes wait, each served only by evicting lower-priority work of its queue:
//      BENCH core-preempt nodes=<N> running=<R> preemptors=<P> cycle_ms=<X> evictions=<E>
//        preemptors_served=<S> peak_rss_mb=<Z>
//  - BM_Reclaim: the same full cluster, the high-priority gangs waiting in one more, empty queue,
//    served by reclaiming from the other queues down to their shares:
//      BENCH core-reclaim nodes=<N> ... (the same fields)
// Cases run in ascending size, so the process's peak RSS after a case is that case's peak.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
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

struct PreemptResult {
  const char* line = "core-preempt";
  int nodes = 0;
  size_t running = 0;
  int preemptors = 0;
  double best_ms = 0;
  size_t evictions = 0;
  size_t preemptors_served = 0;
  double peak_rss_mb = 0;
};
std::vector<PreemptResult> g_preempt_results;

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// The default scheduler configuration; nullopt (and the case skipped) when it does not parse.
std::optional<SchedulerConf> DefaultConf(benchmark::State& state) {
  auto conf = ParseSchedulerConf(DefaultSchedulerConfYaml(), BuiltinRegistry());
  if (!conf.ok()) {
    state.SkipWithError(conf.status().ToString().c_str());
    return std::nullopt;
  }
  return *std::move(conf);
}

// Runs one cycle over a fresh copy of `snapshot` per iteration, timing RunCycle alone; returns
// the best time in milliseconds and hands each decision to `seen`. False (and the case skipped)
// when a cycle fails.
template <typename Seen>
bool TimeCycles(benchmark::State& state, const Snapshot& snapshot, const SchedulerConf& conf,
                double* best_ms, Seen seen) {
  *best_ms = 1e18;
  for (auto _ : state) {
    Snapshot copy = snapshot;
    auto start = std::chrono::steady_clock::now();
    auto decision = RunCycle(std::move(copy), conf);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!decision.ok()) {
      state.SkipWithError(decision.status().ToString().c_str());
      return false;
    }
    seen(*decision);
    *best_ms = std::min(*best_ms, ms);
    benchmark::DoNotOptimize(decision);
  }
  return true;
}

void BM_Cycle(benchmark::State& state) {
  bench::ClusterShape shape;
  shape.nodes = static_cast<int>(state.range(0));
  Snapshot snapshot = bench::MakeCluster(shape);
  // The default plugin tiers; the cycle measured is enqueue + allocate.
  std::optional<SchedulerConf> conf = DefaultConf(state);
  if (!conf) return;
  conf->actions = {"enqueue", "allocate"};
  CaseResult r;
  r.nodes = shape.nodes;
  r.tasks = snapshot.tasks.size();
  if (!TimeCycles(state, snapshot, *conf, &r.best_ms,
                  [&](const Decision& d) { r.binds = d.binds.size(); })) {
    return;
  }
  state.counters["binds"] = static_cast<double>(r.binds);
  state.counters["tasks"] = static_cast<double>(r.tasks);
  r.peak_rss_mb = PeakRssMb();
  g_results.push_back(r);
}

BENCHMARK(BM_Cycle)->Arg(1000)->Arg(5000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(3);

// One cycle over a full cluster where 0.4 × nodes high-priority gangs wait (in their victims'
// queues, or with `reclaim` in one more, empty queue).
void RunFullCluster(benchmark::State& state, bool reclaim) {
  bench::FullClusterShape shape;
  shape.nodes = static_cast<int>(state.range(0));
  shape.preemptors = shape.nodes * 2 / 5;
  shape.reclaim = reclaim;
  Snapshot snapshot = bench::MakeFullCluster(shape);
  std::optional<SchedulerConf> conf = DefaultConf(state);  // every default action
  if (!conf) return;
  PreemptResult r;
  if (reclaim) r.line = "core-reclaim";
  r.nodes = shape.nodes;
  r.preemptors = shape.preemptors;
  for (const auto& t : snapshot.tasks) r.running += t.status == TaskStatus::kRunning;
  auto seen = [&](const Decision& d) {
    std::set<std::string> served;
    for (const auto& e : d.evictions) served.insert(e.preemptor_job_uid);
    r.evictions = d.evictions.size();
    r.preemptors_served = served.size();
  };
  if (!TimeCycles(state, snapshot, *conf, &r.best_ms, seen)) return;
  state.counters["evictions"] = static_cast<double>(r.evictions);
  state.counters["served"] = static_cast<double>(r.preemptors_served);
  r.peak_rss_mb = PeakRssMb();
  g_preempt_results.push_back(r);
}

void BM_Preempt(benchmark::State& state) { RunFullCluster(state, /*reclaim=*/false); }
void BM_Reclaim(benchmark::State& state) { RunFullCluster(state, /*reclaim=*/true); }

// One iteration at 10,000 nodes: a second each (docs/benchmarks.md).
BENCHMARK(BM_Preempt)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Preempt)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Reclaim)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Reclaim)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(1);

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
  for (const auto& r : g_preempt_results) {
    std::printf(
        "BENCH %s nodes=%d running=%zu preemptors=%d cycle_ms=%.1f evictions=%zu "
        "preemptors_served=%zu peak_rss_mb=%.0f\n",
        r.line, r.nodes, r.running, r.preemptors, r.best_ms, r.evictions, r.preemptors_served,
        r.peak_rss_mb);
  }
  return 0;
}
