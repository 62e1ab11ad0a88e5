// `etna server`: the API server with its embedded durable store.
//
//   etna server --data-dir DIR [--listen HOST:PORT] [--tokens-file FILE]
//               [--authorization-file FILE] [--anonymous] [--no-tls] [--metric-rules FILE]
//               [--watch-cache=true] [--etcd-servers URL[,URL...] [--etcd-cafile FILE]
//               [--etcd-certfile FILE --etcd-keyfile FILE] [--etcd-prefix /registry]
//               [--etcd-compaction-interval 5m]] [--accounting-retention 90d]
//
// On first start it makes its CA and serving certificate, an admin token and DIR/kubeconfig;
// it serves until SIGINT or SIGTERM, then shuts down gracefully.
#include <chrono>
#include <cstdio>
#include <string>

#include "cli/api_runtime.h"
#include "cli/dashboard_flags.h"
#include "cli/flags.h"
#include "cli/kit/command.h"
#include "cli/kit/output.h"
#include "common/strings.h"
#include "common/time.h"

namespace etna::cli {
namespace {

int Serve(Invocation& inv) {
  ApiRuntimeOptions flags;
  flags.data_dir = inv.Get("data-dir");
  flags.listen = inv.Get("listen");
  flags.tokens_file = inv.Get("tokens-file");
  flags.authorization_file = inv.Get("authorization-file");
  flags.anonymous = inv.Bool("anonymous");
  flags.tls = !inv.Bool("no-tls");
  flags.metric_rules_file = inv.Get("metric-rules");
  auto watch_cache = ParseBoolFlag(inv.Get("watch-cache"));
  if (!watch_cache.ok()) return inv.UsageError("--watch-cache: " + watch_cache.status().message());
  flags.watch_cache = *watch_cache;
  if (std::string err = ApplyDashboardFlags(inv, &flags); !err.empty()) {
    return inv.UsageError(err);
  }
  flags.etcd_servers = SplitCommaList(inv.Get("etcd-servers"));
  flags.etcd_ca_file = inv.Get("etcd-cafile");
  flags.etcd_cert_file = inv.Get("etcd-certfile");
  flags.etcd_key_file = inv.Get("etcd-keyfile");
  flags.etcd_prefix = inv.Get("etcd-prefix");
  if (!flags.etcd_servers.empty() && inv.Has("watch-cache") && !flags.watch_cache) {
    return inv.UsageError(
        "--watch-cache=false: with --etcd-servers every server serves from its watch cache");
  }
  if (flags.etcd_servers.empty() &&
      !(flags.etcd_ca_file + flags.etcd_cert_file + flags.etcd_key_file).empty()) {
    return inv.UsageError("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers");
  }
  if (flags.etcd_cert_file.empty() != flags.etcd_key_file.empty()) {
    return inv.UsageError("--etcd-certfile and --etcd-keyfile go together");
  }
  auto compaction = ParseDurationOrSeconds(inv.Get("etcd-compaction-interval"));
  if (!compaction.ok() || compaction->count() < 0) {
    return inv.UsageError("--etcd-compaction-interval \"" + inv.Get("etcd-compaction-interval") +
                          "\": want a duration such as 5m, or 0 for never");
  }
  flags.etcd_compaction_interval =
      std::chrono::ceil<std::chrono::seconds>(std::chrono::nanoseconds(*compaction));
  auto retention = ParseSpan("accounting-retention", inv.Get("accounting-retention"));
  if (!retention.ok()) return inv.UsageError(retention.status().message());
  flags.accounting_retention = *retention;
  // Signals are taken synchronously below; block them before any thread starts.
  BlockStopSignals();
  auto runtime = ApiRuntime::Start(flags);
  if (!runtime.ok()) {
    std::fprintf(stderr, "etna server: %s\n", runtime.status().ToString().c_str());
    return 1;
  }
  const std::string data = flags.etcd_servers.empty()
                               ? flags.data_dir
                               : "etcd " + inv.Get("etcd-servers") + " under " + flags.etcd_prefix +
                                     ", certificates in " + flags.data_dir;
  std::printf("etna server: serving %s (data in %s)\n", (*runtime)->url().c_str(), data.c_str());
  std::printf("etna server: kubectl --kubeconfig %s get queues\n",
              (*runtime)->kubeconfig().c_str());
  std::printf("etna server: dashboard at %s/ui/ (log in with a bearer token)\n",
              (*runtime)->url().c_str());
  std::fflush(stdout);
  const char* sig = WaitForStopSignal();
  std::printf("etna server: %s, shutting down\n", sig);
  std::fflush(stdout);
  return 0;
}

const Command& ServerCommand() {
  static const Command command = {
      "server",
      "run the Kubernetes-compatible API server",
      "etna server --data-dir DIR [--listen HOST:PORT] [flags]",
      "Runs the Kubernetes-compatible API server with its durable store in DIR.\n"
      "On first start it creates DIR/pki (its own CA and serving certificate),\n"
      "DIR/tokens.csv (an admin token) and DIR/kubeconfig (use it with kubectl).",
      WithDashboardFlags({
          {"data-dir", 0, "DIR", "where the store, certificates and kubeconfig live"},
          {"listen", 0, "HOST:PORT", "address to serve on", ApiRuntimeOptions().listen},
          {"tokens-file", 0, "FILE",
           "more bearer tokens: token,user,uid,\"group1,group2\" (DIR/tokens.csv, with the "
           "admin, is always read)"},
          {"authorization-file", 0, "FILE",
           "read/write rules per user or group, namespace and resource (YAML list; see "
           "docs/api-server.md)"},
          {"anonymous", 0, "", "accept requests without a token (loopback only)"},
          {"no-tls", 0, "",
           "plain HTTP (loopback only; kubectl then sends no token, so combine with "
           "--anonymous)"},
          {"metric-rules", 0, "FILE",
           "external metrics defined by Prometheus queries (YAML; see docs/autoscaling.md)"},
          {"watch-cache", 0, "BOOL",
           "serve gets and lists from memory, kept by one watch of the store (always on with "
           "--etcd-servers)",
           "false"},
          {"etcd-servers", 0, "URL[,URL...]",
           "keep objects in this etcd cluster (http:// or https:// client URLs) instead of "
           "DIR's SQLite file; several servers may share it (docs/ha.md)"},
          {"etcd-cafile", 0, "FILE", "CA bundle that signed the etcd members' certificates"},
          {"etcd-certfile", 0, "FILE", "client certificate for etcd (with --etcd-keyfile)"},
          {"etcd-keyfile", 0, "FILE", "the client certificate's private key"},
          {"etcd-prefix", 0, "PATH", "the key prefix of every object in etcd",
           ApiRuntimeOptions().etcd_prefix},
          {"etcd-compaction-interval", 0, "DURATION",
           "how often the servers compact etcd's history (0: never)", "5m"},
          {"accounting-retention", 0, "SPAN",
           "how long the accounting records of pod runs (PodRuns, `etna usage`) are kept after "
           "they ended: 90d, 2w, 36h; 0 keeps them forever",
           "90d"},
      }),
      /*connects=*/false,
      Serve,
      /*takes_args=*/false};
  return command;
}

}  // namespace

int RunServer(int argc, char** argv) { return RunCommand(ServerCommand(), 1, argc, argv); }

}  // namespace etna::cli
