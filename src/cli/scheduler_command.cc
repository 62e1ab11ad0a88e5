// `etna scheduler`: the scheduler daemon against an API server.
//
//   etna scheduler --kubeconfig FILE [--conf FILE] [--period 1s]
//                  [--scheduler-names volcano,etna,default-scheduler]
//                  [--time-zone Europe/Berlin] [--leader-elect=true ...]
//
// Without --conf the configuration is read (and reloaded) from the ConfigMap
// volcano-system/volcano-scheduler-configmap, key volcano-scheduler.conf, else the default.
// With --leader-elect (the default) several copies may run: each keeps its caches warm and only
// the holder of the Lease kube-system/etna-scheduler schedules (cli/leader_election_flags.h).
// Runs until SIGINT or SIGTERM, or until it loses the Lease (exit code 1).

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "cli/kit/command.h"
#include "cli/leader_election_flags.h"
#include "cli/monitoring_server.h"
#include "client/kubeconfig.h"
#include "client/transport.h"
#include "common/file.h"
#include "sched/framework/arguments.h"
#include "scheduler/scheduler.h"

namespace etna::cli {
namespace {

int RunDaemon(Invocation& inv) {
  std::string kubeconfig = inv.Get("kubeconfig"), conf_file = inv.Get("conf");
  std::string period = inv.Get("period");
  // --scheduler-name is the flag's earlier spelling, still accepted.
  std::string names =
      inv.Has("scheduler-name") ? inv.Get("scheduler-name") : inv.Get("scheduler-names");
  std::string listen = inv.Get("listen");
  if (kubeconfig.empty()) return inv.UsageError("--kubeconfig is required");
  scheduler::SchedulerOptions options;
  auto parsed_period = ParseDuration(period);
  if (!parsed_period.ok()) return inv.UsageError("--period: " + parsed_period.status().message());
  options.period = *parsed_period;
  auto zone = ParseTimeZone(inv.Get("time-zone"));
  if (!zone.ok()) return inv.UsageError("--time-zone: " + zone.status().message());
  options.time_zone = *zone;
  options.scheduler_names = sched::SplitCommaList(names);
  if (options.scheduler_names.empty()) return inv.UsageError("--scheduler-names: empty list");
  if (!conf_file.empty()) {
    auto text = ReadFile(conf_file);
    if (!text.ok()) {
      std::fprintf(stderr, "etna scheduler: --conf: %s\n", text.status().message().c_str());
      return 1;
    }
    options.conf_yaml = *text;
    if (options.conf_yaml.empty()) {
      std::fprintf(stderr, "etna scheduler: --conf: %s is empty\n", conf_file.c_str());
      return 1;
    }
  }
  auto config = client::LoadKubeconfig(kubeconfig);
  if (!config.ok()) {
    std::fprintf(stderr, "etna scheduler: %s\n", config.status().ToString().c_str());
    return 1;
  }
  if (inv.Has("server")) {
    if (Status st = client::SetServers(*config, inv.Get("server")); !st.ok()) {
      return inv.UsageError(st.message());
    }
  }
  auto election = ParseLeaderElectionFlags(inv);
  if (!election.ok()) return inv.UsageError(election.status().message());
  options.standby = election->has_value();
  client::TransportFactory transports = [cfg = *config] { return client::MakeHttpTransport(cfg); };
  options.transports = transports;
  BlockStopSignals();

  scheduler::Scheduler sched(std::move(options));
  std::atomic<DaemonLeadership*> leadership{nullptr};
  auto monitoring = MonitoringServer::StartOrReport(
      "etna scheduler", listen, &sched.metrics_registry(),
      [&sched] {
        return sched.ready() ? std::string() : std::string("scheduler: informers not synced");
      },
      [&leadership] {
        DaemonLeadership* l = leadership;
        return l ? l->Describe() : std::string("leading (no leader election)");
      });
  if (!monitoring) return 1;
  if (Status st = sched.Start(); !st.ok()) {
    std::fprintf(stderr, "etna scheduler: %s\n", st.ToString().c_str());
    return 1;
  }
  std::printf("etna scheduler: ready (serving schedulerName %s, period %s)\n", names.c_str(),
              period.c_str());
  std::fflush(stdout);
  std::unique_ptr<DaemonLeadership> campaign;
  if (*election) {
    campaign = std::make_unique<DaemonLeadership>(
        "etna scheduler", **election, transports, &sched.metrics_registry(),
        [&sched] { sched.Lead(); }, [&sched] { sched.StepDown(); });
    leadership = campaign.get();
  }
  const char* sig = WaitForStopSignal();
  const bool lost = campaign && campaign->lost();
  if (!lost) std::printf("etna scheduler: %s, shutting down\n", sig);
  std::fflush(stdout);
  leadership = nullptr;
  campaign.reset();  // steps down and lets the Lease go
  sched.Stop();
  return lost ? 1 : 0;
}

const Command& SchedulerCommand() {
  static const Command command = WithLeaderElectionFlags(
      "etna-scheduler",
      Command{
          "scheduler",
          "run the scheduler against an API server",
          "etna scheduler --kubeconfig FILE [flags]",
          "Runs the scheduler: watches pods, nodes, podgroups, queues, priorityclasses and\n"
          "hypernodes, places pending jobs and binds their pods to concrete GPUs.",
          {
              {"kubeconfig", 0, "FILE", "the API server and credentials (etna server writes one)"},
              {"server", 0, "URL[,URL...]",
               "the API servers to use instead of the kubeconfig's (same CA and token); when one "
               "cannot be reached the next is used (docs/ha.md)"},
              {"conf", 0, "FILE",
               "volcano-scheduler.conf; default: the ConfigMap "
               "volcano-system/volcano-scheduler-configmap, else the built-in configuration (with "
               "preempt and reclaim)"},
              {"period", 0, "DURATION", "time between cycles when nothing happens (500ms, 2s, ...)",
               "1s"},
              {"scheduler-names", 0, "LIST",
               "the spec.schedulerName values served; beside another scheduler, leave out "
               "default-scheduler",
               "volcano,etna,default-scheduler"},
              {"scheduler-name", 0, "LIST", "the earlier spelling of --scheduler-names"},
              {"time-zone", 0, "ZONE",
               "the IANA time zone Queue timePolicies are judged in (Europe/Berlin, UTC, ...); "
               "default: the host's"},
              {"listen", 0, "HOST:PORT",
               "serve /metrics, /healthz and /readyz over HTTP (as Volcano's --listen-address; "
               "port "
               "0 picks one)",
               "127.0.0.1:8080"},
          },
          /*connects=*/false,
          RunDaemon,
          /*takes_args=*/false});
  return command;
}

}  // namespace

int RunScheduler(int argc, char** argv) { return RunCommand(SchedulerCommand(), 1, argc, argv); }

}  // namespace etna::cli
