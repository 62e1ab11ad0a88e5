// The HTTP transport's concurrency: requests from several threads are in flight at once (each
// on a connection of its own), which the controllers' workers and the scheduler's binders rely
// on to have their writes share one group commit. And its failover between servers.
#include "client/transport.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "client/kubeconfig.h"
#include "net/http/server.h"

namespace etna::client {
namespace {

TEST(HttpTransportTest, RequestsFromTwoThreadsAreInFlightAtOnce) {
  std::mutex mu;
  std::condition_variable cv;
  bool first_arrived = false, second_arrived = false;
  net::http::ServerOptions options;
  options.listen = "127.0.0.1:0";
  // /first answers "together" once /second has arrived while it waited (at most 10 s).
  net::http::HttpServer http(options, [&](const net::http::Request& r) {
    net::http::Response reply;
    std::unique_lock lock(mu);
    if (r.target == "/first") {
      first_arrived = true;
      cv.notify_all();
      bool together = cv.wait_for(lock, std::chrono::seconds(10), [&] { return second_arrived; });
      reply.body = together ? "together" : "alone";
    } else {
      second_arrived = true;
      cv.notify_all();
      reply.body = "second";
    }
    return reply;
  });
  ASSERT_TRUE(http.Start().ok());
  KubeConfig config;
  config.host = "127.0.0.1";
  config.port = http.port();
  config.tls = false;
  auto transport = MakeHttpTransport(config);
  std::string first;
  std::thread t([&] {
    auto reply = transport->Do("GET", "/first");
    first = reply.ok() ? reply->body : reply.status().ToString();
  });
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return first_arrived; }));
  }
  auto second = transport->Do("GET", "/second");
  t.join();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->body, "second");
  EXPECT_EQ(first, "together");
  http.Stop();
}

// A loopback port nothing listens on (bound, read, closed).
uint16_t ClosedPort() {
  net::http::ServerOptions options;
  options.listen = "127.0.0.1:0";
  net::http::HttpServer probe(options,
                              [](const net::http::Request&) { return net::http::Response(); });
  EXPECT_TRUE(probe.Start().ok());
  uint16_t port = probe.port();
  probe.Stop();
  return port;
}

TEST(HttpTransportTest, MovesToTheNextServerWhenOneCannotBeReached) {
  std::atomic<int> posts{0}, watches{0};
  net::http::ServerOptions options;
  options.listen = "127.0.0.1:0";
  net::http::HttpServer http(options, [&](const net::http::Request& r) {
    net::http::Response reply;
    if (r.method == "POST") ++posts;
    if (r.query.count("watch")) {
      ++watches;
      reply.body = "{\"type\":\"ADDED\"}\n";
    } else {
      reply.body = r.method + " " + r.path;
    }
    return reply;
  });
  ASSERT_TRUE(http.Start().ok());
  KubeConfig config;
  ASSERT_TRUE(SetServers(config, fmt::format("http://127.0.0.1:{}, http://127.0.0.1:{}",
                                             ClosedPort(), http.port()))
                  .ok());
  ASSERT_EQ(config.failover.size(), 1u);

  // A write the first server never received is sent to the second, once.
  auto transport = MakeHttpTransport(config);
  auto created = transport->Do("POST", "/api/v1/namespaces/default/pods", "{}");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->body, "POST /api/v1/namespaces/default/pods");
  EXPECT_EQ(posts, 1);
  // The second stays current for later requests.
  auto got = transport->Do("GET", "/api/v1/pods");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->body, "GET /api/v1/pods");

  // A watch that cannot connect fails and moves on; the caller's next watch reaches the second.
  auto watcher = MakeHttpTransport(config);
  std::vector<std::string> lines;
  auto first =
      watcher->Watch("/api/v1/pods?watch=1", [&](std::string_view l) { lines.emplace_back(l); });
  EXPECT_FALSE(first.ok());
  auto second =
      watcher->Watch("/api/v1/pods?watch=1", [&](std::string_view l) { lines.emplace_back(l); });
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(lines, std::vector<std::string>{"{\"type\":\"ADDED\"}"});
  EXPECT_EQ(watches, 1);
  http.Stop();
}

// A loopback listener that accepts connections and resets each at once (SO_LINGER 0), as a
// server being killed resets those its kernel had already accepted.
class ResettingListener {
 public:
  ResettingListener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), len), 0);
    EXPECT_EQ(listen(fd_, 16), 0);
    EXPECT_EQ(getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      for (int c; (c = accept(fd_, nullptr, nullptr)) >= 0;) {
        ++accepted_;
        linger reset{1, 0};
        setsockopt(c, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
        close(c);
      }
    });
  }
  ~ResettingListener() {
    shutdown(fd_, SHUT_RDWR);  // ends the blocked accept
    thread_.join();
    close(fd_);
  }
  uint16_t port() const { return port_; }
  int accepted() const { return accepted_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

TEST(HttpTransportTest, AWriteWhoseTlsHandshakeFailedGoesToTheNextServer) {
  std::atomic<int> posts{0};
  net::http::ServerOptions options;
  options.listen = "127.0.0.1:0";
  net::http::HttpServer http(options, [&](const net::http::Request& r) {
    if (r.method == "POST") ++posts;
    net::http::Response reply;
    reply.body = r.method + " " + r.path;
    return reply;
  });
  ASSERT_TRUE(http.Start().ok());
  ResettingListener resetting;
  KubeConfig config;
  ASSERT_TRUE(SetServers(config, fmt::format("https://127.0.0.1:{}, http://127.0.0.1:{}",
                                             resetting.port(), http.port()))
                  .ok());
  auto transport = MakeHttpTransport(config);
  auto created = transport->Do("POST", "/api/v1/namespaces/default/pods", "{}");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->body, "POST /api/v1/namespaces/default/pods");
  EXPECT_EQ(posts, 1);
  EXPECT_EQ(resetting.accepted(), 1);
  http.Stop();
}

TEST(HttpTransportTest, ServerListErrorsNameTheFlag) {
  KubeConfig config;
  EXPECT_NE(SetServers(config, "ftp://x").message().find("--server"), std::string::npos);
  EXPECT_NE(SetServers(config, " , ").message().find("--server"), std::string::npos);
  EXPECT_NE(SetServers(config, "https://a:99999").message().find("bad port"), std::string::npos);
}

}  // namespace
}  // namespace etna::client
