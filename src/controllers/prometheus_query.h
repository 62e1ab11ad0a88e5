// An instant query against a Prometheus HTTP API (GET <serverAddress>/api/v1/query?query=...),
// as KEDA's prometheus scaler makes it: the value of a one-element vector or a scalar; an empty
// vector is 0 when `ignore_null_values` (KEDA's default) and an error otherwise; several
// elements, NaN, or an error answer are errors that quote Prometheus.
// Thread-safety: a pure function over a fresh connection.
#pragma once

#include <string>

#include "common/status.h"

namespace etna::controllers {

struct PrometheusQuery {
  std::string server_address;  // "http://host:9090[/prefix]"
  std::string query;
  std::string ns;  // KEDA's `namespace` metadata: sent as ?namespace= (tenancy proxies)
  bool ignore_null_values = true;
};

class TriggerSource {
 public:
  virtual ~TriggerSource() = default;
  virtual Result<double> Query(const PrometheusQuery& query) = 0;
};

// Over HTTP(S), with a 5 s timeout.
class HttpPrometheus final : public TriggerSource {
 public:
  Result<double> Query(const PrometheusQuery& query) override;
};

// The value of a /api/v1/query answer `body`.
Result<double> PrometheusValue(const std::string& body, const PrometheusQuery& query);

}  // namespace etna::controllers
