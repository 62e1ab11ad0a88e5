// Instant and range queries against a Prometheus HTTP API (GET <server>/api/v1/query?query=...,
// /api/v1/query_range for the dashboard's history): the
// answer's samples (a vector's series with their labels, or a scalar), and KEDA's reading of
// them as one value (a one-element vector or a scalar; an empty vector is 0 when
// `ignore_null_values`, KEDA's default, and an error otherwise; several elements are an error).
// NaN, infinities and error answers are errors that quote Prometheus. Used by the KEDA
// ScaledObject controller and by the API server's operator-defined external metrics.
// Thread-safety: pure functions; each query on a fresh connection.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace etna::net::http {

// A range query's window (GET <server>/api/v1/query_range): Unix seconds and the step.
struct PrometheusRange {
  int64_t start_s = 0;
  int64_t end_s = 0;
  int64_t step_s = 60;
};

struct PrometheusQuery {
  std::string server_address;  // "http://host:9090[/prefix]"
  std::string query;
  std::string ns;  // KEDA's `namespace` metadata: sent as ?namespace= (tenancy proxies)
  bool ignore_null_values = true;
  std::optional<PrometheusRange> range;  // set: a range query, answered with a matrix
};

struct PrometheusSample {
  std::map<std::string, std::string> labels;  // the series' labels ({} for a scalar)
  double value = 0;
};

// One series of a range query's answer: its labels and its (Unix seconds, value) points.
struct PrometheusSeries {
  std::map<std::string, std::string> labels;
  std::vector<std::pair<double, double>> points;
};

// The series of a /api/v1/query_range answer `body` (a matrix).
Result<std::vector<PrometheusSeries>> PrometheusMatrix(const std::string& body,
                                                       const PrometheusQuery& query);
// The samples of a /api/v1/query answer `body`.
Result<std::vector<PrometheusSample>> PrometheusSamples(const std::string& body,
                                                        const PrometheusQuery& query);
// KEDA's one value of a /api/v1/query answer `body`.
Result<double> PrometheusValue(const std::string& body, const PrometheusQuery& query);
// Runs the query over HTTP(S), with a 5 s timeout; the answer's body.
Result<std::string> QueryPrometheus(const PrometheusQuery& query);

}  // namespace etna::net::http
