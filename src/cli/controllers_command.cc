// `etna controllers`: runs the controllers (job, queue, podgroup, node lifecycle) against an
// API server given by a kubeconfig, until SIGINT or SIGTERM.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "cli/flags.h"
#include "cli/kit/command.h"
#include "cli/leader_election_flags.h"
#include "cli/monitoring_server.h"
#include "client/kubeconfig.h"
#include "client/transport.h"
#include "controllers/manager.h"
#include "sched/framework/arguments.h"

namespace etna::cli {

namespace {

int RunManager(Invocation& inv) {
  std::string kubeconfig = inv.Get("kubeconfig"), list = inv.Get("controllers");
  std::string listen = inv.Get("listen");
  if (kubeconfig.empty()) return inv.UsageError("--kubeconfig is required");
  std::optional<double> grace = inv.Number("lease-grace-seconds", 0);
  if (!grace) return kUsageExitCode;
  std::optional<double> resync = inv.Number("resync-seconds", 0);
  if (!resync) return kUsageExitCode;
  auto hpa_sync = ParseDuration(inv.Get("hpa-sync-period"));
  if (!hpa_sync.ok()) return inv.UsageError("--hpa-sync-period: " + hpa_sync.status().message());
  if (*hpa_sync < std::chrono::milliseconds(100)) {
    return inv.UsageError("--hpa-sync-period: must be at least 100ms");
  }
  std::optional<double> workers = inv.Number("worker-threads", 1);
  if (!workers) return kUsageExitCode;
  if (*workers != static_cast<int>(*workers) || *workers > 1024) {
    return inv.UsageError("--worker-threads: want a whole number from 1 to 1024");
  }
  auto config = client::LoadKubeconfig(kubeconfig);
  if (!config.ok()) {
    std::fprintf(stderr, "etna controllers: %s\n", config.status().ToString().c_str());
    return 1;
  }
  if (inv.Has("server")) {
    if (Status st = client::SetServers(*config, inv.Get("server")); !st.ok()) {
      return inv.UsageError(st.message());
    }
  }
  auto election = ParseLeaderElectionFlags(inv);
  if (!election.ok()) return inv.UsageError(election.status().message());
  BlockStopSignals();

  controllers::ControllerManagerOptions options;
  client::KubeConfig kc = *config;
  // With leader election every write goes through a gate that is open only while this process
  // leads, so that nothing leaves it once it has stepped down, even from a worker that was in
  // the middle of a request when the Lease was lost.
  std::atomic<bool> writes_open{!election->has_value()};
  options.factory = [kc, &writes_open] {
    return client::MakeGatedTransport(client::MakeHttpTransport(kc), &writes_open);
  };
  options.job_workers = static_cast<int>(*workers);
  options.lease_grace = std::chrono::milliseconds(static_cast<int64_t>(*grace * 1000));
  options.hpa_sync_period = *hpa_sync;
  options.resync_period =
      std::chrono::milliseconds(std::max<int64_t>(100, static_cast<int64_t>(*resync * 1000)));
  for (const std::string& name : sched::SplitCommaList(list)) options.controllers.insert(name);
  // The Lease's own requests go around the gate.
  const client::TransportFactory transports = [kc] { return client::MakeHttpTransport(kc); };
  controllers::ControllerManager manager(options);
  if (Status st = manager.ValidateOptions(); !st.ok()) {
    std::fprintf(stderr, "etna controllers: %s\n", st.message().c_str());
    return 2;
  }
  std::atomic<DaemonLeadership*> leadership{nullptr};
  auto monitoring = MonitoringServer::StartOrReport(
      "etna controllers", listen, &manager.metrics_registry(),
      [&manager, &leadership] {
        DaemonLeadership* l = leadership;
        if (manager.ready() || (l && !l->leading())) return std::string();
        return std::string("controllers: informers not synced");
      },
      [&leadership] {
        DaemonLeadership* l = leadership;
        return l ? l->Describe() : std::string("leading (no leader election)");
      });
  if (!monitoring) return 1;
  // As kube-controller-manager, the controllers act only while this process leads; unlike it,
  // a standby fills and keeps its informers' caches from the start (WarmUp), so a takeover
  // reconciles at once. Both on a thread of their own, so the Lease keeps being renewed.
  std::mutex lead_mu;
  std::condition_variable lead_cv;
  bool lead = !election->has_value();
  bool quitting = false;
  std::thread starting([&] {
    Status warmed = manager.WarmUp();
    if (!warmed.ok()) std::fprintf(stderr, "etna controllers: %s\n", warmed.message().c_str());
    std::unique_lock lock(lead_mu);
    lead_cv.wait(lock, [&] { return lead || quitting; });
    if (quitting) return;
    lock.unlock();
    Status started = manager.Start();
    if (!started.ok()) std::fprintf(stderr, "etna controllers: %s\n", started.message().c_str());
  });
  std::unique_ptr<DaemonLeadership> campaign;
  if (*election) {
    campaign = std::make_unique<DaemonLeadership>(
        "etna controllers", **election, transports, &manager.metrics_registry(),
        [&] {
          writes_open = true;
          std::lock_guard lock(lead_mu);
          lead = true;
          lead_cv.notify_all();
        },
        // The controllers themselves stop below, on the way out (a worker may hang in a
        // request on a cut-off network until its timeout); closing the gate is what stops
        // acting.
        [&] { writes_open = false; });
    leadership = campaign.get();
  }
  std::printf("etna controllers: running against %s:%u\n", kc.host.c_str(),
              static_cast<unsigned>(kc.port));
  std::fflush(stdout);
  const char* sig = WaitForStopSignal();
  const bool lost = campaign && campaign->lost();
  if (!lost) std::printf("etna controllers: %s, shutting down\n", sig);
  leadership = nullptr;
  campaign.reset();
  {
    std::lock_guard lock(lead_mu);
    quitting = true;
    lead_cv.notify_all();
  }
  starting.join();
  manager.Stop();
  return lost ? 1 : 0;
}

const Command& ControllersCommand() {
  static const Command command = WithLeaderElectionFlags(
      "etna-controllers",
      Command{
          "controllers",
          "run the job, queue, podgroup, node and workload controllers",
          "etna controllers --kubeconfig FILE [flags]",
          "Runs Volcano's job, queue, podgroup, CronJob, jobflow and jobtemplate controllers,\n"
          "the node lifecycle controller, Kubernetes' ReplicaSet, Deployment, DaemonSet, Job,\n"
          "CronJob and HorizontalPodAutoscaler controllers and KEDA's ScaledObject operator\n"
          "against the API server of FILE.",
          {
              {"kubeconfig", 0, "FILE", "the API server and credentials (required)"},
              {"server", 0, "URL[,URL...]",
               "the API servers to use instead of the kubeconfig's (same CA and token); when one "
               "cannot be reached the next is used (docs/ha.md)"},
              {"controllers", 0, "LIST",
               "comma-separated subset of job,queue,podgroup,node,replicaset,deployment,daemonset,"
               "batch-job,cronjob,volcano-cronjob,hpa,keda,jobflow,jobtemplate,endpoints,scheduler-"
               "names,clusterrole-aggregation (default: all)"},
              {"hpa-sync-period", 0, "D",
               "how often each HorizontalPodAutoscaler reads its metrics and rescales", "5s"},
              {"lease-grace-seconds", 0, "N",
               "extra seconds past a node Lease's duration before the node is declared lost", "5"},
              {"resync-seconds", 0, "N", "re-check every object this often", "30"},
              {"worker-threads", 0, "N", "jobs the job controller reconciles at once", "16"},
              {"listen", 0, "HOST:PORT",
               "serve /metrics, /healthz and /readyz over HTTP (port 0 picks one)",
               "127.0.0.1:8081"},
          },
          /*connects=*/false,
          RunManager,
          /*takes_args=*/false});
  return command;
}

}  // namespace

int RunControllers(int argc, char** argv) {
  return RunCommand(ControllersCommand(), 1, argc, argv);
}

}  // namespace etna::cli
