// The store benchmark: durable creates per second with 64 concurrent writer threads on SqliteStore
// (group commit, WAL, synchronous=FULL) in a temporary directory, and the time to list 100,000
// keys at the latest revision. Google Benchmark measures; afterwards one line is printed:
//   BENCH store creates_per_s=<n> list_100k_ms=<x>
// The directory is $ETNA_BENCH_DIR, else $TMPDIR, else /var/tmp (a disk, so fsync is real).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

#include "store/sqlite_store.h"

namespace {

using namespace etna;
using namespace etna::store;
using Clock = std::chrono::steady_clock;

double g_creates_per_s = 0;
double g_list_ms = 0;

class BenchDir {
 public:
  BenchDir() {
    const char* base = getenv("ETNA_BENCH_DIR");
    if (!base) base = getenv("TMPDIR");
    std::string tmpl = fmt::format("{}/etna-store-bench-XXXXXX", base ? base : "/var/tmp");
    path_ = mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~BenchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::unique_ptr<SqliteStore> OpenOrDie(const std::string& dir) {
  SqliteStoreOptions o;
  o.data_dir = dir;
  o.compaction_interval = std::chrono::seconds(0);
  auto s = SqliteStore::Open(o);
  if (!s.ok()) {
    fmt::print(stderr, "store_bench: {}\n", s.status().ToString());
    std::exit(1);
  }
  return std::move(s).value();
}

std::string PodJson(int i) {
  return fmt::format(
      R"({{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"job-{0}","namespace":"default",)"
      R"("labels":{{"volcano.sh/job-name":"job"}}}},"spec":{{"schedulerName":"volcano",)"
      R"("containers":[{{"name":"main","image":"busybox","resources":{{"limits":{{)"
      R"("nvidia.com/gpu":"1"}}}}}}]}}}})",
      i);
}

void BM_DurableCreates64Writers(benchmark::State& state) {
  constexpr int kThreads = 64, kPerThread = 100;
  for (auto _ : state) {
    BenchDir dir;
    auto store = OpenOrDie(dir.path());
    auto start = Clock::now();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          auto r = store->Create(fmt::format("/pods/default/t{}-{}", t, i), PodJson(i));
          if (!r.ok()) {
            fmt::print(stderr, "store_bench: {}\n", r.status().ToString());
            std::exit(1);
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    double secs = std::chrono::duration<double>(Clock::now() - start).count();
    state.SetIterationTime(secs);
    double rate = kThreads * kPerThread / secs;
    g_creates_per_s = std::max(g_creates_per_s, rate);
    auto st = store->stats();
    state.counters["creates_per_s"] = rate;
    state.counters["writes_per_txn"] =
        double(st.writes) / double(std::max<uint64_t>(1, st.transactions));
  }
}
BENCHMARK(BM_DurableCreates64Writers)
    ->Iterations(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_List100k(benchmark::State& state) {
  constexpr int kKeys = 100000, kPerTxn = 1000;
  BenchDir dir;
  auto store = OpenOrDie(dir.path());
  for (int b = 0; b < kKeys / kPerTxn; ++b) {
    std::vector<TxnOp> ops;
    for (int i = b * kPerTxn; i < (b + 1) * kPerTxn; ++i) {
      ops.push_back(TxnOp::Create(fmt::format("/pods/default/p{:06}", i), PodJson(i)));
    }
    if (!store->Txn(ops).ok()) std::exit(1);
  }
  double best = 1e18;
  for (auto _ : state) {
    auto start = Clock::now();
    auto l = store->List("/pods/default/", 0, "", 0);
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!l.ok() || l->items.size() != kKeys) std::exit(1);
    best = std::min(best, ms);
    benchmark::DoNotOptimize(l);
  }
  g_list_ms = best;
  state.counters["list_ms"] = best;
}
BENCHMARK(BM_List100k)->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  fmt::print("BENCH store creates_per_s={:.0f} list_100k_ms={:.1f}\n", g_creates_per_s, g_list_ms);
  return 0;
}
