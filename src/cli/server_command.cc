// `etna server`: the API server with its embedded durable store.
//
//   etna server --data-dir DIR [--listen HOST:PORT] [--tokens-file FILE]
//               [--authorization-file FILE] [--anonymous] [--no-tls]
//
// On first start it makes its CA and serving certificate, an admin token and DIR/kubeconfig;
// it serves until SIGINT or SIGTERM, then shuts down gracefully.
#include <fmt/format.h>
#include <malloc.h>
#include <signal.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "api/http/server.h"
#include "api/server/api_server.h"
#include "api/server/data_dir.h"
#include "store/sqlite_store.h"

namespace etna::cli {
namespace {

struct ServerFlags {
  std::string data_dir;
  std::string listen = "127.0.0.1:6443";
  std::string tokens_file;
  std::string authorization_file;
  bool anonymous = false;
  bool tls = true;
};

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

bool IsLoopbackHost(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "[::1]" || host == "::1";
}

std::string HostOf(const std::string& listen) {
  size_t colon = listen.rfind(':');
  return colon == std::string::npos ? listen : listen.substr(0, colon);
}

}  // namespace

int RunServer(int argc, char** argv) {
  ServerFlags flags;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* dst) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "etna server: %s needs a value\n", a.c_str());
        return false;
      }
      *dst = argv[++i];
      return true;
    };
    if (a == "--data-dir") {
      if (!value(&flags.data_dir)) return 1;
    } else if (a == "--listen") {
      if (!value(&flags.listen)) return 1;
    } else if (a == "--tokens-file") {
      if (!value(&flags.tokens_file)) return 1;
    } else if (a == "--authorization-file") {
      if (!value(&flags.authorization_file)) return 1;
    } else if (a == "--anonymous") {
      flags.anonymous = true;
    } else if (a == "--no-tls") {
      flags.tls = false;
    } else if (a == "-h" || a == "--help") {
      PrintServerHelp(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "etna server: unknown flag \"%s\"\n", a.c_str());
      PrintServerHelp(stderr);
      return 1;
    }
  }
  if (flags.data_dir.empty()) {
    std::fprintf(stderr, "etna server: --data-dir is required\n");
    return 1;
  }
  std::string host = HostOf(flags.listen);
  if ((flags.anonymous || !flags.tls) && !IsLoopbackHost(host)) {
    std::fprintf(stderr,
                 "etna server: --anonymous and --no-tls are allowed only on a loopback "
                 "--listen address, not \"%s\"\n",
                 host.c_str());
    return 1;
  }
  // Large lists build bodies of tens of MB: keep freed memory in the heap for the next one
  // instead of mapping and faulting fresh pages in every time (glibc maps blocks over 32 MB).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  // Signals are taken synchronously below; block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  store::SqliteStoreOptions store_options;
  store_options.data_dir = flags.data_dir;
  auto store = store::SqliteStore::Open(store_options);
  if (!store.ok()) {
    std::fprintf(stderr, "etna server: %s\n", store.status().ToString().c_str());
    return 1;
  }
  // Certificates first (the listener needs them), the kubeconfig once the port is known.
  auto files = api::server::PrepareDataDir(flags.data_dir, host, 0, flags.tls);
  if (!files.ok()) {
    std::fprintf(stderr, "etna server: %s\n", files.status().ToString().c_str());
    return 1;
  }
  // The data dir's own tokens (the admin of DIR/kubeconfig), plus --tokens-file's users.
  std::vector<std::string> token_files = {files->tokens_file};
  if (!flags.tokens_file.empty()) token_files.push_back(flags.tokens_file);
  auto authn = api::server::Authenticator::FromTokensFiles(token_files, flags.anonymous);
  if (!authn.ok()) {
    std::fprintf(stderr, "etna server: %s\n", authn.status().ToString().c_str());
    return 1;
  }
  api::server::Authorizer authz;
  if (!flags.authorization_file.empty()) {
    auto loaded = api::server::Authorizer::FromRulesFile(flags.authorization_file);
    if (!loaded.ok()) {
      std::fprintf(stderr, "etna server: %s\n", loaded.status().ToString().c_str());
      return 1;
    }
    authz = std::move(loaded).value();
  }
  api::server::ApiServerOptions options;
  options.authenticator = &authn.value();
  options.authorizer = &authz;
  options.server_address = flags.listen;
  api::server::ApiServer api(store->get(), options);
  if (Status st = api.Bootstrap(); !st.ok()) {
    std::fprintf(stderr, "etna server: %s\n", st.ToString().c_str());
    return 1;
  }
  api::http::ServerOptions http_options;
  http_options.listen = flags.listen;
  if (flags.tls) http_options.tls = files->certificates.serving;
  api::http::HttpServer http(http_options,
                             [&api](const api::http::Request& r) { return api.Handle(r); });
  if (Status st = http.Start(); !st.ok()) {
    std::fprintf(stderr, "etna server: %s\n", st.ToString().c_str());
    return 1;
  }
  auto final_files = api::server::PrepareDataDir(flags.data_dir, host, http.port(), flags.tls);
  if (!final_files.ok()) {
    std::fprintf(stderr, "etna server: %s\n", final_files.status().ToString().c_str());
    return 1;
  }
  std::printf("etna server: serving %s://%s:%u (data in %s)\n", flags.tls ? "https" : "http",
              host.c_str(), http.port(), flags.data_dir.c_str());
  std::printf("etna server: kubectl --kubeconfig %s get queues\n", final_files->kubeconfig.c_str());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&signals, &sig);
  std::printf("etna server: %s, shutting down\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  std::fflush(stdout);
  http.Stop();
  return 0;
}

}  // namespace etna::cli
