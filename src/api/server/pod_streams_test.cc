// pods/exec relayed to the agent with a ticket, and the TokenReview that checks tickets.
#include "api/server/pod_streams.h"

#include <gtest/gtest.h>

#include <thread>

#include "api/server/server_test_kit.h"
#include "net/http/test_support.h"

namespace etna::api::server {
namespace {

using net::http::testing::RawListener;
using nlohmann::json;

constexpr const char* kPods = "/api/v1/namespaces/default/pods";

class PodStreamsTest : public testing::ServerTest {
 protected:
  // Node n1 whose agent listens on `port`, and pod p1 running on it; p1's uid.
  std::string RunningPodOn(uint16_t port) {
    MustCreate("/api/v1/nodes", {{"metadata", {{"name", "n1"}}}});
    json status = {{"status",
                    {{"addresses", {{{"type", "InternalIP"}, {"address", "127.0.0.1"}}}},
                     {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", port}}}}}}}};
    EXPECT_EQ(Do("PATCH", "/api/v1/nodes/n1/status", status.dump(), "application/merge-patch+json")
                  .status,
              200);
    json pod = MustCreate(
        kPods,
        {{"metadata", {{"name", "p1"}}},
         {"spec", {{"nodeName", "n1"}, {"containers", {{{"name", "c0"}, {"image", "busybox"}}}}}}});
    return pod["metadata"]["uid"];
  }

  net::http::Response Exec(const std::string& token, const std::string& query) {
    net::http::Request r;
    r.method = "GET";
    r.target = std::string(kPods) + "/p1/exec?" + query;
    r.path = std::string(kPods) + "/p1/exec";
    r.headers = {{"authorization", "Bearer " + token},
                 {"connection", "Upgrade"},
                 {"upgrade", "websocket"},
                 {"sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="},
                 {"sec-websocket-version", "13"},
                 {"sec-websocket-protocol", "v5.channel.k8s.io"}};
    return server_->Handle(r);
  }

  json Review(const std::string& ticket, const std::string& token = "node-token",
              json audiences = {kAgentAudience}) {
    json body = {{"apiVersion", "authentication.k8s.io/v1"},
                 {"kind", "TokenReview"},
                 {"spec", {{"token", ticket}, {"audiences", audiences}}}};
    auto r = Do("POST", "/apis/authentication.k8s.io/v1/tokenreviews", body.dump(),
                "application/json", token);
    return r.status == 201 ? r.Json() : json{{"code", r.status}};
  }
};

TEST_F(PodStreamsTest, ExecIsRelayedToTheAgentWithATicketForThatPod) {
  RawListener agent;
  std::string uid = RunningPodOn(agent.port());
  std::string head;
  std::thread fake([&] {
    auto s = agent.Accept();
    head = s->ReadUntil("\r\n\r\n");
    s->Send(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\nearly ");
    std::string got = s->ReadUntil("ping");
    s->Send(got == "ping" ? "pong" : "unexpected: " + got);
  });
  net::http::Response r = Exec("admin-token", "command=sh&command=-c&command=exit+3&stdout=true");
  ASSERT_EQ(r.status, 101) << r.body;
  ASSERT_TRUE(r.upgrade);
  EXPECT_NE(
      std::find(r.headers.begin(), r.headers.end(),
                std::pair<std::string, std::string>{"Sec-WebSocket-Protocol", "v5.channel.k8s.io"}),
      r.headers.end());
  r.upgrade->Start([] {});
  r.upgrade->Receive("ping");
  std::string relayed;
  bool done = false;
  for (int i = 0; i < 500 && !done; ++i) {
    relayed += r.upgrade->Read(&done);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  fake.join();
  EXPECT_TRUE(done);
  EXPECT_EQ(relayed, "early pong");
  EXPECT_EQ(head.substr(0, head.find("\r\n")),
            "GET /exec/default/p1/c0?command=sh&command=-c&command=exit+3&stdout=true HTTP/1.1");
  EXPECT_NE(head.find("sec-websocket-protocol: v5.channel.k8s.io"), std::string::npos) << head;
  size_t at = head.find("Authorization: Bearer ");
  ASSERT_NE(at, std::string::npos) << head;
  at += std::string("Authorization: Bearer ").size();
  std::string ticket = head.substr(at, head.find("\r\n", at) - at);

  json review = Review(ticket);
  EXPECT_EQ(review["status"]["authenticated"], true) << review;
  EXPECT_EQ(review["status"]["user"]["username"], "admin");
  EXPECT_EQ(review["status"]["user"]["extra"]["etna.io/pod-uid"], json({uid}));
  EXPECT_EQ(review["status"]["user"]["extra"]["etna.io/node"], json({"n1"}));
  EXPECT_EQ(review["status"]["user"]["extra"]["etna.io/subresource"], json({"exec"}));
  // Not a credential for the API, nor for another audience, nor after a minute.
  EXPECT_EQ(Do("GET", kPods, "", "application/json", ticket).status, 401);
  EXPECT_EQ(Review(ticket, "node-token", {"other"})["status"]["authenticated"], false);
  clock_.Advance(61'000);
  EXPECT_EQ(Review(ticket)["status"]["authenticated"], false);
}

TEST_F(PodStreamsTest, ExecIsAWriteOfTheNamespace) {
  RunningPodOn(1);
  net::http::Response r = Exec("alice-token", "command=true&stdout=true");  // team-a only
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_FALSE(r.upgrade);
}

TEST_F(PodStreamsTest, AgentRefusalReachesTheClient) {
  RawListener agent;
  RunningPodOn(agent.port());
  std::thread fake([&] {
    auto s = agent.Accept();
    s->ReadUntil("\r\n\r\n");
    s->Send("HTTP/1.1 400 Bad Request\r\nContent-Length: 19\r\n\r\ncommand: required\r\n");
  });
  net::http::Response r = Exec("admin-token", "stdout=true");
  fake.join();
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("command: required"), std::string::npos) << r.body;
}

TEST_F(PodStreamsTest, OnlyMastersAndAgentsReviewTokens) {
  EXPECT_EQ(Review("x", "alice-token")["code"], 403);
  json review = Review("alice-token", "node-token", json::array());
  EXPECT_EQ(review["status"]["authenticated"], true);
  EXPECT_EQ(review["status"]["user"]["username"], "alice");
  EXPECT_EQ(Review("nobody", "admin-token", json::array())["status"]["authenticated"], false);
}

}  // namespace
}  // namespace etna::api::server
