// The metrics APIs over agents' summaries from a fake fetcher: discovery, NodeMetrics and
// PodMetrics for kubectl top, custom metrics of pods and of a Deployment, external metrics
// selected by the owning Deployment's name, unknown metrics and unreachable agents.
#include <gtest/gtest.h>

#include "api/server/server_test_kit.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using testing::Reply;

class MetricsApiTest : public testing::ServerTest {
 protected:
  void SetUp() override {
    MustCreate("/api/v1/namespaces", {{"metadata", {{"name", "inference"}}}});
    for (const char* n : {"n1", "n2", "n3"}) {
      MustCreate("/api/v1/nodes", {{"metadata", {{"name", n}, {"labels", {{"pool", "gpu"}}}}}});
    }
    json deploy = {{"apiVersion", "apps/v1"},
                   {"kind", "Deployment"},
                   {"metadata", {{"name", "bert"}, {"namespace", "inference"}}},
                   {"spec",
                    {{"replicas", 2},
                     {"selector", {{"matchLabels", {{"app", "bert"}}}}},
                     {"template",
                      {{"metadata", {{"labels", {{"app", "bert"}}}}},
                       {"spec", {{"containers", {{{"name", "c"}, {"image", "x"}}}}}}}}}}};
    json d = MustCreate("/apis/apps/v1/namespaces/inference/deployments", deploy);
    json rs = {{"apiVersion", "apps/v1"},
               {"kind", "ReplicaSet"},
               {"metadata",
                {{"name", "bert-abc"},
                 {"namespace", "inference"},
                 {"ownerReferences",
                  {{{"apiVersion", "apps/v1"},
                    {"kind", "Deployment"},
                    {"name", "bert"},
                    {"uid", d["metadata"]["uid"]},
                    {"controller", true}}}}}},
               {"spec", deploy["spec"]}};
    json r = MustCreate("/apis/apps/v1/namespaces/inference/replicasets", rs);
    Pod("bert-1", "n1", {{"app", "bert"}}, r, 90, "2");
    Pod("bert-2", "n2", {{"app", "bert"}}, r, 60, "500m");
    Pod("other", "n2", {{"app", "other"}}, json(), 10, "1");
    Pod("cpu-only", "n1", {{"app", "bert"}}, json(), -1, "1");  // no GPU: no GPU reading
    summary_fetcher_ = [this](const json& node) -> Result<json> {
      std::string name = node["metadata"]["name"];
      ++fetches_[name];
      if (name == "n3") return Status::Unavailable("agent of n3 down");
      json pods = json::array();
      for (const auto& [pod, p] : pods_) {
        if (p.node != name) continue;
        json c = {{"name", "c"},
                  {"cpu", {{"usageNanoCores", p.nano_cores}, {"window", 1500}}},
                  {"memory", {{"workingSetBytes", 2 << 20}}},
                  {"accelerators", json::array()}};
        if (p.util >= 0) {
          c["accelerators"].push_back({{"id", "GPU-" + pod},
                                       {"dutyCycle", p.util},
                                       {"memoryTotal", 1000},
                                       {"memoryUsed", 250}});
        }
        pods.push_back({{"podRef", {{"name", pod}, {"namespace", "inference"}, {"uid", p.uid}}},
                        {"cpu", c["cpu"]},
                        {"memory", c["memory"]},
                        {"containers", {c}}});
      }
      return json{{"node",
                   {{"nodeName", name},
                    {"cpu", {{"usageNanoCores", 1'250'000'000}, {"time", "2027-01-15T08:00:00Z"}}},
                    {"memory", {{"workingSetBytes", int64_t{4} << 30}}}}},
                  {"pods", pods}};
    };
  }

  void Pod(const std::string& name, const std::string& node, json labels, const json& owner,
           int util, const std::string& cpu) {
    json pod = {{"metadata", {{"name", name}, {"namespace", "inference"}, {"labels", labels}}},
                {"spec", {{"nodeName", node}, {"containers", {{{"name", "c"}, {"image", "x"}}}}}}};
    if (!owner.is_null()) {
      pod["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                             {"kind", "ReplicaSet"},
                                             {"name", owner["metadata"]["name"]},
                                             {"uid", owner["metadata"]["uid"]},
                                             {"controller", true}}};
    }
    json made = MustCreate("/api/v1/namespaces/inference/pods", pod);
    auto r = Do("PATCH", "/api/v1/namespaces/inference/pods/" + name + "/status",
                json{{"status", {{"phase", "Running"}}}}.dump(), "application/merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
    int64_t nano =
        cpu.back() == 'm' ? std::stoll(cpu) * 1'000'000 : std::stoll(cpu) * 1'000'000'000;
    pods_[name] = {node, made["metadata"]["uid"], util, nano};
  }

  struct Fake {
    std::string node, uid;
    int util;
    int64_t nano_cores;
  };
  std::map<std::string, Fake> pods_;
  std::map<std::string, int> fetches_;
};

TEST_F(MetricsApiTest, DiscoveryListsTheThreeGroups) {
  json groups = Do("GET", "/apis").Json();
  std::set<std::string> names;
  for (const json& g : groups["groups"]) names.insert(g["name"].get<std::string>());
  EXPECT_TRUE(names.count("metrics.k8s.io"));
  EXPECT_TRUE(names.count("custom.metrics.k8s.io"));
  EXPECT_TRUE(names.count("external.metrics.k8s.io"));
  json metrics = Do("GET", "/apis/metrics.k8s.io/v1beta1").Json();
  ASSERT_EQ(metrics["resources"].size(), 2u) << metrics.dump();
  EXPECT_EQ(metrics["resources"][0]["name"], "nodes");
  EXPECT_EQ(metrics["resources"][0]["kind"], "NodeMetrics");
  json custom = Do("GET", "/apis/custom.metrics.k8s.io/v1beta1").Json();
  bool listed = false;
  for (const json& r : custom["resources"]) listed = listed || r["name"] == "pods/gpu_utilization";
  EXPECT_TRUE(listed) << custom.dump();
  EXPECT_EQ(Do("GET", "/apis/metrics.k8s.io/v1beta1/nodes", "", "", "alice-token").status, 403);
}

TEST_F(MetricsApiTest, NodeMetricsLeaveOutAnUnreachableAgent) {
  json list = Do("GET", "/apis/metrics.k8s.io/v1beta1/nodes").Json();
  EXPECT_EQ(list["kind"], "NodeMetricsList");
  ASSERT_EQ(list["items"].size(), 2u) << list.dump();  // n3's agent is down
  EXPECT_EQ(list["items"][0]["metadata"]["name"], "n1");
  EXPECT_EQ(list["items"][0]["usage"]["cpu"], "1250000000n");
  EXPECT_EQ(list["items"][0]["usage"]["memory"], "4194304Ki");
  EXPECT_EQ(list["items"][0]["timestamp"], "2027-01-15T08:00:00Z");
  json one = Do("GET", "/apis/metrics.k8s.io/v1beta1/nodes/n2").Json();
  EXPECT_EQ(one["kind"], "NodeMetrics");
  Reply down = Do("GET", "/apis/metrics.k8s.io/v1beta1/nodes/n3");
  EXPECT_EQ(down.status, 404);
  EXPECT_NE(down.body.find("agent of n3 down"), std::string::npos) << down.body;
  // Within the reuse age, no agent is asked again.
  Do("GET", "/apis/metrics.k8s.io/v1beta1/nodes");
  EXPECT_EQ(fetches_["n1"], 1);
  clock_.Advance(1000);
  Do("GET", "/apis/metrics.k8s.io/v1beta1/nodes");
  EXPECT_EQ(fetches_["n1"], 2);
}

TEST_F(MetricsApiTest, PodMetricsForKubectlTop) {
  json list =
      Do("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/inference/pods?labelSelector=app%3Dbert")
          .Json();
  ASSERT_EQ(list["items"].size(), 3u) << list.dump();
  const json& p = list["items"][0];
  EXPECT_EQ(p["metadata"]["name"], "bert-1");
  EXPECT_EQ(p["window"], "1.5s");
  EXPECT_EQ(p["containers"][0]["name"], "c");
  EXPECT_EQ(p["containers"][0]["usage"]["cpu"], "2000000000n");
  EXPECT_EQ(p["containers"][0]["usage"]["memory"], "2048Ki");
  json one = Do("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/inference/pods/bert-2").Json();
  EXPECT_EQ(one["kind"], "PodMetrics");
  EXPECT_EQ(Do("GET", "/apis/metrics.k8s.io/v1beta1/pods").Json()["items"].size(), 4u);
}

TEST_F(MetricsApiTest, CustomMetricsOfPodsAndOfADeployment) {
  json pods = Do("GET",
                 "/apis/custom.metrics.k8s.io/v1beta1/namespaces/inference/pods/*/"
                 "gpu_utilization?labelSelector=app%3Dbert")
                  .Json();
  ASSERT_EQ(pods["items"].size(), 2u) << pods.dump();  // cpu-only has no GPU reading
  EXPECT_EQ(pods["items"][0]["describedObject"]["name"], "bert-1");
  EXPECT_EQ(pods["items"][0]["metricName"], "gpu_utilization");
  EXPECT_EQ(pods["items"][0]["value"], "90");
  json cpu = Do("GET",
                "/apis/custom.metrics.k8s.io/v1beta2/namespaces/inference/pods/bert-2/"
                "cpu_usage")
                 .Json();
  ASSERT_EQ(cpu["items"].size(), 1u) << cpu.dump();
  EXPECT_EQ(cpu["items"][0]["metric"]["name"], "cpu_usage");
  EXPECT_EQ(cpu["items"][0]["value"], "500m");
  json object = Do("GET",
                   "/apis/custom.metrics.k8s.io/v1beta2/namespaces/inference/deployments.apps/"
                   "bert/gpu_memory_utilization")
                    .Json();
  ASSERT_EQ(object["items"].size(), 1u) << object.dump();
  EXPECT_EQ(object["items"][0]["describedObject"]["kind"], "Deployment");
  EXPECT_EQ(object["items"][0]["value"], "25");
  Reply unknown = Do("GET", "/apis/custom.metrics.k8s.io/v1beta1/namespaces/inference/pods/*/qps");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("could not find the metric qps"), std::string::npos);
}

TEST_F(MetricsApiTest, ExternalMetricSelectsTheDeploymentsPodsByName) {
  json list = Do("GET",
                 "/apis/external.metrics.k8s.io/v1beta1/namespaces/inference/"
                 "gpu_utilization_avg?labelSelector=deployment%3Dbert")
                  .Json();
  EXPECT_EQ(list["kind"], "ExternalMetricValueList");
  ASSERT_EQ(list["items"].size(), 2u) << list.dump();
  EXPECT_EQ(list["items"][0]["metricName"], "gpu_utilization_avg");
  EXPECT_EQ(list["items"][0]["value"], "90");
  EXPECT_EQ(list["items"][1]["value"], "60");
  const json& labels = list["items"][0]["metricLabels"];
  EXPECT_EQ(labels["deployment"], "bert");
  EXPECT_EQ(labels["replicaset"], "bert-abc");
  EXPECT_EQ(labels["pod"], "bert-1");
  EXPECT_EQ(labels["app"], "bert");
  json dcgm = Do("GET",
                 "/apis/external.metrics.k8s.io/v1beta1/namespaces/inference/"
                 "DCGM_FI_DEV_GPU_UTIL?labelSelector=pod%3Dother")
                  .Json();
  ASSERT_EQ(dcgm["items"].size(), 1u);
  EXPECT_EQ(dcgm["items"][0]["value"], "10");
  Reply unknown = Do("GET", "/apis/external.metrics.k8s.io/v1beta1/namespaces/inference/qps");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("external metric qps"), std::string::npos);
  EXPECT_EQ(
      Do("POST", "/apis/external.metrics.k8s.io/v1beta1/namespaces/inference/qps", "{}").status,
      405);
}

}  // namespace
}  // namespace etna::api::server
