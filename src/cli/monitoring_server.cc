#include "cli/monitoring_server.h"

#include <cstdio>

#include "cli/flags.h"

namespace etna::cli {

Result<std::unique_ptr<MonitoringServer>> MonitoringServer::Start(
    const std::string& listen, metrics::Registry* registry, std::function<std::string()> not_ready,
    std::function<std::string()> describe) {
  net::http::ServerOptions options;
  options.listen = listen;
  options.io_threads = 1;
  options.worker_threads = 2;
  auto handler = [registry, not_ready, describe](const net::http::Request& r) {
    net::http::Response reply;
    reply.content_type = "text/plain; charset=utf-8";
    if (r.method != "GET" && r.method != "HEAD") {
      reply.status = 405;
      reply.body = "only GET\n";
    } else if (r.path == "/metrics") {
      reply.content_type = metrics::kTextContentType;
      reply.body = registry->Render();
    } else if (r.path == "/healthz" || r.path == "/livez") {
      reply.body = "ok";
    } else if (r.path == "/readyz") {
      std::string reason = not_ready();
      reply.status = reason.empty() ? 200 : 503;
      reply.body = reason.empty() ? "ok" : reason;
      // ?verbose, as Kubernetes' /readyz?verbose, adds who leads.
      if (reason.empty() && describe && r.query.count("verbose")) {
        reply.body = "[+]leader-election " + describe() + "\nreadyz check passed";
      }
    } else {
      reply.status = 404;
      reply.body = "not found: serves /metrics, /healthz, /readyz\n";
    }
    return reply;
  };
  std::unique_ptr<MonitoringServer> server(new MonitoringServer());
  server->http_ = std::make_unique<net::http::HttpServer>(options, handler);
  ETNA_RETURN_IF_ERROR(server->http_->Start().WithContext("--listen " + listen));
  return server;
}

std::unique_ptr<MonitoringServer> MonitoringServer::StartOrReport(
    const char* daemon, const std::string& listen, metrics::Registry* registry,
    std::function<std::string()> not_ready, std::function<std::string()> describe) {
  auto server = Start(listen, registry, std::move(not_ready), std::move(describe));
  if (!server.ok()) {
    std::fprintf(stderr, "%s: %s\n", daemon, server.status().ToString().c_str());
    return nullptr;
  }
  std::printf("%s: metrics on http://%s:%u/metrics\n", daemon, HostOf(listen).c_str(),
              static_cast<unsigned>((*server)->port()));
  std::fflush(stdout);
  return std::move(*server);
}

}  // namespace etna::cli
