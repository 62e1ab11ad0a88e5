// KEDA's ScaledObject over the in-process API with a fake Prometheus, beside the HPA controller
// reading the external metric through the API as in `etna dev`: the owned keda-hpa-<name>, 0 -> 1
// on activation, 1 -> N by the HPA, back to 0 after the cooldown; an unreachable Prometheus is
// a condition on both objects and leaves the target alone; Prometheus answers parsed as KEDA
// reads them.
#include "controllers/scaled_object_controller.h"

#include <gtest/gtest.h>

#include "controllers/hpa_controller.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

namespace types = etna::api::types;
using nlohmann::json;

struct FakePrometheus : TriggerSource {
  Result<double> value = 0.0;
  std::vector<std::string> queries;
  Result<double> Query(const PrometheusQuery& q) override {
    queries.push_back(q.server_address + " " + q.query);
    return value;
  }
};

class ScaledObjectTest : public testing::ControllerTest {
 protected:
  void SetUp() override {
    auto fake = std::make_unique<FakePrometheus>();
    prometheus_ = fake.get();
    keda_ = std::make_unique<ScaledObjectController>(Options(), std::move(fake));
    hpa_ = std::make_unique<HorizontalPodAutoscalerController>(Options(), std::chrono::seconds(5));
    MustCreate("deployments", "default",
               {{"apiVersion", "apps/v1"},
                {"kind", "Deployment"},
                {"metadata", {{"name", "inference"}, {"namespace", "default"}}},
                {"spec",
                 {{"replicas", 0},
                  {"selector", {{"matchLabels", {{"app", "inf"}}}}},
                  {"template",
                   {{"metadata", {{"labels", {{"app", "inf"}}}}},
                    {"spec", {{"containers", {{{"name", "c"}, {"image", "x"}}}}}}}}}}});
    MustCreate("scaledobjects", "default", json::parse(R"json({
      "apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
      "metadata": {"name": "inference-scaler", "namespace": "default"},
      "spec": {"scaleTargetRef": {"name": "inference"}, "minReplicaCount": 0,
               "maxReplicaCount": 10, "pollingInterval": 5, "cooldownPeriod": 60,
               "triggers": [{"type": "prometheus", "metadata": {
                   "serverAddress": "http://prometheus:9090",
                   "query": "avg(DCGM_FI_DEV_GPU_UTIL)", "threshold": "10",
                   "activationThreshold": "5"}}]}})json"));
  }
  // The Deployment controller's part: status.replicas follows spec.replicas.
  int64_t Replicas() {
    json d = *Get("deployments", "default", "inference");
    int64_t n = types::Integer(d, {"spec", "replicas"});
    if (types::Integer(d, {"status", "replicas"}, -1) != n) {
      EXPECT_TRUE(rest()
                      .MergePatch(client::Path("deployments", "default", "inference"),
                                  {{"status", {{"replicas", n}}}}, "status")
                      .ok());
    }
    return n;
  }
  void Poll(TimeMs advance_ms = 5000) {
    clock_.Advance(advance_ms);
    ASSERT_TRUE(SyncUntilIdle({keda_.get(), hpa_.get()}));
    Replicas();
  }
  json Condition(const std::string& resource, const std::string& name, const std::string& type) {
    json o = *Get(resource, "default", name);
    const json* c = types::FindCondition(o, {"status", "conditions"}, type);
    return c ? *c : json();
  }

  FakePrometheus* prometheus_;
  std::unique_ptr<ScaledObjectController> keda_;
  std::unique_ptr<HorizontalPodAutoscalerController> hpa_;
};

TEST_F(ScaledObjectTest, FromZeroToOneToNAndBackToZeroAfterTheCooldown) {
  Poll(0);
  auto hpa = Get("horizontalpodautoscalers", "default", "keda-hpa-inference-scaler");
  ASSERT_TRUE(hpa.has_value());
  EXPECT_EQ((*hpa)["spec"]["minReplicas"], 1);
  EXPECT_EQ((*hpa)["spec"]["maxReplicas"], 10);
  EXPECT_EQ((*hpa)["spec"]["metrics"][0]["external"]["metric"]["name"], "s0-prometheus");
  EXPECT_EQ((*hpa)["spec"]["metrics"][0]["external"]["target"]["averageValue"], "10");
  EXPECT_EQ((*hpa)["metadata"]["ownerReferences"][0]["kind"], "ScaledObject");
  EXPECT_EQ(prometheus_->queries.at(0), "http://prometheus:9090 avg(DCGM_FI_DEV_GPU_UTIL)");
  EXPECT_EQ(Replicas(), 0);
  EXPECT_EQ(Condition("scaledobjects", "inference-scaler", "Active")["status"], "False");
  EXPECT_EQ(Condition("scaledobjects", "inference-scaler", "Ready")["status"], "True");

  prometheus_->value = 35.0;  // above the activation threshold
  Poll();                     // KEDA: 0 -> 1; the HPA, synced in the same period: ceil(35 / 10)
  EXPECT_EQ(Replicas(), 4);
  EXPECT_EQ(Condition("scaledobjects", "inference-scaler", "Active")["status"], "True");
  auto metric = rest().Get(
      "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/s0-prometheus?labelSelector="
      "scaledobject.keda.sh%2Fname%3Dinference-scaler");
  ASSERT_TRUE(metric.ok()) << metric.status().ToString();
  EXPECT_EQ((*metric)["items"][0]["value"], "35");

  prometheus_->value = 0.0;
  Poll();
  EXPECT_EQ(Replicas(), 4);  // within the cooldown (and the HPA's window)
  for (int i = 0; i < 12; ++i) Poll();
  EXPECT_EQ(Replicas(), 0);
  EXPECT_EQ(
      Condition("horizontalpodautoscalers", "keda-hpa-inference-scaler", "ScalingActive")["reason"],
      "ScalingDisabled");
  keda_->events().Flush();
  std::set<std::string> reasons;
  for (const json& e : List("events", "default")) reasons.insert(e.value("reason", ""));
  EXPECT_TRUE(reasons.count("KEDAScaleTargetActivated"));
  EXPECT_TRUE(reasons.count("KEDAScaleTargetDeactivated"));
}

TEST_F(ScaledObjectTest, AnUnreachablePrometheusIsAConditionAndLeavesTheTargetAlone) {
  prometheus_->value = 35.0;
  Poll(0);
  Poll();
  EXPECT_EQ(Replicas(), 4);
  prometheus_->value = Status::Unavailable("prometheus at http://prometheus:9090 is unreachable");
  Poll();
  EXPECT_EQ(Replicas(), 4);
  json ready = Condition("scaledobjects", "inference-scaler", "Ready");
  EXPECT_EQ(ready["status"], "False");
  EXPECT_NE(ready["message"].get<std::string>().find("unreachable"), std::string::npos);
  json active = Condition("horizontalpodautoscalers", "keda-hpa-inference-scaler", "ScalingActive");
  EXPECT_EQ(active["reason"], "FailedGetExternalMetric");
  EXPECT_NE(active["message"].get<std::string>().find("unreachable"), std::string::npos)
      << active.dump();
  for (int i = 0; i < 15; ++i) Poll();
  EXPECT_EQ(Replicas(), 4);  // never scaled to zero on a failing trigger
}

// idleReplicaCount 0 beside minReplicaCount 2: an inactive target rests at 0, an active one
// comes back to 2.
TEST_F(ScaledObjectTest, IdleReplicaCountLetsATargetWithAFloorRestAtZero) {
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("scaledobjects", "default", "inference-scaler"),
                              {{"spec", {{"minReplicaCount", 2}, {"idleReplicaCount", 0}}}})
                  .ok());
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("deployments", "default", "inference"),
                              {{"spec", {{"replicas", 2}}}})
                  .ok());
  prometheus_->value = 35.0;
  Poll(0);
  prometheus_->value = 0.0;
  for (int i = 0; i < 14; ++i) Poll();  // past the 60 s cooldown
  EXPECT_EQ(Replicas(), 0);
  prometheus_->value = 35.0;
  Poll();
  EXPECT_GE(Replicas(), 2);
}

TEST(PrometheusMatrix, ReadsARangeQuerysSeries) {
  PrometheusQuery q{"http://p:9090", "up", "", true, net::http::PrometheusRange{0, 120, 60}};
  auto m =
      net::http::PrometheusMatrix(R"({"status":"success","data":{"resultType":"matrix","result":[)"
                                  R"({"metric":{"job":"a"},"values":[[60,"1"],[120,"0.5"]]}]}})",
                                  q);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->size(), 1u);
  EXPECT_EQ((*m)[0].labels.at("job"), "a");
  EXPECT_EQ((*m)[0].points, (std::vector<std::pair<double, double>>{{60, 1}, {120, 0.5}}));
  auto vector =
      PrometheusMatrix(R"({"status":"success","data":{"resultType":"vector","result":[]}})", q);
  EXPECT_FALSE(vector.ok());
  auto bad = net::http::PrometheusMatrix(
      R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[60,"x"]]}]}})", q);
  EXPECT_FALSE(bad.ok());
  auto timeless = net::http::PrometheusMatrix(
      R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[["t","1"]]}]}})",
      q);
  ASSERT_FALSE(timeless.ok());
  EXPECT_NE(timeless.status().message().find("without a time"), std::string::npos);
}

TEST(PrometheusValue, AsKedaReadsAnswers) {
  PrometheusQuery q{"http://p:9090", "avg(x)", "", true};
  auto v = PrometheusValue(
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"42.5"]}]}})",
      q);
  ASSERT_TRUE(v.ok());
  EXPECT_DOUBLE_EQ(*v, 42.5);
  EXPECT_DOUBLE_EQ(
      *PrometheusValue(R"({"status":"success","data":{"resultType":"vector","result":[]}})", q), 0);
  q.ignore_null_values = false;
  EXPECT_FALSE(
      PrometheusValue(R"({"status":"success","data":{"resultType":"vector","result":[]}})", q)
          .ok());
  auto many = PrometheusValue(
      R"({"status":"success","data":{"resultType":"vector","result":[{"value":[1,"1"]},{"value":[1,"2"]}]}})",
      q);
  EXPECT_NE(many.status().message().find("returned 2 elements"), std::string::npos);
  auto bad =
      PrometheusValue(R"({"status":"error","errorType":"bad_data","error":"parse error"})", q);
  EXPECT_NE(bad.status().message().find("bad_data: parse error"), std::string::npos);
  EXPECT_DOUBLE_EQ(
      *PrometheusValue(R"({"status":"success","data":{"resultType":"scalar","result":[1,"7"]}})",
                       q),
      7);
}

TEST(PrometheusValue, AnUnreachableServerIsNamed) {
  HttpPrometheus http;
  auto v = http.Query({"http://127.0.0.1:1", "up", "", true});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("prometheus at http://127.0.0.1:1 is unreachable"),
            std::string::npos)
      << v.status().ToString();
}

}  // namespace
}  // namespace etna::controllers
