// What `etna server` serves for the web dashboard: its files (public, they hold no data), the
// redirect to them, and the usage history (to whoever may list queues).
#include <gtest/gtest.h>

#include "api/server/server_test_kit.h"
#include "net/http/prometheus.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

std::string Header(const testing::Reply& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

class DashboardTest : public testing::ServerTest {};

TEST_F(DashboardTest, TheRootAndUiRedirectToTheDashboard) {
  for (const char* path : {"/", "/ui"}) {
    auto r = Do("GET", path, "", "", "");
    EXPECT_EQ(r.status, 302) << path;
    EXPECT_EQ(Header(r, "Location"), "/ui/") << path;
  }
}

TEST_F(DashboardTest, FilesAreServedWithoutATokenAndWithTheirTypes) {
  auto page = Do("GET", "/ui/", "", "", "");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("/ui/app.js"), std::string::npos);
  EXPECT_NE(Header(page, "Content-Security-Policy").find("default-src 'self'"), std::string::npos);
  auto script = Do("GET", "/ui/app.js", "", "", "");
  ASSERT_EQ(script.status, 200);
  EXPECT_EQ(script.content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(Do("GET", "/ui/jobs", "", "", "").body, page.body) << "a page route gets the shell";
  EXPECT_EQ(Do("GET", "/ui/missing.js", "", "", "").status, 404);
  EXPECT_EQ(Do("POST", "/ui/app.js", "{}").status, 405);
}

TEST_F(DashboardTest, HistoryIsForWhoeverMayListQueues) {
  usage_history_.Record(
      UsageHistory::Take(1'800'000'000'000,
                         {{{"metadata", {{"name", "research"}}},
                           {"status", {{"allocated", {{"nvidia.com/gpu", "6"}, {"cpu", "48"}}}}}},
                          {{"metadata", {{"name", "notebooks"}}},
                           {"status", {{"allocated", {{"nvidia.com/gpu", "500m"}}}}}}},
                         {{{"status",
                            {{"allocatable", {{"nvidia.com/gpu", "8"}}},
                             {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}},
                          {{"spec", {{"unschedulable", true}}},
                           {"status",
                            {{"allocatable", {{"nvidia.com/gpu", "8"}}},
                             {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}}}));
  auto r = Do("GET", "/ui/history");
  ASSERT_EQ(r.status, 200) << r.body;
  json samples = r.Json()["samples"];
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0]["clusterGpus"], 8) << "a cordoned node's GPUs are not the cluster's";
  EXPECT_EQ(samples[0]["allocatedGpus"], 6.5);
  EXPECT_EQ(samples[0]["queues"]["research"], 6);
  EXPECT_EQ(samples[0]["queues"]["notebooks"], 0.5) << "quantities as Kubernetes writes them";
  EXPECT_EQ(samples[0]["time"], "2027-01-15T08:00:00Z");
  EXPECT_EQ(Do("GET", "/ui/history", "", "", "").status, 401);
  EXPECT_EQ(Do("GET", "/ui/history", "", "", "bob-token").status, 403);
}

TEST_F(DashboardTest, ExplainIsTheCliTextFromWhatTheCallerMayRead) {
  MustCreate("/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs",
             {{"metadata", {{"name", "train"}}},
              {"spec",
               {{"queue", "default"},
                {"minAvailable", 1},
                {"tasks",
                 {{{"name", "w"},
                   {"replicas", 1},
                   {"template",
                    {{"spec",
                      {{"containers",
                        {{{"name", "c"},
                          {"image", "busybox"},
                          {"resources", {{"limits", {{"nvidia.com/gpu", "2"}}}}}}}}}}}}}}}}}});
  auto r = Do("GET", "/ui/explain?namespace=default&name=train");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.body.starts_with("Job default/train: Pending\n")) << r.body;
  EXPECT_NE(r.body.find("Queue default: Open"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("Suggestion:"), std::string::npos) << r.body;
  EXPECT_EQ(Do("GET", "/ui/explain?namespace=default&name=missing").status, 404);
  MustCreate(
      "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups",
      {{"metadata", {{"name", "alone"}}}, {"spec", {{"minMember", 2}, {"queue", "default"}}}});
  auto group = Do("GET", "/ui/explain?namespace=default&name=alone&kind=PodGroup");
  ASSERT_EQ(group.status, 200) << group.body;
  EXPECT_TRUE(group.body.starts_with(
      "PodGroup alone: Pending (minMember 2, running 0)\nQueue default: Open, weight 1"))
      << group.body;
  EXPECT_EQ(Do("GET", "/ui/explain?namespace=default").status, 400);
  EXPECT_EQ(Do("GET", "/ui/explain?namespace=default&name=train", "", "", "").status, 401);
  EXPECT_EQ(Do("GET", "/ui/explain?namespace=default&name=train", "", "", "bob-token").status, 403);
}

TEST_F(DashboardTest, HistoryFromPrometheusWhenOneIsConfigured) {
  prometheus_url_ = "http://prometheus:9090";
  std::vector<net::http::PrometheusQuery> asked;
  prometheus_fetcher_ = [&](const net::http::PrometheusQuery& q) -> Result<std::string> {
    asked.push_back(q);
    auto matrix = [](const json& result) {
      return json{{"status", "success"}, {"data", {{"resultType", "matrix"}, {"result", result}}}}
          .dump();
    };
    if (q.query.find("volcano_queue_allocated_scalar_resources") != std::string::npos) {
      return matrix({{{"metric", {{"queue_name", "research"}}},
                      {"values", {{1'800'000'000, "4"}, {1'800'000'060, "6"}}}},
                     {{"metric", {{"queue_name", "batch"}}}, {"values", {{1'800'000'060, "2"}}}}});
    }
    if (q.query.starts_with("count(")) {
      return matrix({{{"metric", json::object()}, {"values", {{1'800'000'060, "16"}}}}});
    }
    return matrix({{{"metric", json::object()}, {"values", {{1'800'000'060, "42.5"}}}}});
  };
  MakeServer();
  auto r = Do("GET", "/ui/history");
  ASSERT_EQ(r.status, 200) << r.body;
  json body = r.Json();
  EXPECT_EQ(body["source"], "prometheus");
  ASSERT_EQ(body["samples"].size(), 2u) << body.dump();
  json last = body["samples"][1];
  EXPECT_EQ(last["queues"]["research"], 6);
  EXPECT_EQ(last["queues"]["batch"], 2);
  EXPECT_EQ(last["allocatedGpus"], 8);
  EXPECT_EQ(last["clusterGpus"], 16);
  EXPECT_EQ(last["utilizationPercent"], 42.5);
  ASSERT_EQ(asked.size(), 3u);
  ASSERT_TRUE(asked[0].range.has_value());
  EXPECT_EQ(asked[0].range->end_s - asked[0].range->start_s, 6 * 3600);
  EXPECT_EQ(asked[0].server_address, "http://prometheus:9090");

  prometheus_fetcher_ = [](const net::http::PrometheusQuery&) -> Result<std::string> {
    return Status::Unavailable("connection refused");
  };
  auto down = Do("GET", "/ui/history");
  EXPECT_EQ(down.status, 503);
  EXPECT_NE(down.body.find("--prometheus-url http://prometheus:9090"), std::string::npos)
      << down.body;
}

TEST(UsageHistoryTest, KeepsOnlyTheNewestSamples) {
  UsageHistory history(3);
  for (int i = 0; i < 5; ++i) history.Record({1000LL * i, 8, 0, {}});
  json samples = history.ToJson()["samples"];
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[0]["time"], "1970-01-01T00:00:02Z");
}

TEST(UsageHistoryTest, SamplesOnItsOwnUntilDestroyed) {
  std::atomic<int> taken{0};
  {
    UsageHistory history(2);
    history.StartSampling(std::chrono::milliseconds(1), [&] {
      ++taken;
      return UsageHistory::Sample{1000LL * taken.load(), 0, 0, {}};
    });
    while (taken.load() < 4) std::this_thread::yield();  // three recorded at least
    // Sampled on its own, the oldest dropped past the capacity.
    EXPECT_EQ(history.size(), 2u);
    EXPECT_NE(history.ToJson()["samples"][0]["time"], "1970-01-01T00:00:01Z");
  }  // the destructor stops the sampler and joins it: a sampler left running would hang here
  EXPECT_GE(taken.load(), 3);
}

}  // namespace
}  // namespace etna::api::server
