// MonitoringServer: a daemon's /metrics (Prometheus text), /healthz and /readyz over plain HTTP
// on its --listen address, for `etna scheduler` (default :8080, Volcano's --listen-address)
// and `etna controllers` (default :8081). /readyz answers 503 with the reason until ready.
// Thread-safety: the handler runs on the server's threads; `registry` and `not_ready` must be
// safe to call from them.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/metrics.h"
#include "common/status.h"
#include "net/http/server.h"

namespace etna::cli {

class MonitoringServer {
 public:
  // `not_ready` returns "" when ready, else why not ("informers not synced"); `describe`, when
  // given, says more in /readyz?verbose ("[+]leader-election leading (Lease ns/name)").
  static Result<std::unique_ptr<MonitoringServer>> Start(
      const std::string& listen, metrics::Registry* registry,
      std::function<std::string()> not_ready, std::function<std::string()> describe = {});
  uint16_t port() const { return http_->port(); }

  // Start for daemon `daemon` ("etna scheduler"): prints where the metrics are, or the error
  // on stderr and returns null.
  static std::unique_ptr<MonitoringServer> StartOrReport(
      const char* daemon, const std::string& listen, metrics::Registry* registry,
      std::function<std::string()> not_ready, std::function<std::string()> describe = {});

 private:
  std::unique_ptr<net::http::HttpServer> http_;
};

}  // namespace etna::cli
