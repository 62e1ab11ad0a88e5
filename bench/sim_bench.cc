// `make bench-sim`: the time-aware replay (sim/timeline.h) of openb's default pod list with its
// timestamps (8,152 pods over 149 days on 1,213 nodes), under etna's default configuration, one
// queue per QoS class. Prints
//   BENCH sim trace=<name> jobs=<n> virtual_days=<d> wall_s=<x> events_per_s=<y>
// Usage: sim_bench [--pods FILE] [--nodes FILE]  (default: the repository's testdata/openb)
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "sched/framework/conf.h"
#include "sched/framework/registry.h"
#include "sim/timeline.h"
#include "sim/workload.h"

using namespace etna;

int main(int argc, char** argv) {
  std::string pods_path = std::string(ETNA_OPENB_DATA) + "/openb_pod_list_default.csv";
  std::string nodes_path = std::string(ETNA_OPENB_DATA) + "/openb_node_list_gpu_node.csv";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--pods") {
      pods_path = argv[i + 1];
    } else if (flag == "--nodes") {
      nodes_path = argv[i + 1];
    } else {
      std::fprintf(stderr, "sim_bench: unknown flag %s (--pods FILE, --nodes FILE)\n", argv[i]);
      return 2;
    }
  }
  auto pods = sim::LoadPods(pods_path);
  auto nodes = sim::LoadNodes(nodes_path);
  if (!pods.ok() || !nodes.ok()) {
    std::fprintf(stderr, "sim_bench: %s\n",
                 (!pods.ok() ? pods.status() : nodes.status()).ToString().c_str());
    return 1;
  }
  auto jobs = sim::JobsFromOpenb(*pods, sim::OpenbQueues::kQos);
  auto conf =
      sched::ParseSchedulerConf(sched::DefaultSchedulerConfYaml(), sched::BuiltinRegistry());
  if (!jobs.ok() || !conf.ok()) {
    std::fprintf(stderr, "sim_bench: %s\n",
                 (!jobs.ok() ? jobs.status() : conf.status()).ToString().c_str());
    return 1;
  }
  std::vector<sched::Queue> queues;
  for (const char* name : {"default", "ls", "be", "burstable", "guaranteed"}) {
    sched::Queue q;
    q.name = name;
    queues.push_back(q);
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto result = sim::Simulate(sim::NodesFromOpenb(*nodes), queues, *conf, *jobs);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!result.ok()) {
    std::fprintf(stderr, "sim_bench: %s\n", result.status().ToString().c_str());
    return 1;
  }
  std::printf("BENCH sim trace=%s jobs=%zu virtual_days=%.1f wall_s=%.2f events_per_s=%.0f\n",
              std::filesystem::path(pods_path).stem().c_str(), result->jobs.size(),
              static_cast<double>(result->end_ms - result->start_ms) / 86'400'000.0, wall_s,
              static_cast<double>(result->events) / wall_s);
  return 0;
}
