#include "cli/api_runtime.h"

#include <fmt/format.h>
#include <malloc.h>

#include "api/types/well_known.h"
#include "cli/flags.h"
#include "common/file.h"
#include "store/etcd/etcd_store.h"
#include "store/keys.h"

namespace etna::cli {
namespace {

bool IsLoopbackHost(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "[::1]" || host == "::1";
}

}  // namespace

Result<std::unique_ptr<ApiRuntime>> ApiRuntime::Start(const ApiRuntimeOptions& options) {
  if (options.data_dir.empty()) return Status::InvalidArgument("--data-dir is required");
  std::unique_ptr<ApiRuntime> rt(new ApiRuntime());
  rt->options_ = options;
  rt->host_ = HostOf(options.listen);
  if ((options.anonymous || !options.tls) && !IsLoopbackHost(rt->host_)) {
    return Status::InvalidArgument(
        fmt::format("--anonymous and --no-tls are allowed only on a loopback --listen address, "
                    "not \"{}\"",
                    rt->host_));
  }
  // Large lists build bodies of tens of MB: keep freed memory in the heap for the next one
  // instead of mapping and faulting fresh pages in every time (glibc maps blocks over 32 MB).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);

  rt->metrics_ = std::make_unique<api::server::ApiMetrics>(options.metrics ? options.metrics
                                                                           : &rt->own_registry_);
  if (Status st = rt->OpenStore(); !st.ok()) return st;
  store::Store* served =
      rt->cache_ ? static_cast<store::Store*>(rt->cache_.get()) : rt->store_.get();
  // Certificates first (the listener needs them), the kubeconfig once the port is known.
  auto files = api::server::PrepareDataDir(options.data_dir, rt->host_, 0, options.tls);
  if (!files.ok()) return files.status();
  // The data dir's own tokens (the admin of DIR/kubeconfig), plus --tokens-file's users.
  std::vector<std::string> token_files = {files->tokens_file};
  if (!options.tokens_file.empty()) token_files.push_back(options.tokens_file);
  auto authn = api::server::Authenticator::FromTokensFiles(token_files, options.anonymous);
  if (!authn.ok()) return authn.status();
  rt->authn_ = std::make_unique<api::server::Authenticator>(std::move(*authn));
  if (!options.authorization_file.empty()) {
    auto loaded = api::server::Authorizer::FromRulesFile(options.authorization_file);
    if (!loaded.ok()) return loaded.status();
    rt->authz_ = std::move(loaded).value();
  }
  auto sa_tokens = api::server::ServiceAccountTokens::FromKeyFile(files->service_account_key_file);
  if (!sa_tokens.ok()) return sa_tokens.status();
  rt->sa_tokens_ = std::make_unique<api::server::ServiceAccountTokens>(std::move(*sa_tokens));
  api::server::ApiServerOptions api_options;
  api_options.authenticator = rt->authn_.get();
  api_options.service_account_tokens = rt->sa_tokens_.get();
  api_options.authorizer = &rt->authz_;
  api_options.server_address = options.listen;
  api_options.metrics = rt->metrics_.get();
  api_options.prometheus_url = options.prometheus_url;
  if (options.prometheus_url.empty()) {  // else the history is Prometheus': no samples to keep
    rt->history_ = std::make_unique<api::server::UsageHistory>();
    api_options.usage_history = rt->history_.get();
  }
  if (!options.metric_rules_file.empty()) {
    auto text = ReadFile(options.metric_rules_file);
    if (!text.ok()) {
      return Status::InvalidArgument(fmt::format("--metric-rules: {}", text.status().message()));
    }
    auto rules = api::server::MetricRules::Parse(*text);
    if (!rules.ok()) {
      return Status::InvalidArgument(fmt::format("--metric-rules {}: {}", options.metric_rules_file,
                                                 rules.status().message()));
    }
    api_options.metric_rules = std::move(rules).value();
  }
  rt->api_ = std::make_unique<api::server::ApiServer>(served, api_options);
  if (Status st = rt->api_->Bootstrap(); !st.ok()) return st;
  if (rt->history_) {
    rt->history_->StartSampling(options.usage_sample_period,
                                [api = rt->api_.get()] { return api->SampleUsage(); });
  }
  if (options.accounting_retention.count() > 0) {
    rt->retention_ = std::make_unique<api::server::PodRunRetention>(
        &rt->api_->objects(), &rt->clock_, options.accounting_retention);
    rt->retention_->Start(std::chrono::hours(1));
  }
  net::http::ServerOptions http_options;
  http_options.listen = options.listen;
  if (options.tls) http_options.tls = files->certificates.serving;
  api::server::ApiServer* api = rt->api_.get();
  http_options.screen_large_body = [api](const net::http::Request& head) {
    return api->ScreenLargeBody(head);
  };
  rt->http_ = std::make_unique<net::http::HttpServer>(
      http_options, [api](const net::http::Request& r) { return api->Handle(r); });
  if (Status st = rt->http_->Start(); !st.ok()) return st;
  auto final_files =
      api::server::PrepareDataDir(options.data_dir, rt->host_, rt->http_->port(), options.tls);
  if (!final_files.ok()) return final_files.status();
  rt->files_ = std::move(*final_files);
  return rt;
}

Status ApiRuntime::OpenStore() {
  if (!options_.etcd_servers.empty()) {
    store::EtcdStoreOptions o;
    o.client.endpoints = options_.etcd_servers;
    o.client.ca_file = options_.etcd_ca_file;
    o.client.cert_file = options_.etcd_cert_file;
    o.client.key_file = options_.etcd_key_file;
    o.prefix = options_.etcd_prefix;
    o.compaction_interval = options_.etcd_compaction_interval;
    auto etcd = store::EtcdStore::Open(o);
    if (!etcd.ok()) return etcd.status();
    store_ = std::move(*etcd);
  } else {
    store::SqliteStoreOptions o;
    o.data_dir = options_.data_dir;
    // Every agent lists the pods of each job it starts a pod of (their host names): one index
    // lookup instead of a scan of the namespace's pods.
    o.label_indexes = {{store::ResourcePrefix("pods"), api::types::kJobNameLabel}};
    o.after_commit = [m = metrics_.get()](size_t writes, double seconds, store::Revision revision) {
      m->ObserveCommit(writes, seconds, revision);
    };
    auto sqlite = store::SqliteStore::Open(o);
    if (!sqlite.ok()) return sqlite.status();
    store_ = std::move(*sqlite);
  }
  // On etcd every server keeps its own cache fed by one etcd watch, as kube-apiserver does.
  if (options_.watch_cache || !options_.etcd_servers.empty()) {
    auto cache = store::CachedStore::Open(store_.get());
    if (!cache.ok()) return cache.status().WithContext("--watch-cache");
    cache_ = std::move(*cache);
  }
  return Status::Ok();
}

ApiRuntime::~ApiRuntime() {
  if (http_) http_->Stop();
}

std::string ApiRuntime::url() const {
  return fmt::format("{}://{}:{}", options_.tls ? "https" : "http", host_, http_->port());
}

client::TransportFactory ApiRuntime::InProcessTransports() {
  api::server::ApiServer* api = api_.get();
  std::string token = files_.admin_token;
  return [api, token] {
    return client::MakeInProcessTransport(
        [api](const net::http::Request& r) { return api->Handle(r); }, token);
  };
}

}  // namespace etna::cli
