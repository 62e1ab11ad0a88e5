// pods/binding, pods/eviction, pods/log and nodes/proxy through the REST engine.
#include <gtest/gtest.h>

#include <mutex>

#include "api/server/server_test_kit.h"
#include "net/http/server.h"

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
    net::http::Response reply;
    reply.content_type = "text/plain";
    reply.body = "line 3\n";
    return reply;
  };
  auto r = Do("GET", std::string(kPods) + "/p1/log?tailLines=1");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "line 3\n");
  EXPECT_EQ(seen.container, "c0");
  EXPECT_EQ(seen.query, "tailLines=1");
  // kubectl logs --since and --previous reach the agent as sent.
  ASSERT_EQ(Do("GET", std::string(kPods) + "/p1/log?previous=true&sinceSeconds=30").status, 200);
  EXPECT_EQ(seen.query, "sinceSeconds=30&previous=true");
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
  net::http::Response r = FetchLogFromAgent(json{{"metadata", {{"name", "n1"}}}}, LogRequest{});
  EXPECT_EQ(r.status, 503);
}

// A stand-in agent on loopback: answers /gpus with one reading, records the paths it served.
class FakeAgent {
 public:
  FakeAgent()
      : server_({.listen = "127.0.0.1:0"}, [this](const net::http::Request& r) {
          std::lock_guard lock(mu_);
          seen_.push_back(r.method + " " + r.target);
          net::http::Response reply;
          reply.body = R"([{"index":0,"utilizationGpu":42}])";
          return reply;
        }) {
    EXPECT_TRUE(server_.Start().ok());
  }
  uint16_t port() const { return server_.port(); }
  std::vector<std::string> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> seen_;
  net::http::HttpServer server_;
};

class NodeProxyTest : public testing::ServerTest {
 protected:
  // A node whose status names its agent at 127.0.0.1:port (status is written as agents do).
  void AgentNode(const std::string& name, int port) {
    MustCreate("/api/v1/nodes", {{"metadata", {{"name", name}}}});
    json status = {{"status",
                    {{"addresses", {{{"type", "InternalIP"}, {"address", "127.0.0.1"}}}},
                     {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", port}}}}}}}};
    auto r = Do("PATCH", "/api/v1/nodes/" + name + "/status", status.dump(),
                "application/merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
  }
};

TEST_F(NodeProxyTest, RelaysTheAgentsReadOnlyEndpoints) {
  FakeAgent agent;
  AgentNode("n1", agent.port());
  auto r = Do("GET", "/api/v1/nodes/n1/proxy/gpus");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json()[0]["utilizationGpu"], 42);
  EXPECT_EQ(Do("GET", "/api/v1/nodes/n1/proxy/metrics?x=1").status, 200);
  // The agent's own credential may read nodes, so it may read them through the proxy too.
  EXPECT_EQ(
      Do("GET", "/api/v1/nodes/n1/proxy/healthz", "", "application/json", "node-token").status,
      200);
  EXPECT_EQ(agent.seen(),
            (std::vector<std::string>{"GET /gpus", "GET /metrics?x=1", "GET /healthz"}));
}

TEST_F(NodeProxyTest, OnlyGetOfKnownPathsForNodeReaders) {
  FakeAgent agent;
  AgentNode("n1", agent.port());
  // Logs go through pods/log (authorized per namespace), never through the node proxy.
  EXPECT_EQ(Do("GET", "/api/v1/nodes/n1/proxy/containerLogs/default/p1/c0").status, 404);
  EXPECT_EQ(Do("GET", "/api/v1/nodes/n1/proxy").status, 404);
  EXPECT_EQ(Do("POST", "/api/v1/nodes/n1/proxy/gpus", "{}").status, 405);
  EXPECT_EQ(Do("DELETE", "/api/v1/nodes/n1/proxy/gpus").status, 405);
  // alice may write team-a only: no read on the cluster-scoped nodes.
  EXPECT_EQ(Do("GET", "/api/v1/nodes/n1/proxy/gpus", "", "application/json", "alice-token").status,
            403);
  EXPECT_EQ(Do("GET", "/api/v1/nodes/nope/proxy/gpus").status, 404);
  EXPECT_TRUE(agent.seen().empty());
}

TEST_F(NodeProxyTest, AnUnreachableAgentIsUnavailable) {
  MustCreate("/api/v1/nodes", {{"metadata", {{"name", "n1"}}}});
  EXPECT_EQ(Do("GET", "/api/v1/nodes/n1/proxy/gpus").status, 503);
  int closed_port = 0;
  {
    FakeAgent gone;
    closed_port = gone.port();
  }
  AgentNode("n2", closed_port);
  auto r = Do("GET", "/api/v1/nodes/n2/proxy/gpus");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("error trying to reach the agent of node"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace etna::api::server
