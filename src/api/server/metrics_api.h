// The metrics APIs, served by `etna server` itself from the agents' usage summaries
// (agent_summaries.h) where Kubernetes runs metrics-server, prometheus-adapter or KEDA behind
// aggregated APIs:
//   metrics.k8s.io/v1beta1      nodes[/<name>], [namespaces/<ns>/]pods[/<name>]: NodeMetrics and
//                               PodMetrics (CPU and memory), for `kubectl top` and HPA Resource
//                               metrics; labelSelector is honoured
//   custom.metrics.k8s.io/v1beta1|v1beta2
//                               namespaces/<ns>/pods/<name|*>/<metric>: a MetricValueList, one
//                               item per pod (labelSelector for *); namespaces/<ns>/<workload>/
//                               <name>/<metric> (deployments, replicasets, statefulsets,
//                               daemonsets, with or without ".apps"): one item, the average over
//                               the pods the workload's selector selects (HPA Object metrics)
//   external.metrics.k8s.io/v1beta1
//                               namespaces/<ns>/<metric>?labelSelector=: an
//                               ExternalMetricValueList, one item per selected pod
// The metric names are api/types/pod_metrics.h's. A pod's metric labels — what an external
// selector matches and what each item's metricLabels shows — are its own labels plus
// `namespace`, `pod`, and the workloads that own it: `replicaset`, `deployment` (through its
// ReplicaSet), `daemonset`, `statefulset`, `job`. So the seed's selector
// `deployment: bert-inference-service` selects that Deployment's pods.
// An external metric selected by `scaledobject.keda.sh/name=<so>` is a KEDA trigger's: its value
// is the one the ScaledObject controller last read and wrote in the ScaledObject's
// status.metricValues (a failed trigger is 503 with the Prometheus error).
// An external metric an operator defined (metric_rules.h, `--metric-rules`) is answered from its
// Prometheus query: one item per series, a failed query 503 with Prometheus' message.
// Only running pods bound to a node whose agent answered count; the others have no reading
// and are left out, as metrics-server leaves them out. An unknown metric is 404 naming it.
// Thread-safety: Handle may be called concurrently.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/codec/selectors.h"
#include "api/server/agent_summaries.h"
#include "api/server/metric_rules.h"
#include "api/server/object_service.h"
#include "api/server/prefix_cache.h"
#include "api/server/request_info.h"
#include "net/http/message.h"
#include "net/http/prometheus.h"

namespace etna::api::server {

// Runs a Prometheus query and returns its answer's body (net/http/prometheus.h over HTTP; a
// test's fake).
using PrometheusFetcher = std::function<Result<std::string>(const net::http::PrometheusQuery&)>;

// Whether `group` is one of the metrics groups MetricsApi serves.
bool IsMetricsGroup(const std::string& group);

class MetricsApi {
 public:
  // Pods and ReplicaSets read for a namespace are reused for `max_age_ms`, as the agents'
  // summaries are: an HPA pass over many HPAs of one namespace reads them once.
  // `rules`: the operator's external metrics; `fetch` empty: over HTTP.
  MetricsApi(ObjectService* objects, AgentSummaries* summaries, const Clock* clock,
             TimeMs max_age_ms = 1000, MetricRules rules = {}, PrometheusFetcher fetch = {});
  // A GET the server has authenticated and authorized.
  net::http::Response Handle(const net::http::Request& request, const RequestInfo& ri);

 private:
  // A running pod with its reading.
  struct PodReading {
    nlohmann::json pod;
    nlohmann::json summary;  // the pod's entry in its node's summary
    nlohmann::json labels;   // its metric labels
  };
  // The running pods of `ns` ("" for all) that `pod_labels` (their own labels) and
  // `metric_labels` (their metric labels) select (null: all), with a reading.
  std::vector<PodReading> Readings(const std::string& ns, const codec::LabelSelector* pod_labels,
                                   const codec::LabelSelector* metric_labels);
  net::http::Response NodeMetrics(const net::http::Request& request, const RequestInfo& ri);
  net::http::Response PodMetrics(const net::http::Request& request, const RequestInfo& ri);
  net::http::Response CustomMetrics(const net::http::Request& request, const RequestInfo& ri);
  net::http::Response ExternalMetrics(const net::http::Request& request, const RequestInfo& ri);
  net::http::Response ScaledObjectMetric(const std::string& ns, const std::string& name,
                                         const std::string& metric);
  net::http::Response RuleMetric(const std::string& ns, const codec::LabelSelector& selector,
                                 const ExternalMetricRule& rule);

  // A namespace's running pods with their metric labels, read at `at`.
  struct NamespaceObjects {
    TimeMs at = 0;
    std::vector<nlohmann::json> pods;                          // Running and bound
    std::vector<nlohmann::json> labels;                        // each pod's metric labels
    std::map<std::string, std::vector<size_t>> by_deployment;  // pods by `deployment` label
  };
  std::shared_ptr<const NamespaceObjects> ObjectsOf(const std::string& ns);

  ObjectService* objects_;
  AgentSummaries* summaries_;
  const Clock* clock_;
  TimeMs max_age_ms_;
  MetricRules rules_;
  PrometheusFetcher fetch_;
  PrefixCache pods_;  // every pod, kept current from the store's watch
  PrefixCache replica_sets_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const NamespaceObjects>> namespaces_;
};

}  // namespace etna::api::server
