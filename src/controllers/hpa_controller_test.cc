// The HPA controller over the in-process API with a fake metrics source: the seed's HPA
// (External gpu_utilization_avg, AverageValue 70, 2-10) scaling its Deployment out and, after
// the stabilization window, in; status, conditions and Events; Resource utilization from pods'
// requests; a metric or a target that cannot be read is a condition and a Warning, not a stop.
#include "controllers/hpa_controller.h"

#include <gtest/gtest.h>

#include "common/time.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

namespace types = etna::api::types;
using nlohmann::json;

// Values a test sets; every call reads them.
struct FakeMetrics : HpaMetrics {
  std::map<std::string, std::vector<int64_t>> external;  // by metric name
  PodMetricValues cpu;
  Status fail = Status::Ok();
  std::vector<std::string> external_selectors;

  Result<PodMetricValues> PodResource(const std::string&, const std::string&, const std::string&,
                                      const std::string&) override {
    if (!fail.ok()) return fail;
    return cpu;
  }
  Result<PodMetricValues> PodMetric(const std::string&, const std::string&,
                                    const std::string& metric) override {
    return Status::NotFound("no metric " + metric);
  }
  Result<int64_t> ObjectMetric(const std::string&, const std::string&, const std::string&,
                               const std::string&, const std::string& metric) override {
    return Status::NotFound("no metric " + metric);
  }
  Result<std::vector<int64_t>> ExternalMetric(const std::string&, const std::string& metric,
                                              const std::string& selector) override {
    external_selectors.push_back(selector);
    if (!fail.ok()) return fail;
    auto it = external.find(metric);
    if (it == external.end()) return Status::NotFound("no items returned for " + metric);
    return it->second;
  }
};

json SeedHpa() {
  return json::parse(R"({
    "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "bert-inference-hpa", "namespace": "default"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                "name": "bert-inference-service"},
             "minReplicas": 2, "maxReplicas": 10,
             "metrics": [{"type": "External", "external": {
                 "metric": {"name": "gpu_utilization_avg",
                            "selector": {"matchLabels": {"deployment": "bert-inference-service"}}},
                 "target": {"type": "AverageValue", "averageValue": "70"}}}]}})");
}

class HpaTest : public testing::ControllerTest {
 protected:
  void SetUp() override {
    auto fake = std::make_unique<FakeMetrics>();
    metrics_ = fake.get();
    hpa_ = std::make_unique<HorizontalPodAutoscalerController>(Options(), std::chrono::seconds(5),
                                                               std::move(fake));
  }
  void MakeDeployment(int replicas) {
    MustCreate("deployments", "default",
               {{"apiVersion", "apps/v1"},
                {"kind", "Deployment"},
                {"metadata", {{"name", "bert-inference-service"}, {"namespace", "default"}}},
                {"spec",
                 {{"replicas", replicas},
                  {"selector", {{"matchLabels", {{"app", "bert"}}}}},
                  {"template",
                   {{"metadata", {{"labels", {{"app", "bert"}}}}},
                    {"spec", {{"containers", {{{"name", "c"}, {"image", "x"}}}}}}}}}}});
    SetStatusReplicas(replicas);
  }
  // What the Deployment controller would report once the pods exist.
  void SetStatusReplicas(int n) {
    ASSERT_TRUE(rest()
                    .MergePatch(client::Path("deployments", "default", "bert-inference-service"),
                                {{"status", {{"replicas", n}}}}, "status")
                    .ok());
  }
  int64_t Replicas() {
    return types::Integer(*Get("deployments", "default", "bert-inference-service"),
                          {"spec", "replicas"}, -1);
  }
  json Status() {
    return Get("horizontalpodautoscalers", "default", "bert-inference-hpa")->at("status");
  }
  json ConditionOf(const std::string& type) {
    json status = Status();
    const json* c = types::FindCondition(status, {"conditions"}, type);
    return c ? *c : json();
  }
  void Sync() { ASSERT_TRUE(SyncUntilIdle({hpa_.get()})); }
  // The next sync period.
  void NextSync(TimeMs ms = 5000) {
    clock_.Advance(ms);
    Sync();
  }
  std::vector<std::string> Events(const std::string& reason) {
    hpa_->events().Flush();
    std::vector<std::string> out;
    for (const json& e : List("events", "default")) {
      if (e.value("reason", "") == reason) out.push_back(e.value("message", ""));
    }
    return out;
  }

  FakeMetrics* metrics_;
  std::unique_ptr<HorizontalPodAutoscalerController> hpa_;
};

TEST_F(HpaTest, TheSeedsHpaScalesOutOnAverageGpuUtilizationAndInAfterTheWindow) {
  MakeDeployment(3);
  MustCreate("horizontalpodautoscalers", "default", SeedHpa());
  metrics_->external["gpu_utilization_avg"] = {90'000, 90'000, 90'000};
  Sync();
  EXPECT_EQ(Replicas(), 4);  // ceil(270 / 70)
  ASSERT_FALSE(metrics_->external_selectors.empty());
  EXPECT_EQ(metrics_->external_selectors[0], "deployment=bert-inference-service");
  json s = Status();
  EXPECT_EQ(s["currentReplicas"], 3);
  EXPECT_EQ(s["desiredReplicas"], 4);
  EXPECT_EQ(s["currentMetrics"][0]["type"], "External");
  EXPECT_EQ(s["currentMetrics"][0]["external"]["current"]["averageValue"], "90");
  EXPECT_EQ(s["currentMetrics"][0]["external"]["metric"]["name"], "gpu_utilization_avg");
  EXPECT_TRUE(s.contains("lastScaleTime"));
  EXPECT_EQ(ConditionOf("AbleToScale")["reason"], "SucceededRescale");
  EXPECT_EQ(ConditionOf("ScalingActive")["reason"], "ValidMetricFound");
  EXPECT_EQ(ConditionOf("ScalingLimited")["status"], "False");
  std::vector<std::string> rescales = Events("SuccessfulRescale");
  ASSERT_EQ(rescales.size(), 1u);
  EXPECT_EQ(rescales[0].rfind("New size: 4; reason: external metric gpu_utilization_avg", 0), 0u)
      << rescales[0];

  // Four replicas share the load: 67.5 each, within the tolerance of 70.
  SetStatusReplicas(4);
  metrics_->external["gpu_utilization_avg"] = {67'500, 67'500, 67'500, 67'500};
  NextSync();
  EXPECT_EQ(Replicas(), 4);
  EXPECT_EQ(ConditionOf("AbleToScale")["reason"], "ReadyForNewScale");

  // Load drops to 10 %: nothing happens within the 300 s window, then minReplicas.
  metrics_->external["gpu_utilization_avg"] = {10'000, 10'000, 10'000, 10'000};
  NextSync();
  EXPECT_EQ(Replicas(), 4);
  EXPECT_EQ(ConditionOf("AbleToScale")["reason"], "ScaleDownStabilized");
  for (int i = 0; i < 60 && Replicas() == 4; ++i) NextSync();
  EXPECT_EQ(Replicas(), 2);  // ceil(40 / 70) = 1, bounded by minReplicas
  EXPECT_EQ(ConditionOf("ScalingLimited")["reason"], "TooFewReplicas");
  EXPECT_EQ(Events("SuccessfulRescale").back(), "New size: 2; reason: All metrics below target");
}

TEST_F(HpaTest, AMissingMetricIsAConditionAndAWarningNotAStop) {
  MakeDeployment(3);
  MustCreate("horizontalpodautoscalers", "default", SeedHpa());
  Sync();
  EXPECT_EQ(Replicas(), 3);
  json active = ConditionOf("ScalingActive");
  EXPECT_EQ(active["status"], "False");
  EXPECT_EQ(active["reason"], "FailedGetExternalMetric");
  EXPECT_NE(active["message"].get<std::string>().find("no items returned for gpu_utilization_avg"),
            std::string::npos)
      << active.dump();
  EXPECT_EQ(Events("FailedComputeMetricsReplicas").size(), 1u);
  EXPECT_EQ(Events("FailedGetExternalMetric").size(), 1u);
  // The metric comes back: the next sync scales.
  metrics_->external["gpu_utilization_avg"] = {90'000, 90'000, 90'000};
  NextSync();
  EXPECT_EQ(Replicas(), 4);
  EXPECT_EQ(ConditionOf("ScalingActive")["status"], "True");
}

TEST_F(HpaTest, AMissingTargetIsFailedGetScale) {
  MustCreate("horizontalpodautoscalers", "default", SeedHpa());
  Sync();
  json able = ConditionOf("AbleToScale");
  EXPECT_EQ(able["status"], "False");
  EXPECT_EQ(able["reason"], "FailedGetScale");
  EXPECT_EQ(Events("FailedGetScale").size(), 1u);
  // It appears: the next sync reads it.
  MakeDeployment(3);
  metrics_->external["gpu_utilization_avg"] = {90'000, 90'000, 90'000};
  NextSync();
  EXPECT_EQ(Replicas(), 4);
}

TEST_F(HpaTest, CpuUtilizationAgainstThePodsRequestsWithinTheScaleUpRate) {
  MakeDeployment(3);
  for (const char* name : {"p1", "p2", "p3"}) {
    MustCreate(
        "pods", "default",
        {{"metadata", {{"name", name}, {"labels", {{"app", "bert"}}}}},
         {"spec",
          {{"containers",
            {{{"name", "c"}, {"image", "x"}, {"resources", {{"requests", {{"cpu", "1"}}}}}}}}}}});
    json status = {{"phase", "Running"},
                   {"startTime", FormatRfc3339(clock_.NowMs() - 600'000)},
                   {"conditions",
                    {{{"type", "Ready"},
                      {"status", "True"},
                      {"lastTransitionTime", FormatRfc3339(clock_.NowMs() - 590'000)}}}}};
    ASSERT_TRUE(
        rest()
            .MergePatch(client::Path("pods", "default", name), {{"status", status}}, "status")
            .ok());
    metrics_->cpu[name] = {1900, clock_.NowMs(), 15'000};
  }
  json hpa = SeedHpa();
  hpa["spec"]["metrics"] = json::parse(
      R"([{"type": "Resource", "resource": {"name": "cpu",
           "target": {"type": "Utilization", "averageUtilization": 50}}}])");
  MustCreate("horizontalpodautoscalers", "default", hpa);
  Sync();
  EXPECT_EQ(Replicas(), 7);  // 190 % of 50: 12 wanted; +4 pods (or +100 %) per 15 s
  EXPECT_EQ(ConditionOf("ScalingLimited")["reason"], "ScaleUpLimit");
  json current = Status()["currentMetrics"][0]["resource"]["current"];
  EXPECT_EQ(current["averageUtilization"], 190);
  EXPECT_EQ(current["averageValue"], "1900m");
}

TEST_F(HpaTest, ATargetAtZeroReplicasIsLeftAlone) {
  MakeDeployment(0);
  MustCreate("horizontalpodautoscalers", "default", SeedHpa());
  metrics_->external["gpu_utilization_avg"] = {90'000};
  Sync();
  EXPECT_EQ(Replicas(), 0);
  EXPECT_EQ(ConditionOf("ScalingActive")["reason"], "ScalingDisabled");
}

}  // namespace
}  // namespace etna::controllers

namespace etna::controllers {
namespace {

TEST_F(HpaTest, ASteadySyncWritesNothing) {
  MakeDeployment(3);
  MustCreate("horizontalpodautoscalers", "default", SeedHpa());
  metrics_->external["gpu_utilization_avg"] = {70'000, 70'000, 70'000};
  Sync();
  NextSync();
  std::string before = Get("horizontalpodautoscalers", "default", "bert-inference-hpa")
                           ->at("metadata")
                           .at("resourceVersion");
  NextSync();
  NextSync();
  json after = *Get("horizontalpodautoscalers", "default", "bert-inference-hpa");
  EXPECT_EQ(after["metadata"]["resourceVersion"], before) << after["status"].dump();
}

}  // namespace
}  // namespace etna::controllers
