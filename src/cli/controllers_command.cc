// `etna controllers`: runs the controllers (job, queue, podgroup, node lifecycle) against an
// API server given by a kubeconfig, until SIGINT or SIGTERM.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "cli/flags.h"
#include "cli/monitoring_server.h"
#include "client/kubeconfig.h"
#include "client/transport.h"
#include "controllers/manager.h"

namespace etna::cli {

namespace {

void PrintControllersHelp(FILE* out) {
  std::fprintf(out,
               "Usage: etna controllers --kubeconfig FILE [flags]\n\n"
               "Runs Volcano's job, queue and podgroup controllers and the node lifecycle\n"
               "controller against the API server of FILE.\n\n"
               "Flags:\n"
               "  --kubeconfig FILE          the API server and credentials (required)\n"
               "  --controllers LIST         comma-separated subset of job,queue,podgroup,node\n"
               "                             (default: all)\n"
               "  --lease-grace-seconds N    extra seconds past a node Lease's duration before\n"
               "                             the node is declared lost (default 5)\n"
               "  --resync-seconds N         re-check every object this often (default 30)\n"
               "  --listen HOST:PORT         serve /metrics, /healthz and /readyz over HTTP\n"
               "                             (default 127.0.0.1:8081; port 0 picks one)\n");
}

bool ParseSeconds(const std::string& flag, const std::string& text, double* out) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || v < 0) {
    std::fprintf(stderr, "etna controllers: %s must be a number of seconds >= 0, got \"%s\"\n",
                 flag.c_str(), text.c_str());
    return false;
  }
  *out = v;
  return true;
}

}  // namespace

int RunControllers(int argc, char** argv) {
  std::string kubeconfig, list, listen = "127.0.0.1:8081";
  double grace = 5, resync = 30;
  FlagParser p("etna controllers", argc, argv);
  while (p.Next()) {
    std::string v;
    if (p.Is("--help") || p.Is("-h")) {
      PrintControllersHelp(stdout);
      return 0;
    } else if (p.Is("--kubeconfig")) {
      if (!p.Value(&kubeconfig)) return 2;
    } else if (p.Is("--controllers")) {
      if (!p.Value(&list)) return 2;
    } else if (p.Is("--listen")) {
      if (!p.Value(&listen)) return 2;
    } else if (p.Is("--lease-grace-seconds")) {
      if (!p.Value(&v) || !ParseSeconds("--lease-grace-seconds", v, &grace)) return 2;
    } else if (p.Is("--resync-seconds")) {
      if (!p.Value(&v) || !ParseSeconds("--resync-seconds", v, &resync)) return 2;
    } else {
      p.Unknown(PrintControllersHelp);
      return 2;
    }
  }
  if (kubeconfig.empty()) {
    std::fprintf(stderr, "etna controllers: --kubeconfig is required\n");
    return 2;
  }
  auto config = client::LoadKubeconfig(kubeconfig);
  if (!config.ok()) {
    std::fprintf(stderr, "etna controllers: %s\n", config.status().ToString().c_str());
    return 1;
  }
  BlockStopSignals();

  controllers::ControllerManagerOptions options;
  client::KubeConfig kc = *config;
  options.factory = [kc] { return client::MakeHttpTransport(kc); };
  options.lease_grace = std::chrono::milliseconds(static_cast<int64_t>(grace * 1000));
  options.resync_period =
      std::chrono::milliseconds(std::max<int64_t>(100, static_cast<int64_t>(resync * 1000)));
  std::stringstream names(list);
  for (std::string name; std::getline(names, name, ',');) {
    if (!name.empty()) options.controllers.insert(name);
  }
  controllers::ControllerManager manager(options);
  auto monitoring = MonitoringServer::StartOrReport(
      "etna controllers", listen, &manager.metrics_registry(), [&manager] {
        return manager.ready() ? std::string() : std::string("controllers: informers not synced");
      });
  if (!monitoring) return 1;
  Status started = manager.Start();
  if (started.code() == StatusCode::kInvalidArgument) {
    std::fprintf(stderr, "etna controllers: %s\n", started.message().c_str());
    return 2;
  }
  if (!started.ok()) std::fprintf(stderr, "etna controllers: %s\n", started.message().c_str());
  std::printf("etna controllers: running against %s:%u\n", kc.host.c_str(),
              static_cast<unsigned>(kc.port));
  std::fflush(stdout);
  const char* sig = WaitForStopSignal();
  std::printf("etna controllers: %s, shutting down\n", sig);
  manager.Stop();
  return 0;
}

}  // namespace etna::cli
