// pods/binding, pods/eviction and pods/log through the REST engine.
#include <gtest/gtest.h>

#include "api/server/server_test_kit.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr const char* kPods = "/api/v1/namespaces/default/pods";

json Pod(const std::string& name, int containers = 1) {
  json list = json::array();
  for (int i = 0; i < containers; ++i) {
    list.push_back({{"name", "c" + std::to_string(i)}, {"image", "busybox"}});
  }
  return {{"metadata", {{"name", name}}}, {"spec", {{"containers", list}}}};
}

json Binding(const std::string& pod, const std::string& node) {
  return {{"apiVersion", "v1"},
          {"kind", "Binding"},
          {"metadata", {{"name", pod}, {"annotations", {{"etna.io/gpu-ids", "0,1"}}}}},
          {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
}

class PodSubresourcesTest : public testing::ServerTest {};

TEST_F(PodSubresourcesTest, SecondBindIsConflict) {
  MustCreate(kPods, Pod("p1"));
  auto first = Do("POST", std::string(kPods) + "/p1/binding", Binding("p1", "n1").dump());
  ASSERT_EQ(first.status, 201) << first.body;
  json pod = Do("GET", std::string(kPods) + "/p1").Json();
  EXPECT_EQ(pod["spec"]["nodeName"], "n1");
  EXPECT_EQ(pod["metadata"]["annotations"]["etna.io/gpu-ids"], "0,1");
  EXPECT_EQ(pod["status"]["conditions"][0]["type"], "PodScheduled");
  auto second = Do("POST", std::string(kPods) + "/p1/binding", Binding("p1", "n2").dump());
  EXPECT_EQ(second.status, 409);
  EXPECT_NE(second.Json()["message"].get<std::string>().find("already assigned to node \"n1\""),
            std::string::npos);
}

TEST_F(PodSubresourcesTest, EvictionDeletesThePod) {
  MustCreate(kPods, Pod("p1"));
  auto r = Do("POST", std::string(kPods) + "/p1/eviction",
              R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p1"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Do("GET", std::string(kPods) + "/p1").status, 404);
  EXPECT_EQ(Do("POST", std::string(kPods) + "/p1/eviction", "{}").status, 404);
}

TEST_F(PodSubresourcesTest, LogsComeFromTheAgentOfTheNode) {
  MustCreate("/api/v1/nodes",
             {{"metadata", {{"name", "n1"}}},
              {"status",
               {{"addresses", {{{"type", "InternalIP"}, {"address", "127.0.0.1"}}}},
                {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}}}}});
  MustCreate(kPods, Pod("p1"));
  ASSERT_EQ(Do("POST", std::string(kPods) + "/p1/binding", Binding("p1", "n1").dump()).status, 201);
  LogRequest seen;
  log_fetcher_ = [&](const json& node, const LogRequest& r) {
    seen = r;
    EXPECT_EQ(node["metadata"]["name"], "n1");
    http::Response reply;
    reply.content_type = "text/plain";
    reply.body = "line 3\n";
    return reply;
  };
  auto r = Do("GET", std::string(kPods) + "/p1/log?tailLines=1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "line 3\n");
  EXPECT_EQ(seen.container, "c0");
  EXPECT_EQ(seen.query, "tailLines=1");
}

TEST_F(PodSubresourcesTest, LogsNeedABoundPodAndAKnownContainer) {
  MustCreate(kPods, Pod("p1"));
  EXPECT_EQ(Do("GET", std::string(kPods) + "/p1/log").status, 400);
  MustCreate(kPods, Pod("p2", 2));
  auto r = Do("GET", std::string(kPods) + "/p2/log");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.Json()["message"].get<std::string>().find("choose one of: [c0 c1]"),
            std::string::npos);
  EXPECT_EQ(Do("GET", std::string(kPods) + "/p2/log?container=zz").status, 400);
}

TEST_F(PodSubresourcesTest, AgentWithoutAddressIsUnavailable) {
  MustCreate("/api/v1/nodes", {{"metadata", {{"name", "n1"}}}});
  http::Response r = FetchLogFromAgent(json{{"metadata", {{"name", "n1"}}}}, LogRequest{});
  EXPECT_EQ(r.status, 503);
}

}  // namespace
}  // namespace etna::api::server
