// `etna dev`: the whole system in one process for a laptop or a test — the API server (SQLite
// in --data-dir), the scheduler, the controllers and one agent per node of a cluster profile
// (default: examples/clusters/dev.yaml, built in), running pods as real processes. It also makes
// the namespaces the seed's files use without declaring them (`inference`, `monitoring`).
//
//   etna dev [--data-dir DIR] [--listen HOST:PORT] [--profile FILE] [--period DURATION]
//
// The parts talk to the server through in-process transports (the same client interface as
// over HTTP); kubectl and the other clients use DIR/kubeconfig. The server's /metrics carries
// the server's, the scheduler's and the controllers' metrics (one registry); each simulated
// node's agent serves its own, and DIR/prometheus-targets.json lists them all for Prometheus'
// file_sd_configs (deploy/prometheus/). Ctrl-C or SIGTERM stops every pod (SIGTERM, its grace
// period, SIGKILL; reported Failed with reason Shutdown) unless --keep-pods is given: then the
// containers keep running, as under `etna agent`, and the next `etna dev` on the same data dir
// adopts them.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "agent/agent.h"
#include "agent/gpu/cluster_profile.h"
#include "cli/api_runtime.h"
#include "cli/dashboard_flags.h"
#include "cli/dev_profile.h"
#include "cli/flags.h"
#include "cli/kit/command.h"
#include "cli/runtime_flags.h"
#include "client/kubeconfig.h"
#include "client/rest.h"
#include "common/file.h"
#include "controllers/manager.h"
#include "scheduler/scheduler.h"

namespace etna::cli {
namespace {

// DIR/prometheus-targets.json in Prometheus' file_sd format: the API server (whose /metrics
// also carries the scheduler's and controllers' families) and every simulated node's agent.
Status WritePrometheusTargets(const std::string& data_dir, const ApiRuntime& api,
                              const std::vector<agent::NodeSpec>& nodes,
                              const std::vector<std::unique_ptr<agent::Agent>>& agents) {
  nlohmann::json groups = nlohmann::json::array();
  groups.push_back({{"targets", {fmt::format("127.0.0.1:{}", api.port())}},
                    {"labels", {{"job", "etna-apiserver"}}}});
  for (size_t i = 0; i < agents.size(); ++i) {
    groups.push_back({{"targets", {fmt::format("127.0.0.1:{}", agents[i]->port())}},
                      {"labels", {{"job", "etna-agents"}, {"Hostname", nodes[i].name}}}});
  }
  return WriteFileAtomically(data_dir + "/prometheus-targets.json", groups.dump(2) + "\n", 0644);
}

// The namespaces the seed's files use without creating them (training-job.yaml's Deployment and
// HPA in `inference`, gpu-monitoring.yaml's ConfigMaps in `monitoring`), made for a laptop
// cluster so the seed applies as written. `etna server` makes only Kubernetes' and Volcano's own
// (docs/api-server.md); a create into any other missing namespace stays NotFound.
constexpr const char* kDevNamespaces[] = {"inference", "monitoring"};

Status CreateDevNamespaces(const client::TransportFactory& transports) {
  std::unique_ptr<client::Transport> transport = transports();
  client::RestClient rest(transport.get());
  for (const char* ns : kDevNamespaces) {
    auto made = rest.Create(client::Path("namespaces"), {{"metadata", {{"name", ns}}}});
    if (!made.ok() && made.status().code() != StatusCode::kAlreadyExists) {
      return Status::Internal(
          fmt::format("creating namespace {}: {}", ns, made.status().message()));
    }
  }
  return Status::Ok();
}

std::string DefaultDataDir() {
  const char* home = std::getenv("HOME");
  return fmt::format("{}/.etna", home && *home ? home : ".");
}

int RunCluster(Invocation& inv) {
  ApiRuntimeOptions api_options;
  api_options.data_dir = inv.Has("data-dir") ? inv.Get("data-dir") : DefaultDataDir();
  api_options.listen = inv.Get("listen");
  api_options.metric_rules_file = inv.Get("metric-rules");
  auto watch_cache = ParseBoolFlag(inv.Get("watch-cache"));
  if (!watch_cache.ok()) return inv.UsageError("--watch-cache: " + watch_cache.status().message());
  api_options.watch_cache = *watch_cache;
  if (std::string err = ApplyDashboardFlags(inv, &api_options); !err.empty()) {
    return inv.UsageError(err);
  }
  const std::string profile = inv.Get("profile");  // empty: the built-in profile
  auto period = ParseDuration(inv.Get("period"));
  if (!period.ok()) return inv.UsageError("--period: " + period.status().message());
  auto hpa_sync = ParseDuration(inv.Get("hpa-sync-period"));
  if (!hpa_sync.ok()) return inv.UsageError("--hpa-sync-period: " + hpa_sync.status().message());
  if (*hpa_sync < std::chrono::milliseconds(100)) {
    return inv.UsageError("--hpa-sync-period: must be at least 100ms");
  }
  const bool keep_pods = inv.Has("keep-pods");
  auto zone = ParseTimeZone(inv.Get("time-zone"));
  if (!zone.ok()) return inv.UsageError("--time-zone: " + zone.status().message());
  auto nodes = profile.empty() ? agent::ParseClusterProfile(kDevProfileYaml)
                               : agent::LoadClusterProfile(profile);
  if (!nodes.ok()) {
    std::fprintf(stderr, "etna dev: --profile: %s\n", nodes.status().ToString().c_str());
    return 1;
  }
  BlockStopSignals();
  metrics::Registry registry;
  api_options.metrics = &registry;
  auto api = ApiRuntime::Start(api_options);
  if (!api.ok()) {
    std::fprintf(stderr, "etna dev: %s\n", api.status().ToString().c_str());
    return 1;
  }
  client::TransportFactory transports = (*api)->InProcessTransports();
  if (Status st = CreateDevNamespaces(transports); !st.ok()) {
    std::fprintf(stderr, "etna dev: %s\n", st.ToString().c_str());
    return 1;
  }

  controllers::ControllerManagerOptions controller_options;
  controller_options.factory = transports;
  controller_options.metrics = &registry;
  controller_options.hpa_sync_period = *hpa_sync;
  controllers::ControllerManager controllers(controller_options);
  if (Status st = controllers.Start(); !st.ok()) {
    std::fprintf(stderr, "etna dev: controllers: %s\n", st.ToString().c_str());
    return 1;
  }
  scheduler::SchedulerOptions scheduler_options;
  scheduler_options.transports = transports;
  scheduler_options.metrics = &registry;
  scheduler_options.period = *period;
  scheduler_options.time_zone = *zone;
  scheduler::Scheduler scheduler(std::move(scheduler_options));
  if (Status st = scheduler.Start(); !st.ok()) {
    std::fprintf(stderr, "etna dev: scheduler: %s\n", st.ToString().c_str());
    return 1;
  }
  // Pods reach the API as in-cluster clients at the address its kubeconfig names.
  auto in_cluster = client::LoadKubeconfig((*api)->kubeconfig());
  if (!in_cluster.ok()) {
    std::fprintf(stderr, "etna dev: %s\n", in_cluster.status().ToString().c_str());
    return 1;
  }
  std::vector<std::unique_ptr<agent::Agent>> agents;
  int gpus = 0;
  for (const agent::NodeSpec& node : *nodes) {
    auto options = agent::SimulatedNodeOptions(node, transports, api_options.data_dir + "/nodes");
    options.stop_pods = !keep_pods;
    options.api_host = in_cluster->host;
    options.api_port = in_cluster->port;
    options.api_ca_pem = in_cluster->ca_pem;
    if (std::string error = ApplyRuntimeFlags(inv, &options); !error.empty()) {
      return inv.UsageError(error);
    }
    agents.push_back(std::make_unique<agent::Agent>(std::move(options)));
    if (Status st = agents.back()->Start(); !st.ok()) {
      std::fprintf(stderr, "etna dev: node %s: %s\n", node.name.c_str(), st.ToString().c_str());
      return 1;
    }
    gpus += static_cast<int>(node.gpus.size());
  }
  if (Status st = WritePrometheusTargets(api_options.data_dir, **api, *nodes, agents); !st.ok()) {
    std::fprintf(stderr, "etna dev: %s\n", st.ToString().c_str());
    return 1;
  }
  std::printf("etna dev: serving %s (data in %s)\n", (*api)->url().c_str(),
              api_options.data_dir.c_str());
  std::printf("etna dev: %zu simulated nodes with %d GPUs, scheduler and controllers running\n",
              agents.size(), gpus);
  std::printf(
      "etna dev: metrics at %s/metrics; Prometheus targets in "
      "%s/prometheus-targets.json\n",
      (*api)->url().c_str(), api_options.data_dir.c_str());
  std::printf(
      "etna dev: dashboard at %s/ui/ (log in with the kubeconfig's token: kubectl --kubeconfig "
      "%s config view --raw -o jsonpath='{.users[0].user.token}')\n",
      (*api)->url().c_str(), (*api)->kubeconfig().c_str());
  std::printf("etna dev: ready. Try:\n");
  std::printf("  export KUBECONFIG=%s\n", (*api)->kubeconfig().c_str());
  std::printf("  kubectl get nodes\n");
  std::printf("  kubectl apply -f examples/jobs/seed-training-runnable.yaml\n");
  std::printf("  kubectl get vcjob,podgroups,pods\n");
  std::fflush(stdout);
  const char* sig = WaitForStopSignal();
  std::printf("etna dev: %s, stopping%s\n", sig,
              keep_pods ? " (containers keep running for the next start)"
                        : ": pods get their grace periods (--keep-pods leaves them running)");
  std::fflush(stdout);
  // Nothing new is placed or created while the nodes stop their pods; the API stays up for
  // the pods' last status.
  scheduler.Stop();
  controllers.Stop();
  std::vector<std::thread> stopping;
  for (auto& a : agents) stopping.emplace_back([&a] { a->Stop(); });
  for (auto& t : stopping) t.join();
  return 0;
}

const Command& DevCommand() {
  static const Command command = {
      "dev",
      "a whole cluster in one process: server, scheduler, controllers and simulated GPU nodes "
      "running pods as processes",
      "etna dev [--data-dir DIR] [--listen HOST:PORT] [--profile FILE] [--period D] "
      "[--time-zone ZONE] [--keep-pods]",
      "Runs a whole etna cluster in this process: the API server (data in DIR), the\n"
      "scheduler, the controllers, and simulated GPU nodes whose pods run as real processes.\n"
      "Writes DIR/kubeconfig for kubectl, the Python client and etna's own commands, and makes\n"
      "the namespaces the seed's files use without declaring them: inference, monitoring.",
      WithRuntimeFlags(
          WithDashboardFlags({
              {"data-dir", 0, "DIR",
               "store, certificates, kubeconfig, pods' logs (default ~/.etna)"},
              {"listen", 0, "HOST:PORT", "the API server's address", ApiRuntimeOptions().listen},
              {"metric-rules", 0, "FILE",
               "external metrics defined by Prometheus queries (YAML; see docs/autoscaling.md)"},
              {"watch-cache", 0, "BOOL",
               "serve gets and lists from memory, kept by one watch of the store", "false"},
              {"profile", 0, "FILE",
               "the simulated nodes (default: 4 x 8 H100 with NVSwitch, 2 x 4 A100-80GB with MIG, "
               "2 x 2 T4; see examples/clusters/)"},
              {"period", 0, "D", "the scheduler's cycle period (500ms, 2s, ...)", "1s"},
              {"hpa-sync-period", 0, "D",
               "how often each HorizontalPodAutoscaler reads its metrics and rescales", "5s"},
              {"keep-pods", 0, "", "on stop, leave the pods running for the next start to adopt"},
              {"time-zone", 0, "ZONE",
               "the IANA time zone Queue timePolicies are judged in (Europe/Berlin, UTC, ...); "
               "default: the host's"},
          }),
          false),
      /*connects=*/false,
      RunCluster,
      /*takes_args=*/false};
  return command;
}

}  // namespace

int RunDev(int argc, char** argv) { return RunCommand(DevCommand(), 1, argc, argv); }

}  // namespace etna::cli
