// `etna scheduler`: the scheduler daemon against an API server.
//
//   etna scheduler --kubeconfig FILE [--conf FILE] [--period 1s] [--scheduler-name volcano,etna]
//
// Without --conf the configuration is read (and reloaded) from the ConfigMap
// volcano-system/volcano-scheduler-configmap, key volcano-scheduler.conf, else the default.
// Runs until SIGINT or SIGTERM.

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "cli/monitoring_server.h"
#include "client/kubeconfig.h"
#include "client/transport.h"
#include "common/file.h"
#include "scheduler/scheduler.h"

namespace etna::cli {
namespace {

void PrintSchedulerHelp(FILE* out) {
  std::fprintf(
      out,
      "Usage: etna scheduler --kubeconfig FILE [flags]\n\n"
      "Runs the scheduler: watches pods, nodes, podgroups, queues, priorityclasses and\n"
      "hypernodes, places pending jobs and binds their pods to concrete GPUs.\n\n"
      "Flags:\n"
      "  --kubeconfig FILE         the API server and credentials (etna server writes one)\n"
      "  --conf FILE               volcano-scheduler.conf; default: the ConfigMap\n"
      "                            volcano-system/volcano-scheduler-configmap, else the\n"
      "                            built-in configuration (with preempt and reclaim)\n"
      "  --period DURATION         time between cycles when nothing happens (default 1s;\n"
      "                            500ms, 2s, ...)\n"
      "  --scheduler-name LIST     the spec.schedulerName values served (default\n"
      "                            volcano,etna)\n"
      "  --listen HOST:PORT        serve /metrics, /healthz and /readyz over HTTP (default\n"
      "                            127.0.0.1:8080, as Volcano's --listen-address; port 0\n"
      "                            picks one)\n");
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

int RunScheduler(int argc, char** argv) {
  std::string kubeconfig, conf_file, period = "1s", names = "volcano,etna",
                                     listen = "127.0.0.1:8080";
  FlagParser p("etna scheduler", argc, argv);
  while (p.Next()) {
    if (p.Is("--kubeconfig")) {
      if (!p.Value(&kubeconfig)) return 1;
    } else if (p.Is("--conf")) {
      if (!p.Value(&conf_file)) return 1;
    } else if (p.Is("--period")) {
      if (!p.Value(&period)) return 1;
    } else if (p.Is("--scheduler-name")) {
      if (!p.Value(&names)) return 1;
    } else if (p.Is("--listen")) {
      if (!p.Value(&listen)) return 1;
    } else if (p.Is("-h") || p.Is("--help")) {
      PrintSchedulerHelp(stdout);
      return 0;
    } else {
      return p.Unknown(PrintSchedulerHelp);
    }
  }
  if (kubeconfig.empty()) {
    std::fprintf(stderr, "etna scheduler: --kubeconfig is required\n");
    return 1;
  }
  scheduler::SchedulerOptions options;
  auto parsed_period = ParseDuration(period);
  if (!parsed_period.ok()) {
    std::fprintf(stderr, "etna scheduler: --period: %s\n",
                 parsed_period.status().message().c_str());
    return 1;
  }
  options.period = *parsed_period;
  options.scheduler_names = SplitList(names);
  if (options.scheduler_names.empty()) {
    std::fprintf(stderr, "etna scheduler: --scheduler-name: empty list\n");
    return 1;
  }
  if (!conf_file.empty()) {
    auto text = ReadFile(conf_file);
    if (!text.ok()) {
      std::fprintf(stderr, "etna scheduler: --conf: cannot read %s\n", conf_file.c_str());
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
  options.transports = [cfg = *config] { return client::MakeHttpTransport(cfg); };
  BlockStopSignals();

  scheduler::Scheduler sched(std::move(options));
  auto monitoring = MonitoringServer::StartOrReport(
      "etna scheduler", listen, &sched.metrics_registry(), [&sched] {
        return sched.ready() ? std::string() : std::string("scheduler: informers not synced");
      });
  if (!monitoring) return 1;
  if (Status st = sched.Start(); !st.ok()) {
    std::fprintf(stderr, "etna scheduler: %s\n", st.ToString().c_str());
    return 1;
  }
  std::printf("etna scheduler: ready (serving schedulerName %s, period %s)\n", names.c_str(),
              period.c_str());
  std::fflush(stdout);
  const char* sig = WaitForStopSignal();
  std::printf("etna scheduler: %s, shutting down\n", sig);
  std::fflush(stdout);
  sched.Stop();
  return 0;
}

}  // namespace etna::cli
