#include "net/http/client.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

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

// The client keeps its connection for the next request; when the server has closed it
// meanwhile, the request goes again on a new connection. The test plays the server: it answers
// /one, closes that connection, and only then lets the client send /two, which must arrive on a
// second connection.
TEST(ClientTest, ReconnectsWhenTheServerClosedTheIdleConnection) {
  testing::RawListener listener;
  ASSERT_NE(listener.port(), 0);
  std::promise<void> first_closed;
  std::vector<std::string> requests;  // the request each accepted connection carried
  std::thread server([&] {
    for (const std::string body : {"/one", "/two"}) {
      auto connection = listener.Accept();
      requests.push_back(connection->ReadUntil("\r\n\r\n"));
      connection->Send(
          fmt::format("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{}", body.size(), body));
      connection->Close();
      if (body == "/one") first_closed.set_value();
    }
  });
  ClientOptions o;
  o.tls = false;
  o.port = listener.port();
  HttpClient client(o);
  auto first = client.Do("GET", "/one");
  first_closed.get_future().wait();
  auto second = client.Do("GET", "/two");
  server.join();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->body, "/one");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->body, "/two");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].rfind("GET /one ", 0), 0u) << requests[0];
  EXPECT_EQ(requests[1].rfind("GET /two ", 0), 0u) << requests[1];
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
