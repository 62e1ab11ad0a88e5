#include "net/http/prometheus.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/strings.h"
#include "net/http/client.h"

namespace etna::net::http {

using nlohmann::json;

namespace {

// A sample's [time, "value"] pair's value.
Result<double> SampleValue(const json& sample, const PrometheusQuery& q) {
  if (!sample.is_array() || sample.size() != 2 || !sample[1].is_string()) {
    return Status::InvalidArgument(
        fmt::format("prometheus query \"{}\" returned a sample without a value", q.query));
  }
  const std::string text = sample[1].get<std::string>();
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || std::isnan(value) || std::isinf(value)) {
    return Status::InvalidArgument(
        fmt::format("prometheus query \"{}\" returned {}, not a number", q.query, text));
  }
  return value;
}

// The "data" of a successful answer.
Result<json> AnswerData(const std::string& body, const PrometheusQuery& q) {
  json answer = json::parse(body, nullptr, false);
  if (!answer.is_object()) {
    return Status::Unavailable(
        fmt::format("prometheus at {} answered something that is not JSON", q.server_address));
  }
  if (answer.value("status", "") != "success") {
    return Status::InvalidArgument(fmt::format("prometheus query \"{}\" failed: {}: {}", q.query,
                                               answer.value("errorType", "error"),
                                               answer.value("error", "")));
  }
  return answer.value("data", json::object());
}

std::map<std::string, std::string> Labels(const json& series) {
  std::map<std::string, std::string> out;
  const json metric = series.value("metric", json::object());
  for (const auto& [k, v] : metric.items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

}  // namespace

Result<std::vector<PrometheusSeries>> PrometheusMatrix(const std::string& body,
                                                       const PrometheusQuery& q) {
  ETNA_ASSIGN_OR_RETURN(json data, AnswerData(body, q));
  const json& result = data.value("result", json());
  if (data.value("resultType", "") != "matrix" || !result.is_array()) {
    return Status::InvalidArgument(
        fmt::format("prometheus range query \"{}\" returned a {}, not a matrix", q.query,
                    data.value("resultType", "")));
  }
  std::vector<PrometheusSeries> out;
  for (const json& series : result) {
    PrometheusSeries s;
    s.labels = Labels(series);
    for (const json& point : series.value("values", json::array())) {
      ETNA_ASSIGN_OR_RETURN(double v, SampleValue(point, q));
      if (!point[0].is_number()) {
        return Status::InvalidArgument(
            fmt::format("prometheus range query \"{}\" returned a point without a time", q.query));
      }
      s.points.emplace_back(point[0].get<double>(), v);
    }
    out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<PrometheusSample>> PrometheusSamples(const std::string& body,
                                                        const PrometheusQuery& q) {
  ETNA_ASSIGN_OR_RETURN(json data, AnswerData(body, q));
  const std::string type = data.value("resultType", "");
  const json& result = data.value("result", json());
  std::vector<PrometheusSample> out;
  if (type == "scalar") {
    ETNA_ASSIGN_OR_RETURN(double v, SampleValue(result, q));
    out.push_back({{}, v});
    return out;
  }
  if (type != "vector") {
    return Status::InvalidArgument(
        fmt::format("prometheus query \"{}\" returned a {}: it must return a vector or a scalar",
                    q.query, type));
  }
  if (!result.is_array()) {
    return Status::InvalidArgument(
        fmt::format("prometheus query \"{}\" returned a vector that is not a list", q.query));
  }
  for (const json& series : result) {
    PrometheusSample sample;
    sample.labels = Labels(series);
    ETNA_ASSIGN_OR_RETURN(sample.value, SampleValue(series.value("value", json()), q));
    out.push_back(std::move(sample));
  }
  return out;
}

Result<double> PrometheusValue(const std::string& body, const PrometheusQuery& q) {
  ETNA_ASSIGN_OR_RETURN(auto samples, PrometheusSamples(body, q));
  if (samples.empty()) {
    if (q.ignore_null_values) return 0.0;
    return Status::NotFound(fmt::format(
        "prometheus query \"{}\" returned no series (ignoreNullValues is false)", q.query));
  }
  if (samples.size() > 1) {
    return Status::InvalidArgument(fmt::format(
        "prometheus query \"{}\" returned {} elements; it must return one (aggregate it, "
        "e.g. with avg() or sum())",
        q.query, samples.size()));
  }
  return samples[0].value;
}

Result<std::string> QueryPrometheus(const PrometheusQuery& q) {
  std::string address = q.server_address;
  ClientOptions o;
  o.timeout = std::chrono::seconds(5);
  if (address.rfind("https://", 0) == 0) {
    address = address.substr(8);
  } else if (address.rfind("http://", 0) == 0) {
    o.tls = false;
    address = address.substr(7);
  } else {
    return Status::InvalidArgument(
        fmt::format("serverAddress \"{}\": must start with http:// or https://", q.server_address));
  }
  size_t slash = address.find('/');
  std::string prefix = slash == std::string::npos ? "" : address.substr(slash);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  std::string host_port = address.substr(0, slash);
  size_t colon = host_port.rfind(':');
  o.host = host_port.substr(0, colon);
  int port = o.tls ? 443 : 80;
  if (colon != std::string::npos) port = std::atoi(host_port.c_str() + colon + 1);
  if (o.host.empty() || port <= 0 || port > 65535) {
    return Status::InvalidArgument(
        fmt::format("serverAddress \"{}\": no host and port", q.server_address));
  }
  o.port = static_cast<uint16_t>(port);
  std::string target = prefix + (q.range ? "/api/v1/query_range" : "/api/v1/query") +
                       "?query=" + QueryEscape(q.query);
  if (q.range) {
    target +=
        fmt::format("&start={}&end={}&step={}", q.range->start_s, q.range->end_s, q.range->step_s);
  }
  if (!q.ns.empty()) target += "&namespace=" + QueryEscape(q.ns);
  HttpClient http(o);
  auto reply = http.Do("GET", target);
  if (!reply.ok()) {
    return Status::Unavailable(fmt::format("prometheus at {} is unreachable: {}", q.server_address,
                                           reply.status().message()));
  }
  if (reply->status != 200 && reply->status != 400 && reply->status != 422) {
    return Status::Unavailable(
        fmt::format("prometheus at {} answered HTTP {}", q.server_address, reply->status));
  }
  return reply->body;
}

}  // namespace etna::net::http
