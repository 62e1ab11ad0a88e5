// End-to-end scheduling benchmark: an in-process API server (the real REST engine over SQLite in
// a temp dir, as `etna server` runs it) and the scheduler daemon (src/scheduler) talking to it
// through in-process transports. Registers `--nodes` nodes (8 GPUs each, etna.io/gpus, Ready, in
// switches of 32), starts the scheduler on the idle cluster, then submits `--pods` pods in gangs
// of `--gang` (a PodGroup with minMember = gang, then its pods) from 16 client threads — training
// gangs of one-GPU pods, and `--cpu-pods` of them in CPU-only gangs (data loaders) — and waits
// until every pod has spec.nodeName. Prints exactly one line:
//   BENCH e2e nodes=<n> pods=<n> submit_to_all_bound_s=<x> binds_per_s=<n>
// binds_per_s: pods / (time from the first to the last bind seen on the watch).
//
// TODO(lead): submit Volcano Jobs through the job controller instead of PodGroups and pods
// (SubmitGang below is the one place to change).
//
// Usage: e2e_bench [--nodes 1000] [--pods 10000] [--cpu-pods 2000] [--gang 8] [--keep]
// By default the 8,000 GPU pods fill every GPU of the 1,000 nodes exactly.
#include <fmt/format.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/server/api_server.h"
#include "api/types/well_known.h"
#include "client/informer.h"
#include "client/node_gpus.h"
#include "client/rest.h"
#include "scheduler/scheduler.h"
#include "store/sqlite_store.h"

namespace {

using etna::Status;
using nlohmann::json;
using Steady = std::chrono::steady_clock;

struct Flags {
  int nodes = 1000;
  int pods = 10000;
  int cpu_pods = 2000;  // of `pods`, in CPU-only gangs
  int gang = 8;
  bool keep = false;
};

void Die(const std::string& what) {
  std::fprintf(stderr, "e2e_bench: %s\n", what.c_str());
  std::exit(1);
}

// Runs fn(i) for i in [0, n) on `threads` threads.
void ParallelFor(int n, int threads, const std::function<void(int)>& fn) {
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i = next++; i < n; i = next++) fn(i);
    });
  }
  for (auto& t : pool) t.join();
}

void AddNode(etna::client::RestClient& rest, int i) {
  std::string name = fmt::format("node-{:04d}", i);
  std::vector<etna::client::NodeGpu> gpus;
  for (int g = 0; g < 8; ++g) {
    etna::client::NodeGpu d;
    d.index = g;
    d.uuid = fmt::format("GPU-{:04d}-{}", i, g);
    d.model = "NVIDIA-H100-80GB-HBM3";
    d.memory_mib = 81559;
    d.numa = g / 4;
    d.nvlink_domain = 0;
    gpus.push_back(d);
  }
  json node = {{"metadata",
                {{"name", name},
                 {"labels",
                  {{etna::api::types::kHostnameLabel, name},
                   {etna::api::types::kGpuModelLabel, "NVIDIA-H100-80GB-HBM3"},
                   {etna::api::types::kSwitchLabel, fmt::format("switch-{}", i / 32)}}},
                 {"annotations",
                  {{etna::api::types::kNodeGpusAnnotation, etna::client::EncodeNodeGpus(gpus)}}}}}};
  auto created = rest.Create(etna::client::Path("nodes"), node);
  if (!created.ok()) Die(created.status().ToString());
  json resources = {{"cpu", "128"}, {"memory", "2Ti"}, {"pods", "110"}, {"nvidia.com/gpu", "8"}};
  json status = {
      {"capacity", resources},
      {"allocatable", resources},
      {"conditions",
       json::array({{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}})}};
  auto patched =
      rest.MergePatch(etna::client::Path("nodes", "", name), {{"status", status}}, "status");
  if (!patched.ok()) Die(patched.status().ToString());
}

void SubmitGang(etna::client::RestClient& rest, int g, int size, bool gpu) {
  json requests = gpu ? json{{"cpu", "8"}, {"memory", "64Gi"}, {"nvidia.com/gpu", "1"}}
                      : json{{"cpu", "4"}, {"memory", "16Gi"}};
  json limits = gpu ? json{{"nvidia.com/gpu", "1"}} : json::object();
  std::string group = fmt::format("job-{:05d}", g);
  auto pg = rest.Create(
      etna::client::Path("podgroups", "default"),
      {{"metadata", {{"name", group}}}, {"spec", {{"minMember", size}, {"queue", "default"}}}});
  if (!pg.ok()) Die(pg.status().ToString());
  for (int i = 0; i < size; ++i) {
    json pod = {{"metadata",
                 {{"name", fmt::format("{}-worker-{}", group, i)},
                  {"annotations", {{etna::api::types::kGroupNameAnnotation, group}}}}},
                {"spec",
                 {{"schedulerName", "volcano"},
                  {"containers",
                   json::array({{{"name", "main"},
                                 {"image", "pytorch:2.0"},
                                 {"resources", {{"requests", requests}, {"limits", limits}}}}})}}}};
    auto created = rest.Create(etna::client::Path("pods", "default"), pod);
    if (!created.ok()) Die(created.status().ToString());
  }
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] {
      if (i + 1 >= argc) Die(a + " needs a value");
      return std::atoi(argv[++i]);
    };
    if (a == "--nodes") {
      f.nodes = next();
    } else if (a == "--pods") {
      f.pods = next();
    } else if (a == "--cpu-pods") {
      f.cpu_pods = next();
    } else if (a == "--gang") {
      f.gang = next();
    } else if (a == "--keep") {
      f.keep = true;
    } else {
      Die("unknown flag " + a + " (--nodes N --pods N --cpu-pods N --gang N --keep)");
    }
  }
  if (f.nodes <= 0 || f.pods <= 0 || f.gang <= 0 || f.pods % f.gang != 0 || f.cpu_pods < 0 ||
      f.cpu_pods > f.pods || f.cpu_pods % f.gang != 0) {
    Die("--nodes, --pods and --gang must be positive, --cpu-pods at most --pods, and both "
        "multiples of --gang");
  }
  if (f.pods - f.cpu_pods > f.nodes * 8) {
    Die(fmt::format("{} one-GPU pods cannot all be bound on {} nodes of 8 GPUs",
                    f.pods - f.cpu_pods, f.nodes));
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags = ParseFlags(argc, argv);
  char dir_template[] = "/tmp/etna-e2e-bench-XXXXXX";
  if (!mkdtemp(dir_template)) Die("mkdtemp failed");
  std::string data_dir = dir_template;

  etna::store::SqliteStoreOptions store_options;
  store_options.data_dir = data_dir;
  auto store = etna::store::SqliteStore::Open(store_options);
  if (!store.ok()) Die(store.status().ToString());
  auto authn =
      etna::api::server::Authenticator::FromTokensText("bench,admin,1,\"system:masters\"\n", false);
  if (!authn.ok()) Die(authn.status().ToString());
  etna::api::server::Authorizer authz;
  etna::api::server::ApiServerOptions api_options;
  api_options.authenticator = &authn.value();
  api_options.authorizer = &authz;
  etna::api::server::ApiServer api(store->get(), api_options);
  if (Status st = api.Bootstrap(); !st.ok()) Die(st.ToString());
  etna::client::TransportFactory factory = [&api] {
    return etna::client::MakeInProcessTransport(
        [&api](const etna::net::http::Request& r) { return api.Handle(r); }, "bench");
  };
  auto transport = factory();
  etna::client::RestClient rest(transport.get());

  ParallelFor(flags.nodes, 16, [&](int i) { AddNode(rest, i); });

  etna::scheduler::SchedulerOptions options;
  options.transports = factory;
  options.on_cycle = [](const etna::scheduler::CycleStats& c) {
    if (std::getenv("E2E_BENCH_VERBOSE")) {
      std::fprintf(stderr,
                   "cycle: %zu tasks, %zu binds, assemble %.1f ms, core %.1f ms, apply %.1f ms\n",
                   c.tasks, c.binds, c.assemble_ms, c.cycle_ms, c.apply_ms);
    }
  };
  etna::scheduler::Scheduler scheduler(options);
  if (Status st = scheduler.Start(); !st.ok()) Die(st.ToString());
  while (static_cast<int>(scheduler.cache().Assemble(0).snapshot.nodes.size()) < flags.nodes) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  // Bind times as the watch shows them.
  std::mutex mu;
  std::unordered_map<std::string, bool> bound;
  Steady::time_point first_bind{}, last_bind{};
  auto watch_transport = factory();
  etna::client::InformerOptions watch_options;
  watch_options.path = etna::client::Path("pods");
  etna::client::Informer watch(watch_transport.get(), watch_options,
                               [&](const std::string&, const json& pod) {
                                 if (pod["spec"].value("nodeName", "").empty()) return;
                                 std::lock_guard<std::mutex> lock(mu);
                                 if (!bound.emplace(pod["metadata"].value("name", ""), true).second)
                                   return;
                                 auto now = Steady::now();
                                 if (bound.size() == 1) first_bind = now;
                                 last_bind = now;
                               });
  watch.Start();
  if (!watch.WaitForSync(std::chrono::seconds(30))) Die("the pod watch did not sync");

  auto start = Steady::now();
  int gangs = flags.pods / flags.gang;
  int gpu_gangs = (flags.pods - flags.cpu_pods) / flags.gang;
  std::thread submitter([&] {
    ParallelFor(gangs, 16, [&](int g) { SubmitGang(rest, g, flags.gang, g < gpu_gangs); });
  });
  auto deadline = start + std::chrono::minutes(10);
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (static_cast<int>(bound.size()) >= flags.pods) break;
    }
    if (Steady::now() > deadline) Die("not every pod was bound within 10 minutes");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto done = Steady::now();
  submitter.join();
  double total_s = std::chrono::duration<double>(done - start).count();
  double bind_s = std::chrono::duration<double>(last_bind - first_bind).count();
  double binds_per_s = bind_s > 0 ? flags.pods / bind_s : 0;
  auto stats = scheduler.apply_stats();
  std::fprintf(stderr,
               "e2e_bench: %lu cycles, %lu binds, %lu bind failures, %lu podgroup patches, "
               "cache: %lu conversions\n",
               static_cast<unsigned long>(scheduler.cycles()),
               static_cast<unsigned long>(stats.binds),
               static_cast<unsigned long>(stats.bind_failures),
               static_cast<unsigned long>(stats.podgroup_patches),
               static_cast<unsigned long>(scheduler.cache().stats().converted));
  watch.Stop();
  scheduler.Stop();
  std::printf("BENCH e2e nodes=%d pods=%d submit_to_all_bound_s=%.3f binds_per_s=%.0f\n",
              flags.nodes, flags.pods, total_s, binds_per_s);
  std::fflush(stdout);
  if (!flags.keep) std::filesystem::remove_all(data_dir);
  return 0;
}
