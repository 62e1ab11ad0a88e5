// Operator-defined external metrics: the rules file's checks, a label selector as PromQL
// matchers, and the external metrics API answering from a (fake) Prometheus.
#include "api/server/metric_rules.h"

#include <gtest/gtest.h>

#include "api/server/server_test_kit.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr char kRules[] = R"(
prometheus: http://prom:9090
externalRules:
- name: inference_queue_depth
  query: sum by (deployment) (queue_depth{<<.LabelMatchers>>})
)";

TEST(MetricRules, ParsesAndRefusesByField) {
  auto rules = MetricRules::Parse(kRules);
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  ASSERT_NE(rules->Find("inference_queue_depth"), nullptr);
  EXPECT_EQ(rules->prometheus, "http://prom:9090");
  auto error = [](const std::string& text) { return MetricRules::Parse(text).status().message(); };
  EXPECT_EQ(error("externalRules: [{name: x, query: up}]"),
            "metric rules: prometheus: required when externalRules query it");
  EXPECT_EQ(error("prometheus: prom:9090"),
            "metric rules: prometheus: \"prom:9090\" must start with http:// or https://");
  EXPECT_EQ(error("prometheus: http://p\nexternalRules: [{name: gpu_utilization_avg, query: up}]"),
            "metric rules: externalRules[0].name: \"gpu_utilization_avg\" is a built-in per-pod "
            "metric; choose another name");
  EXPECT_EQ(error("prometheus: http://p\nexternalRules: [{name: a-b, query: up}]"),
            "metric rules: externalRules[0].name: \"a-b\" is not a metric name "
            "([a-zA-Z_:][a-zA-Z0-9_:]*)");
  EXPECT_EQ(error("prometheus: http://p\nexternalRules: [{name: a, query: up, seriesQuery: x}]"),
            "metric rules: externalRules[0]: unknown field \"seriesQuery\" (known: name, query)");
  EXPECT_EQ(error("prometheus: http://p\nexternalRules: [{name: a}]"),
            "metric rules: externalRules[0].query: required");
  EXPECT_EQ(error("rules: []"),
            "metric rules: unknown field \"rules\" (known: prometheus, externalRules)");
}

TEST(MetricRules, SelectorsBecomePromQlMatchers) {
  auto selector =
      codec::LabelSelector::Parse("deployment=bert,tier in (a.b,c),!canary,zone,env!=dev");
  ASSERT_TRUE(selector.ok());
  auto m = PromLabelMatchers("inference", *selector);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(
      *m,
      R"(namespace="inference",deployment="bert",tier=~"a\\.b|c",canary="",zone!="",env!="dev")");
  EXPECT_EQ(ExpandRuleQuery("sum(x{<<.LabelMatchers>>}) / sum(y{<<.LabelMatchers>>})", "a=\"1\""),
            "sum(x{a=\"1\"}) / sum(y{a=\"1\"})");
  auto bad = codec::LabelSelector::Parse("app.kubernetes.io/name=x");
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(PromLabelMatchers("ns", *bad).status().message(),
            "labelSelector: \"app.kubernetes.io/name\" is not a Prometheus label name "
            "([a-zA-Z_][a-zA-Z0-9_]*)");
}

class MetricRulesApiTest : public testing::ServerTest {
 protected:
  void SetUp() override { MakeServer(*MetricRules::Parse(kRules)); }
};

TEST_F(MetricRulesApiTest, ExternalMetricFromThePrometheusQueryOneItemPerSeries) {
  std::string asked;
  prometheus_fetcher_ = [&](const net::http::PrometheusQuery& q) -> Result<std::string> {
    asked = q.server_address + " " + q.query;
    return std::string(R"({"status":"success","data":{"resultType":"vector","result":[
        {"metric":{"deployment":"bert"},"value":[1.7e9,"12.5"]},
        {"metric":{"deployment":"gpt"},"value":[1.7e9,"3"]}]}})");
  };
  auto r = Do("GET",
              "/apis/external.metrics.k8s.io/v1beta1/namespaces/inference/inference_queue_depth"
              "?labelSelector=tier%3Dfront");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(asked,
            "http://prom:9090 sum by (deployment) "
            "(queue_depth{namespace=\"inference\",tier=\"front\"})");
  json items = r.Json()["items"];
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0]["metricName"], "inference_queue_depth");
  EXPECT_EQ(items[0]["metricLabels"], json({{"deployment", "bert"}}));
  EXPECT_EQ(items[0]["value"], "12500m");
  EXPECT_EQ(items[1]["value"], "3");

  prometheus_fetcher_ = [](const net::http::PrometheusQuery&) -> Result<std::string> {
    return Status::Unavailable("prometheus at http://prom:9090 is unreachable: refused");
  };
  r = Do("GET", "/apis/external.metrics.k8s.io/v1beta1/namespaces/inference/inference_queue_depth");
  EXPECT_EQ(r.status, 503) << r.body;
  EXPECT_NE(r.body.find("the external metric inference_queue_depth: prometheus at "
                        "http://prom:9090 is unreachable"),
            std::string::npos)
      << r.body;
  // The built-in metrics are still served beside the rules.
  EXPECT_EQ(Do("GET", "/apis/external.metrics.k8s.io/v1beta1/namespaces/inference/nope").status,
            404);
}

}  // namespace
}  // namespace etna::api::server
