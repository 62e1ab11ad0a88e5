// The HTTP transport's concurrency: requests from several threads are in flight at once (each
// on a connection of its own), which the controllers' workers and the scheduler's binders rely
// on to have their writes share one group commit.
#include "client/transport.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace etna::client
