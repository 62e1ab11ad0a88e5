// MetricRules: the operator-defined external metrics `etna server --metric-rules FILE` serves, in
// the spirit of prometheus-adapter's external rules. The file (YAML) names a Prometheus and, per
// metric, a PromQL query template:
//
//   prometheus: http://127.0.0.1:9090
//   externalRules:
//   - name: inference_queue_depth
//     query: sum(queue_depth{<<.LabelMatchers>>}) by (deployment)
//
// A GET of external.metrics.k8s.io/v1beta1/namespaces/<ns>/<name>?labelSelector=... runs the
// query with <<.LabelMatchers>> replaced by the namespace and the selector as PromQL matchers
// (namespace="<ns>",app="bert",tier=~"a|b"); each series of the answer is one item, its labels
// the item's metricLabels. A rule may not take a built-in metric's name.
// Thread-safety: immutable after Parse; the free functions are pure.
#pragma once

#include <string>
#include <vector>

#include "api/codec/selectors.h"
#include "common/status.h"

namespace etna::api::server {

struct ExternalMetricRule {
  std::string name;
  std::string query;  // PromQL with <<.LabelMatchers>>
};

struct MetricRules {
  std::string prometheus;  // "http(s)://host:port[/prefix]"
  std::vector<ExternalMetricRule> external;

  // Parses the file's text; an error names the field and the problem.
  static Result<MetricRules> Parse(const std::string& yaml);
  const ExternalMetricRule* Find(const std::string& name) const;
};

// `namespace="<ns>"` and `selector` as PromQL label matchers; a key that is not a Prometheus
// label name, or a Gt/Lt requirement, is an error naming it.
Result<std::string> PromLabelMatchers(const std::string& ns, const codec::LabelSelector& selector);
// `query` with every <<.LabelMatchers>> replaced by `matchers`.
std::string ExpandRuleQuery(const std::string& query, const std::string& matchers);

}  // namespace etna::api::server
