// The HPA's replica calculator and behavior against upstream's rules: the ratio and its
// tolerance, unready and missing pods, per-pod External/Object targets, stabilization windows
// and rate policies.
#include "controllers/hpa_replicas.h"

#include <gtest/gtest.h>

#include "common/time.h"
#include "controllers/hpa_behavior.h"

namespace etna::controllers {
namespace {

using nlohmann::json;
constexpr TimeMs kNow = 1'800'000'000'000;

// A pod requesting 1 CPU; `phase` Running (started 10 min ago and Ready) unless told.
json CpuPod(const std::string& name, const std::string& phase = "Running", bool ready = true) {
  return {
      {"metadata", {{"name", name}}},
      {"spec", {{"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "1"}}}}}}}}}},
      {"status",
       {{"phase", phase},
        {"startTime", FormatRfc3339(kNow - 600'000)},
        {"conditions",
         {{{"type", "Ready"},
           {"status", ready ? "True" : "False"},
           {"lastTransitionTime", FormatRfc3339(kNow - 590'000)}}}}}}};
}

PodMetricValues Values(std::map<std::string, int64_t> milli) {
  PodMetricValues out;
  for (auto& [pod, v] : milli) out[pod] = {v, kNow - 1000, 15'000};
  return out;
}

ReplicaCalculator Calc() { return ReplicaCalculator{kNow, kHpaTolerance}; }

TEST(HpaReplicas, UtilizationRatioTimesPodsRoundedUp) {
  std::vector<json> pods = {CpuPod("a"), CpuPod("b"), CpuPod("c")};
  auto p = Calc().ResourceUtilization(3, 50, "cpu", "", pods,
                                      Values({{"a", 900}, {"b", 900}, {"c", 900}}));
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->replicas, 6);  // ceil(90/50 * 3)
  EXPECT_EQ(p->usage, 90);
  EXPECT_EQ(p->raw_utilization, 900);
  // Within the 10 % tolerance nothing changes.
  auto close = Calc().ResourceUtilization(3, 50, "cpu", "", pods,
                                          Values({{"a", 520}, {"b", 520}, {"c", 520}}));
  ASSERT_TRUE(close.ok());
  EXPECT_EQ(close->replicas, 3);
}

TEST(HpaReplicas, MissingPodsCountAsTheirRequestOnAScaleDown) {
  std::vector<json> pods = {CpuPod("a"), CpuPod("b"), CpuPod("c"), CpuPod("d")};
  auto p = Calc().ResourceUtilization(4, 50, "cpu", "", pods,
                                      Values({{"a", 100}, {"b", 100}, {"c", 100}}));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->replicas, 3);  // (100*3 + 1000) / 4000 = 32 %: ceil(0.64 * 4)
}

TEST(HpaReplicas, UnreadyPodsCountAsZeroOnAScaleUp) {
  std::vector<json> pods = {CpuPod("a"), CpuPod("b"), CpuPod("c", "Pending", false)};
  auto p = Calc().ResourceUtilization(3, 50, "cpu", "", pods, Values({{"a", 900}, {"b", 900}}));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->replicas, 4);  // 1800 / 3000 = 60 %: ceil(1.2 * 3)
  // A pod that is not Ready in its first minutes is unready for CPU.
  json fresh = CpuPod("d", "Running", false);
  fresh["status"]["startTime"] = FormatRfc3339(kNow - 10'000);
  auto q = Calc().ResourceUtilization(3, 50, "cpu", "", {CpuPod("a"), CpuPod("b"), fresh},
                                      Values({{"a", 900}, {"b", 900}, {"d", 900}}));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->replicas, 4);
}

TEST(HpaReplicas, NamedErrors) {
  EXPECT_NE(Calc()
                .ResourceUtilization(1, 50, "cpu", "", {}, {})
                .status()
                .message()
                .find("no pods returned by selector"),
            std::string::npos);
  json no_request = CpuPod("a");
  no_request["spec"]["containers"][0]["resources"] = json::object();
  auto r = Calc().ResourceUtilization(1, 50, "cpu", "", {no_request}, Values({{"a", 10}}));
  EXPECT_NE(r.status().message().find("missing request for cpu in container c of Pod a"),
            std::string::npos)
      << r.status().ToString();
  auto unready = Calc().AverageValue(1, 70'000, "", {CpuPod("a", "Pending", false)}, {});
  EXPECT_NE(unready.status().message().find("did not receive metrics"), std::string::npos);
}

TEST(HpaReplicas, PodsAverageValueAndPerPodExternal) {
  std::vector<json> pods = {CpuPod("a"), CpuPod("b"), CpuPod("c")};
  auto p = Calc().AverageValue(3, 70'000, "", pods,
                               Values({{"a", 90'000}, {"b", 90'000}, {"c", 90'000}}));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->replicas, 4);  // ceil(90/70 * 3)
  EXPECT_EQ(p->usage, 90'000);
  ReplicaProposal ext = Calc().PerPod(3, 270'000, 70'000);
  EXPECT_EQ(ext.replicas, 4);  // ceil(270/70)
  EXPECT_EQ(ext.usage, 90'000);
  EXPECT_EQ(Calc().PerPod(3, 213'000, 70'000).replicas, 3);  // 213/210: within tolerance
  EXPECT_EQ(Calc().Value(3, 90'000, 70'000, 3).replicas, 4);
  EXPECT_EQ(Calc().Value(0, 90'000, 70'000, 0).replicas, 2);
}

api::types::HpaBehavior Defaults() {
  return api::types::HorizontalPodAutoscaler(json::object()).behavior();
}

TEST(HpaBehavior, ScaleUpIsBoundByFourPodsOrDoublePerFifteenSeconds) {
  HpaScalingHistory h;
  HpaNormalized n = h.Normalize(Defaults(), 1, 100, 2, 20, kNow);
  EXPECT_EQ(n.replicas, 6);  // max(2 + 4, 2 * 2)
  EXPECT_TRUE(n.limited);
  EXPECT_EQ(n.scaling_limited.reason, "ScaleUpLimit");
  h.RecordScale(2, 6, kNow);
  EXPECT_EQ(h.Normalize(Defaults(), 1, 100, 6, 20, kNow + 5'000).replicas, 6);  // same period
  EXPECT_EQ(h.Normalize(Defaults(), 1, 100, 6, 20, kNow + 16'000).replicas, 12);
  HpaNormalized capped = h.Normalize(Defaults(), 1, 10, 6, 20, kNow + 32'000);
  EXPECT_EQ(capped.replicas, 10);
  EXPECT_EQ(capped.scaling_limited.reason, "TooManyReplicas");
}

TEST(HpaBehavior, ScaleDownWaitsOutTheStabilizationWindow) {
  HpaScalingHistory h;
  EXPECT_EQ(h.Normalize(Defaults(), 2, 10, 8, 8, kNow).replicas, 8);
  HpaNormalized held = h.Normalize(Defaults(), 2, 10, 8, 1, kNow + 60'000);
  EXPECT_EQ(held.replicas, 8);
  EXPECT_EQ(held.able_to_scale.reason, "ScaleDownStabilized");
  HpaNormalized down = h.Normalize(Defaults(), 2, 10, 8, 1, kNow + 301'000);
  EXPECT_EQ(down.replicas, 2);  // the 8 left the window; minReplicas bounds the 1
  EXPECT_EQ(down.scaling_limited.reason, "TooFewReplicas");
}

TEST(HpaBehavior, PoliciesAsWritten) {
  json spec = {{"spec",
                {{"behavior",
                  {{"scaleDown",
                    {{"stabilizationWindowSeconds", 0},
                     {"policies", {{{"type", "Pods"}, {"value", 1}, {"periodSeconds", 60}}}}}},
                   {"scaleUp", {{"selectPolicy", "Disabled"}}}}}}}};
  api::types::HpaBehavior b = api::types::HorizontalPodAutoscaler(spec).behavior();
  HpaScalingHistory h;
  HpaNormalized n = h.Normalize(b, 1, 10, 5, 1, kNow);
  EXPECT_EQ(n.replicas, 4);
  EXPECT_EQ(n.scaling_limited.reason, "ScaleDownLimit");
  h.RecordScale(5, 4, kNow);
  EXPECT_EQ(h.Normalize(b, 1, 10, 4, 1, kNow + 30'000).replicas, 4);  // one pod per minute
  EXPECT_EQ(h.Normalize(b, 1, 10, 4, 9, kNow + 40'000).replicas, 4);  // scale-up disabled
}

}  // namespace
}  // namespace etna::controllers
