#include "net/http/client.h"

#include <gtest/gtest.h>

#include <thread>

#include "net/http/server.h"
#include "net/http/test_support.h"

namespace etna::net::http {
namespace {

TEST(ClientTest, UnreachableServerIsUnavailable) {
  ClientOptions o;
  o.tls = false;
  o.port = 1;  // nothing listens there
  HttpClient client(o);
  auto r = client.Do("GET", "/");
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().ToString();
}

TEST(ClientTest, MissingCaFileIsInvalidArgument) {
  ClientOptions o;
  o.port = 1;
  o.ca_file = "/nonexistent/ca.crt";
  HttpClient client(o);
  auto r = client.Do("GET", "/");
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
  EXPECT_NE(r.status().message().find("ca_file"), std::string::npos);
}

TEST(ClientTest, ReconnectsWhenTheServerClosedTheIdleConnection) {
  ServerOptions so;
  so.listen = "127.0.0.1:0";
  so.request_timeout = std::chrono::milliseconds(100);  // also the keep-alive idle limit
  HttpServer server(so, [](const Request& r) {
    Response res;
    res.body = r.path;
    return res;
  });
  ASSERT_TRUE(server.Start().ok());
  ClientOptions o;
  o.tls = false;
  o.port = server.port();
  HttpClient client(o);
  auto first = client.Do("GET", "/one");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // Let the server drop the idle connection (a later reuse would succeed anyway).
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  auto second = client.Do("GET", "/two");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->body, "/two");
}

TEST(ClientTest, TimesOutOnASilentServer) {
  // A listening socket that never answers.
  ServerOptions so;
  so.listen = "127.0.0.1:0";
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  HttpServer server(so, [&](const Request&) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return release; });
    return Response{};
  });
  ASSERT_TRUE(server.Start().ok());
  ClientOptions o;
  o.tls = false;
  o.port = server.port();
  o.timeout = std::chrono::milliseconds(200);
  HttpClient client(o);
  auto r = client.Do("GET", "/");
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().ToString();
  EXPECT_NE(r.status().message().find("timed out"), std::string::npos) << r.status().ToString();
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
}

}  // namespace
}  // namespace etna::net::http
