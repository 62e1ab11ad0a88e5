// `etna server`: the API server with its embedded durable store.
//
//   etna server --data-dir DIR [--listen HOST:PORT] [--tokens-file FILE]
//               [--authorization-file FILE] [--anonymous] [--no-tls]
//
// On first start it makes its CA and serving certificate, an admin token and DIR/kubeconfig;
// it serves until SIGINT or SIGTERM, then shuts down gracefully.
#include <cstdio>
#include <string>

#include "cli/api_runtime.h"
#include "cli/flags.h"

namespace etna::cli {
namespace {

void PrintServerHelp(FILE* out) {
  std::fprintf(out,
               "Usage: etna server --data-dir DIR [--listen HOST:PORT] [flags]\n\n"
               "Runs the Kubernetes-compatible API server with its durable store in DIR.\n"
               "On first start it creates DIR/pki (its own CA and serving certificate),\n"
               "DIR/tokens.csv (an admin token) and DIR/kubeconfig (use it with kubectl).\n\n"
               "Flags:\n"
               "  --data-dir DIR             where the store, certificates and kubeconfig live\n"
               "  --listen HOST:PORT         address to serve on (default 127.0.0.1:6443)\n"
               "  --tokens-file FILE         more bearer tokens: token,user,uid,\"group1,group2\"\n"
               "                             (DIR/tokens.csv, with the admin, is always read)\n"
               "  --authorization-file FILE  read/write rules per user or group, namespace and\n"
               "                             resource (YAML list; see docs/api-server.md)\n"
               "  --anonymous                accept requests without a token (loopback only)\n"
               "  --no-tls                   plain HTTP (loopback only; kubectl then sends no\n"
               "                             token, so combine with --anonymous)\n");
}

}  // namespace

int RunServer(int argc, char** argv) {
  ApiRuntimeOptions flags;
  FlagParser p("etna server", argc, argv);
  while (p.Next()) {
    if (p.Is("--data-dir")) {
      if (!p.Value(&flags.data_dir)) return 1;
    } else if (p.Is("--listen")) {
      if (!p.Value(&flags.listen)) return 1;
    } else if (p.Is("--tokens-file")) {
      if (!p.Value(&flags.tokens_file)) return 1;
    } else if (p.Is("--authorization-file")) {
      if (!p.Value(&flags.authorization_file)) return 1;
    } else if (p.Is("--anonymous")) {
      flags.anonymous = true;
    } else if (p.Is("--no-tls")) {
      flags.tls = false;
    } else if (p.Is("-h") || p.Is("--help")) {
      PrintServerHelp(stdout);
      return 0;
    } else {
      return p.Unknown(PrintServerHelp);
    }
  }
  // Signals are taken synchronously below; block them before any thread starts.
  BlockStopSignals();
  auto runtime = ApiRuntime::Start(flags);
  if (!runtime.ok()) {
    std::fprintf(stderr, "etna server: %s\n", runtime.status().ToString().c_str());
    return 1;
  }
  std::printf("etna server: serving %s (data in %s)\n", (*runtime)->url().c_str(),
              flags.data_dir.c_str());
  std::printf("etna server: kubectl --kubeconfig %s get queues\n",
              (*runtime)->kubeconfig().c_str());
  std::fflush(stdout);
  const char* sig = WaitForStopSignal();
  std::printf("etna server: %s, shutting down\n", sig);
  std::fflush(stdout);
  return 0;
}

}  // namespace etna::cli
