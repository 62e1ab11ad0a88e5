// Where the HorizontalPodAutoscaler reads its metrics: the metrics APIs `etna server` serves
// (api/server/metrics_api.h), as kube-controller-manager's REST metrics client reads
// metrics-server and the custom and external metrics adapters. An interface so the
// controller's tests give values directly.
// Thread-safety: RestHpaMetrics is as thread-safe as its RestClient.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/rest.h"
#include "controllers/hpa_replicas.h"

namespace etna::controllers {

class HpaMetrics {
 public:
  virtual ~HpaMetrics() = default;
  // metrics.k8s.io PodMetrics of the pods `selector` (text form) selects in `ns`: the usage of
  // `resource` (cpu, memory) summed over the containers (or of `container` alone).
  virtual Result<PodMetricValues> PodResource(const std::string& ns, const std::string& selector,
                                              const std::string& resource,
                                              const std::string& container) = 0;
  // custom.metrics.k8s.io pods/*/<metric> of the pods `selector` selects.
  virtual Result<PodMetricValues> PodMetric(const std::string& ns, const std::string& selector,
                                            const std::string& metric) = 0;
  // custom.metrics.k8s.io <kind>/<name>/<metric> of one object.
  virtual Result<int64_t> ObjectMetric(const std::string& ns, const std::string& api_version,
                                       const std::string& kind, const std::string& name,
                                       const std::string& metric) = 0;
  // external.metrics.k8s.io: the values of the items `metric_selector` (text) selects.
  virtual Result<std::vector<int64_t>> ExternalMetric(const std::string& ns,
                                                      const std::string& metric,
                                                      const std::string& metric_selector) = 0;
};

class RestHpaMetrics final : public HpaMetrics {
 public:
  explicit RestHpaMetrics(client::RestClient* rest) : rest_(rest) {}
  Result<PodMetricValues> PodResource(const std::string& ns, const std::string& selector,
                                      const std::string& resource,
                                      const std::string& container) override;
  Result<PodMetricValues> PodMetric(const std::string& ns, const std::string& selector,
                                    const std::string& metric) override;
  Result<int64_t> ObjectMetric(const std::string& ns, const std::string& api_version,
                               const std::string& kind, const std::string& name,
                               const std::string& metric) override;
  Result<std::vector<int64_t>> ExternalMetric(const std::string& ns, const std::string& metric,
                                              const std::string& metric_selector) override;

 private:
  client::RestClient* rest_;
};

}  // namespace etna::controllers
