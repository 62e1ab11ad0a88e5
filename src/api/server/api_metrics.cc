#include "api/server/api_metrics.h"

namespace etna::api::server {
namespace {

// Forwards to the wrapped stream; the gauge counts it open from construction to destruction.
class CountedStream final : public net::http::ResponseStream {
 public:
  CountedStream(std::shared_ptr<net::http::ResponseStream> inner, metrics::GaugeFamily& gauge,
                metrics::LabelValues labels)
      : inner_(std::move(inner)), gauge_(gauge), labels_(std::move(labels)) {
    gauge_.Add(labels_, 1);
  }
  ~CountedStream() override { gauge_.Add(labels_, -1); }
  void Start(std::function<void()> wake) override { inner_->Start(std::move(wake)); }
  std::string Read(bool* done) override { return inner_->Read(done); }
  void Cancel() override { inner_->Cancel(); }

 private:
  std::shared_ptr<net::http::ResponseStream> inner_;
  metrics::GaugeFamily& gauge_;
  metrics::LabelValues labels_;
};

// Kubernetes' apiserver_request_duration_seconds buckets.
const std::vector<double> kLatencyBuckets = {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8,
                                             1,     1.25,  1.5,  2,   3,   4,   5,   6,
                                             8,     10,    15,   20,  30,  45,  60};

}  // namespace

ApiMetrics::ApiMetrics(metrics::Registry* registry)
    : registry_(registry),
      requests_(registry->Counter(
          "apiserver_request_total",
          "Counter of apiserver requests broken out for each verb, resource, subresource and "
          "HTTP response code.",
          {"verb", "resource", "subresource", "code"})),
      latency_(registry->Histogram(
          "apiserver_request_duration_seconds",
          "Response latency distribution in seconds for each verb and resource.",
          {"verb", "resource"}, kLatencyBuckets)),
      open_watches_(registry->Gauge("apiserver_longrunning_requests",
                                    "Gauge of all active long-running apiserver requests (watch "
                                    "streams) broken out by verb and resource.",
                                    {"verb", "resource"})),
      commit_latency_(
          registry->Histogram("etna_store_commit_duration_seconds",
                              "Time of one group commit of the store, fsync included, in seconds.",
                              {}, metrics::ExponentialBuckets(0.0005, 2, 14))),
      commit_writes_(registry->Histogram("etna_store_commit_writes",
                                         "Writes grouped into one commit of the store.", {},
                                         metrics::ExponentialBuckets(1, 2, 12))),
      revision_(registry->Gauge("etna_store_revision",
                                "The store's current revision (every object's resourceVersion "
                                "comes from it).")) {}

void ApiMetrics::ObserveRequest(const RequestLabels& labels, int code, double seconds) {
  // The method comes from the client: any other than these counts as OTHER, so that requests
  // cannot add series at will.
  static const char* const kVerbs[] = {"GET",   "LIST",   "WATCH", "POST",   "PUT",
                                       "PATCH", "DELETE", "HEAD",  "OPTIONS"};
  std::string verb = "OTHER";
  for (const char* v : kVerbs) {
    if (labels.verb == v) verb = v;
  }
  requests_.Add({verb, labels.resource, labels.subresource, std::to_string(code)});
  if (verb != "WATCH") latency_.Observe({verb, labels.resource}, seconds);
}

std::shared_ptr<net::http::ResponseStream> ApiMetrics::CountOpenWatch(
    std::shared_ptr<net::http::ResponseStream> stream, const std::string& resource) {
  return std::make_shared<CountedStream>(std::move(stream), open_watches_,
                                         metrics::LabelValues{"WATCH", resource});
}

void ApiMetrics::ObserveCommit(size_t writes, double seconds, int64_t revision) {
  commit_latency_.Observe({}, seconds);
  commit_writes_.Observe({}, static_cast<double>(writes));
  revision_.Set({}, static_cast<double>(revision));
}

}  // namespace etna::api::server
