// Autoscaling benchmark (`make bench-autoscale`): `etna dev`'s in-process mode — the API server,
// the controllers, the scheduler and `--nodes` simulated GPU nodes (64 GPUs each), pods run as
// processes — with `--deployments` Deployments of 1-20 replicas (seeded) on one GPU each, each
// with an autoscaling/v2 HPA on the external metric gpu_utilization_avg (selector
// deployment=<name>, AverageValue 70, 1-40 replicas). Every pod reports 70 % through
// ETNA_GPU_UTILIZATION_FILE, so the HPAs hold.
//  - hpa_sync_ms: the p99 over --passes passes of one HPA controller pass over every HPA (scale
//    read, external metric through the API from the agents' readings, status), timed on a
//    controller driven synchronously with its own clock stepped by a sync period each pass.
//  - scale_out_to_running_s: the p50, over --scale-outs Deployments at once, of the time from
//    their pods' utilization going to 90 % to the first scale step's pods all Running, with the
//    HPA controller running as `etna dev` runs it (--hpa-sync-period, 5 s).
// Prints exactly one line:
//   BENCH autoscale deployments=<n> pods=<n> hpa_sync_ms=<x> scale_out_to_running_s=<x>
//
// Usage: autoscale_bench [--deployments 200] [--nodes 40] [--seed 42] [--passes 20]
//                        [--scale-outs 20] [--hpa-sync-ms 5000] [--keep]
#include <fmt/format.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "agent/agent.h"
#include "agent/gpu/cluster_profile.h"
#include "agent/runtime/shim.h"
#include "api/types/pod.h"
#include "cli/api_runtime.h"
#include "client/rest.h"
#include "common/clock.h"
#include "controllers/hpa_controller.h"
#include "controllers/manager.h"
#include "scheduler/scheduler.h"

namespace etna {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
namespace types = etna::api::types;

constexpr char kNs[] = "default";

struct Flags {
  int deployments = 200;
  int nodes = 40;
  int seed = 42;
  int passes = 20;
  int scale_outs = 20;
  int hpa_sync_ms = 5000;
  bool keep = false;
};

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "autoscale_bench: %s\n", why.c_str());
  std::exit(1);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> int {
      if (i + 1 >= argc) Die(a + ": needs a value");
      return std::atoi(argv[++i]);
    };
    if (a == "--deployments")
      f.deployments = next();
    else if (a == "--nodes")
      f.nodes = next();
    else if (a == "--seed")
      f.seed = next();
    else if (a == "--passes")
      f.passes = next();
    else if (a == "--scale-outs")
      f.scale_outs = next();
    else if (a == "--hpa-sync-ms")
      f.hpa_sync_ms = next();
    else if (a == "--keep")
      f.keep = true;
    else
      Die("unknown flag " + a);
  }
  if (f.deployments < 1 || f.nodes < 1 || f.passes < 1 || f.scale_outs < 0 ||
      f.scale_outs > f.deployments || f.hpa_sync_ms < 100) {
    Die("flags out of range");
  }
  return f;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

json DeploymentOf(const std::string& name, int replicas) {
  json container = {
      {"name", "server"},
      {"image", "bench"},
      {"command", {"sh", "-c", "echo 70 > $ETNA_GPU_UTILIZATION_FILE; exec sleep 3600"}},
      {"resources",
       {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}, {"nvidia.com/gpu", "1"}}},
        {"limits", {{"nvidia.com/gpu", "1"}}}}}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"namespace", kNs}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", {{"app", name}}}}},
            {"template",
             {{"metadata", {{"labels", {{"app", name}}}}},
              {"spec", {{"terminationGracePeriodSeconds", 1}, {"containers", {container}}}}}}}}};
}

json HpaOf(const std::string& name) {
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"name", name}, {"namespace", kNs}}},
          {"spec",
           {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name}}},
            {"minReplicas", 1},
            {"maxReplicas", 40},
            {"metrics",
             {{{"type", "External"},
               {"external",
                {{"metric",
                  {{"name", "gpu_utilization_avg"},
                   {"selector", {{"matchLabels", {{"deployment", name}}}}}}},
                 {"target", {{"type", "AverageValue"}, {"averageValue", "70"}}}}}}}}}}};
}

// The Running pods of Deployment `name` that are not being deleted.
std::vector<json> RunningPods(client::RestClient& rest, const std::string& name) {
  std::vector<json> out;
  auto pods = rest.List(client::Path("pods", kNs), "labelSelector=app%3D" + name);
  if (!pods.ok()) return out;
  for (json& p : *pods) {
    types::Pod pod(p);
    if (pod.phase() == "Running" && !pod.IsDeleting()) out.push_back(std::move(p));
  }
  return out;
}

// SIGKILLs the process group of every shim whose command line names `dir` (agents leave their
// containers running when they stop).
void KillContainers(const std::string& dir) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string pid = e.path().filename();
    if (pid.empty() || !std::isdigit(static_cast<unsigned char>(pid[0]))) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find("agent-shim") != std::string::npos && cmdline.find(dir) != std::string::npos) {
      kill(-std::atoi(pid.c_str()), SIGKILL);
    }
  }
}

int Run(const Flags& flags) {
  char tmpl[] = "/tmp/etna-autoscale-bench-XXXXXX";
  if (!mkdtemp(tmpl)) Die("mkdtemp failed");
  const std::string dir = tmpl;
  metrics::Registry registry;
  cli::ApiRuntimeOptions api_options;
  api_options.data_dir = dir;
  api_options.listen = "127.0.0.1:0";
  api_options.metrics = &registry;
  auto api = cli::ApiRuntime::Start(api_options);
  if (!api.ok()) Die(api.status().ToString());
  client::TransportFactory transports = (*api)->InProcessTransports();
  auto transport = transports();
  client::RestClient rest(transport.get());

  controllers::ControllerManagerOptions cm;
  cm.factory = transports;
  cm.metrics = &registry;
  for (const std::string& c : controllers::ControllerManager::AllControllers()) {
    if (c != "hpa" && c != "keda") cm.controllers.insert(c);
  }
  controllers::ControllerManager manager(cm);
  if (Status s = manager.Start(); !s.ok()) Die(s.ToString());
  scheduler::SchedulerOptions so;
  so.transports = transports;
  so.metrics = &registry;
  scheduler::Scheduler sched(std::move(so));
  if (Status s = sched.Start(); !s.ok()) Die(s.ToString());
  std::vector<std::unique_ptr<agent::Agent>> agents;
  for (int i = 0; i < flags.nodes; ++i) {
    agent::NodeSpec node;
    node.name = fmt::format("gpu-{:03}", i);
    node.cpu = "256";
    node.memory = "2Ti";
    node.pods = 250;
    for (int g = 0; g < 64; ++g) {
      client::NodeGpu gpu;
      gpu.index = g;
      gpu.uuid = agent::SimulatedGpuUuid(node.name, g);
      gpu.model = "NVIDIA-H100-80GB-HBM3";
      gpu.memory_mib = 81559;
      node.gpus.push_back(gpu);
    }
    auto options = agent::SimulatedNodeOptions(node, transports, dir + "/nodes");
    agents.push_back(std::make_unique<agent::Agent>(std::move(options)));
    if (Status s = agents.back()->Start(); !s.ok()) Die(node.name + ": " + s.ToString());
  }

  // The workload.
  std::mt19937 rng(static_cast<uint32_t>(flags.seed));
  std::uniform_int_distribution<int> replicas(1, 20);
  std::map<std::string, int> sizes;
  int pods = 0;
  for (int i = 0; i < flags.deployments; ++i) {
    std::string name = fmt::format("infer-{:03}", i);
    sizes[name] = replicas(rng);
    pods += sizes[name];
    if (auto r = rest.Create(client::Path("deployments", kNs), DeploymentOf(name, sizes[name]));
        !r.ok()) {
      Die(r.status().ToString());
    }
    if (auto r = rest.Create(client::Path("horizontalpodautoscalers", kNs), HpaOf(name)); !r.ok()) {
      Die(r.status().ToString());
    }
  }
  std::fprintf(stderr, "autoscale_bench: %d deployments, %d pods on %d nodes; waiting for them\n",
               flags.deployments, pods, flags.nodes);
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    auto all = rest.List(client::Path("pods", kNs));
    int running = 0;
    if (all.ok()) {
      for (const json& p : *all) running += types::Pod(p).phase() == "Running" ? 1 : 0;
    }
    if (running >= pods) break;
    if (std::chrono::steady_clock::now() - start > std::chrono::minutes(15)) {
      Die(fmt::format("only {} of {} pods running after 15 minutes", running, pods));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  std::fprintf(stderr, "autoscale_bench: all running after %.1f s\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  std::this_thread::sleep_for(std::chrono::seconds(2));  // every pod has written its 70

  // One HPA pass over all, driven synchronously.
  std::vector<double> passes;
  {
    FakeClock clock(SystemClock().NowMs());
    controllers::ControllerOptions o;
    o.factory = transports;
    o.clock = &clock;
    controllers::HorizontalPodAutoscalerController hpa(o, std::chrono::seconds(15));
    hpa.SyncOnce();  // the first sync of each: informers fill, statuses are written
    for (int p = 0; p < flags.passes; ++p) {
      clock.Advance(15'000);
      std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // fresh agent readings
      auto t0 = std::chrono::steady_clock::now();
      int n = hpa.SyncOnce();
      double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (n < flags.deployments) Die(fmt::format("a pass reconciled {} HPAs", n));
      passes.push_back(ms);
      std::fprintf(stderr, "autoscale_bench: pass %d: %d HPAs in %.1f ms\n", p + 1, n, ms);
    }
  }

  // Scale-outs with the HPA controller running as etna dev runs it.
  std::vector<double> reactions;
  if (flags.scale_outs > 0) {
    controllers::ControllerOptions o;
    o.factory = transports;
    controllers::HorizontalPodAutoscalerController hpa(
        o, std::chrono::milliseconds(flags.hpa_sync_ms));
    if (!hpa.Start()) Die("the HPA controller did not sync");
    std::this_thread::sleep_for(std::chrono::milliseconds(2 * flags.hpa_sync_ms));
    struct Watched {
      std::string name;
      int want = 0;
      std::chrono::steady_clock::time_point t0;
      bool done = false;
    };
    std::vector<Watched> watched;
    for (const auto& [name, size] : sizes) {
      if (static_cast<int>(watched.size()) == flags.scale_outs) break;
      // The first step: ceil(size * 90 / 70), within +4 pods or +100 % per 15 s.
      int want = std::min(
          {static_cast<int>(std::ceil(size * 90.0 / 70.0)), std::max(size + 4, 2 * size), 40});
      watched.push_back({name, want, {}, false});
    }
    for (Watched& w : watched) {
      for (const json& p : RunningPods(rest, w.name)) {
        types::Pod pod(p);
        std::ofstream(
            fmt::format("{}/nodes/{}/pods/{}/gpu-utilization", dir, pod.node_name(), pod.uid()))
            << "90\n";
      }
      w.t0 = std::chrono::steady_clock::now();
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
    while (std::chrono::steady_clock::now() < deadline) {
      bool all = true;
      for (Watched& w : watched) {
        if (w.done) continue;
        if (static_cast<int>(RunningPods(rest, w.name).size()) >= w.want) {
          w.done = true;
          reactions.push_back(
              std::chrono::duration<double>(std::chrono::steady_clock::now() - w.t0).count());
        } else {
          all = false;
        }
      }
      if (all) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (static_cast<int>(reactions.size()) < flags.scale_outs) {
      Die(fmt::format("only {} of {} deployments scaled out within 3 minutes", reactions.size(),
                      flags.scale_outs));
    }
  }

  std::printf(
      "BENCH autoscale deployments=%d pods=%d hpa_sync_ms=%.1f scale_out_to_running_s=%.2f\n",
      flags.deployments, pods, Percentile(passes, 0.99), Percentile(reactions, 0.5));
  std::fflush(stdout);
  for (auto& a : agents) a->Stop();
  sched.Stop();
  manager.Stop();
  KillContainers(dir);
  if (!flags.keep) fs::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace etna

int main(int argc, char** argv) {
  // The agents start containers through this binary, as `etna agent-shim` (runtime/shim.h).
  if (argc > 1 && std::string(argv[1]) == "agent-shim")
    return etna::agent::runtime::RunShim(argc - 1, argv + 1);
  return etna::Run(etna::ParseFlags(argc, argv));
}
