// ApiMetrics: the API server's metrics under Kubernetes' names — requests by verb, resource,
// subresource and code, their latency, the open watch streams — and the store's group commits
// (docs/monitoring.md). Verbs are Kubernetes' metric verbs: GET, LIST, WATCH, POST, PUT, PATCH,
// DELETE (the HTTP method, with GET split into GET, LIST and WATCH).
// Thread-safety: every method may be called from any thread.
#pragma once

#include <memory>
#include <string>

#include "common/metrics.h"
#include "net/http/message.h"

namespace etna::api::server {

// What a request is counted under.
struct RequestLabels {
  std::string verb;         // "GET", "LIST", "WATCH", "POST", ...
  std::string resource;     // plural, e.g. "pods", "jobs"; "" for non-resource paths
  std::string subresource;  // "status", "log", ...
};

class ApiMetrics {
 public:
  // Declares the families in `registry`, which must outlive this object.
  explicit ApiMetrics(metrics::Registry* registry);

  // A finished request (a watch is counted when its stream starts; its latency is not observed).
  void ObserveRequest(const RequestLabels& labels, int code, double seconds);
  // Wraps a watch's stream so that it counts as open until the transport releases it.
  std::shared_ptr<net::http::ResponseStream> CountOpenWatch(
      std::shared_ptr<net::http::ResponseStream> stream, const std::string& resource);
  // One group commit of `writes` writes, fsync included, that made `revision` current.
  void ObserveCommit(size_t writes, double seconds, int64_t revision);

  metrics::Registry& registry() { return *registry_; }

 private:
  metrics::Registry* registry_;
  metrics::CounterFamily& requests_;
  metrics::HistogramFamily& latency_;
  metrics::GaugeFamily& open_watches_;
  metrics::HistogramFamily& commit_latency_;
  metrics::HistogramFamily& commit_writes_;
  metrics::GaugeFamily& revision_;
};

}  // namespace etna::api::server
