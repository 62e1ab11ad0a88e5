// The API server's /metrics: requests counted by verb, resource and code, open watches.
#include <gtest/gtest.h>

#include "api/server/server_test_kit.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using testing::Reply;

class ApiMetricsTest : public testing::ServerTest {
 protected:
  std::string Metrics() {
    auto r = Do("GET", "/metrics", "", "", "");
    EXPECT_EQ(r.status, 200);
    return r.body;
  }
  static bool Has(const std::string& text, const std::string& line) {
    return text.find(line + "\n") != std::string::npos;
  }
};

TEST_F(ApiMetricsTest, CountsRequestsByVerbResourceAndCode) {
  json queue = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                {"kind", "Queue"},
                {"metadata", {{"name", "q1"}}},
                {"spec", {{"weight", 1}}}};
  MustCreate("/apis/scheduling.volcano.sh/v1beta1/queues", queue);
  EXPECT_EQ(Do("POST", "/apis/scheduling.volcano.sh/v1beta1/queues", queue.dump()).status, 409);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods").status, 200);
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/pods/nope").status, 404);
  std::string text = Metrics();
  EXPECT_TRUE(
      Has(text,
          R"(apiserver_request_total{verb="POST",resource="queues",subresource="",code="201"} 1)"))
      << text;
  EXPECT_TRUE(
      Has(text,
          R"(apiserver_request_total{verb="POST",resource="queues",subresource="",code="409"} 1)"));
  EXPECT_TRUE(Has(
      text, R"(apiserver_request_total{verb="LIST",resource="pods",subresource="",code="200"} 1)"));
  EXPECT_TRUE(Has(
      text, R"(apiserver_request_total{verb="GET",resource="pods",subresource="",code="404"} 1)"));
  EXPECT_TRUE(
      Has(text, R"(apiserver_request_duration_seconds_count{verb="LIST",resource="pods"} 1)"));
  EXPECT_NE(text.find("# TYPE etna_store_revision gauge"), std::string::npos);
}

TEST_F(ApiMetricsTest, UnknownPathsAndMethodsAddNoSeriesOfTheirOwn) {
  EXPECT_EQ(Do("GET", "/api/v1/namespaces/default/made-up-1").status, 404);
  EXPECT_GE(Do("BREW", "/api/v1/namespaces/default/pods").status, 400);
  std::string text = Metrics();
  EXPECT_EQ(text.find("made-up"), std::string::npos) << text;
  EXPECT_EQ(text.find("BREW"), std::string::npos);
  EXPECT_TRUE(
      Has(text, R"(apiserver_request_total{verb="GET",resource="",subresource="",code="404"} 1)"));
}

TEST_F(ApiMetricsTest, OpenWatchesCountUntilTheStreamIsReleased) {
  Reply watch = Do("GET", "/api/v1/namespaces/default/pods?watch=true");
  ASSERT_TRUE(watch.stream);
  EXPECT_TRUE(Has(Metrics(), R"(apiserver_longrunning_requests{verb="WATCH",resource="pods"} 1)"));
  watch.stream.reset();
  EXPECT_TRUE(Has(Metrics(), R"(apiserver_longrunning_requests{verb="WATCH",resource="pods"} 0)"));
}

}  // namespace
}  // namespace etna::api::server
