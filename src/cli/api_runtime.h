// ApiRuntime: the API server as `etna server` and `etna dev` run it — the SQLite store in the
// data dir (behind its watch cache with --watch-cache) or, with --etcd-servers, the etcd store
// (always behind its watch cache, as kube-apiserver runs), its certificates, tokens and kubeconfig,
// authentication and authorization, the REST engine and the HTTP(S) listener — started in one call
// and stopped by destruction.
// Thread-safety: Start from one thread; api() and transports are safe from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "api/server/api_metrics.h"
#include "api/server/api_server.h"
#include "api/server/data_dir.h"
#include "api/server/pod_run_retention.h"
#include "api/server/usage_history.h"
#include "client/transport.h"
#include "common/status.h"
#include "net/http/server.h"
#include "store/cached_store.h"
#include "store/sqlite_store.h"

namespace etna::cli {

struct ApiRuntimeOptions {
  std::string data_dir;
  std::string listen = "127.0.0.1:6443";
  std::string tokens_file;
  std::string authorization_file;
  bool anonymous = false;
  bool tls = true;
  // A file of operator-defined external metrics (api/server/metric_rules.h); "" for none.
  std::string metric_rules_file;
  // Gets and lists from memory, kept by one watch of the store (kube-apiserver's --watch-cache).
  // Off by default on SQLite: measured, it costs more server CPU than it saves
  // (docs/api-server.md).
  bool watch_cache = false;
  // --etcd-servers and friends: objects in etcd instead of DIR's SQLite file (docs/ha.md).
  std::vector<std::string> etcd_servers;
  std::string etcd_ca_file, etcd_cert_file, etcd_key_file;
  std::string etcd_prefix = "/registry";
  std::chrono::seconds etcd_compaction_interval{300};
  // How often the server samples each queue's allocated GPUs for the dashboard's "over time"
  // chart (api/server/usage_history.h).
  std::chrono::milliseconds usage_sample_period{60000};
  // --accounting-retention: how long PodRun records are kept after their run ended (0: always).
  std::chrono::milliseconds accounting_retention{api::server::PodRunRetention::kDefaultRetention};
  // --prometheus-url: the dashboard's history from this Prometheus; "": the server's samples.
  std::string prometheus_url;
  // The registry /metrics renders (`etna dev` shares one with its scheduler and controllers);
  // null: the runtime's own.
  metrics::Registry* metrics = nullptr;
};

class ApiRuntime {
 public:
  // Checks the flags' combination, opens the store and starts serving.
  static Result<std::unique_ptr<ApiRuntime>> Start(const ApiRuntimeOptions& options);
  ~ApiRuntime();

  api::server::ApiServer& api() { return *api_; }
  uint16_t port() const { return http_->port(); }
  const std::string& kubeconfig() const { return files_.kubeconfig; }
  std::string url() const;
  // Transports that call the REST engine directly as the data dir's admin (for `etna dev`).
  client::TransportFactory InProcessTransports();

 private:
  ApiRuntime() = default;

  ApiRuntimeOptions options_;
  std::string host_;
  metrics::Registry own_registry_;
  std::unique_ptr<api::server::ApiMetrics> metrics_;
  // Opens the SQLite or etcd store into store_ (and cache_).
  Status OpenStore();

  std::unique_ptr<store::Store> store_;        // SqliteStore, or EtcdStore with --etcd-servers
  std::unique_ptr<store::CachedStore> cache_;  // in front of store_ with --watch-cache or etcd
  api::server::DataDirFiles files_;
  std::unique_ptr<api::server::Authenticator> authn_;
  std::unique_ptr<api::server::ServiceAccountTokens> sa_tokens_;
  api::server::Authorizer authz_;
  std::unique_ptr<api::server::ApiServer> api_;
  std::unique_ptr<net::http::HttpServer> http_;
  // Last: its sampler reads through api_, so it stops first.
  std::unique_ptr<api::server::UsageHistory> history_;
  SystemClock clock_;
  std::unique_ptr<api::server::PodRunRetention> retention_;
};

}  // namespace etna::cli
