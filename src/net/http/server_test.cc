#include "net/http/server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "net/http/certificates.h"
#include "net/http/client.h"
#include "net/http/test_support.h"
#include "net/http/wire.h"

namespace etna::net::http {
namespace {

using testing::RawSocket;
using testing::TestStream;

const Certificates& TestCerts() {
  static const Certificates certs = [] {
    auto r = EnsureCertificates(testing::MakeTempDir(), {"localhost", "127.0.0.1"});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Certificates{};
  }();
  return certs;
}

// An upgraded connection that echoes what it receives in upper case and ends after "BYE".
class EchoUpgrade : public UpgradedStream {
 public:
  void Start(std::function<void()> wake) override {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = std::move(wake);
  }
  std::string Read(bool* done) override {
    std::lock_guard<std::mutex> lock(mu_);
    *done = pending_.find("BYE") != std::string::npos;
    return std::exchange(pending_, "");
  }
  void Receive(std::string_view data) override {
    std::function<void()> wake;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (char c : data) pending_.push_back(static_cast<char>(std::toupper(c)));
      wake = wake_;
    }
    if (wake) wake();
  }
  void ClientClosed() override {}
  void Cancel() override {}

 private:
  std::mutex mu_;
  std::function<void()> wake_;
  std::string pending_;
};

// Echoes the request; "/upgrade" switches to EchoUpgrade; "/stream" answers with the fixture's
// current TestStream; "/throw" throws.
class ServerTest : public ::testing::TestWithParam<bool> {
 protected:
  bool tls() const { return GetParam(); }

  void StartServer(ServerOptions options = {}) {
    options.listen = "127.0.0.1:0";
    if (tls()) options.tls = TestCerts().serving;
    server_ = std::make_unique<HttpServer>(options, [this](const Request& r) { return Handle(r); });
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_NE(server_->port(), 0);
  }

  Response Handle(const Request& r) {
    if (r.path == "/throw") throw std::runtime_error("boom");
    if (r.path == "/upgrade") {
      Response res;
      res.status = 101;
      res.content_type.clear();
      res.headers = {{"Upgrade", "echo"}, {"Connection", "Upgrade"}};
      res.upgrade = std::make_shared<EchoUpgrade>();
      return res;
    }
    if (r.path == "/stream") {
      Response res;
      std::lock_guard<std::mutex> lock(mu_);
      res.stream = next_stream_;
      return res;
    }
    Response res;
    res.content_type = "text/plain";
    res.headers.push_back({"X-Echo", "1"});
    res.body = r.method + "|" + r.path + "|" + r.Query("a") + "|" + r.Query("b") + "|" +
               r.Query("c") + "|" + (r.HasQuery("flag") ? "flag" : "-") + "|" + r.Header("x-test") +
               "|" + r.Header("authorization") + "|" + r.remote_address + "|" +
               (r.from_loopback ? "lo" : "remote") + "|" + r.body;
    return res;
  }

  std::shared_ptr<TestStream> NextStream() {
    auto s = std::make_shared<TestStream>();
    std::lock_guard<std::mutex> lock(mu_);
    next_stream_ = s;
    return s;
  }

  ClientOptions ClientOpts() const {
    ClientOptions o;
    o.port = server_->port();
    o.tls = tls();
    o.ca_file = TestCerts().ca_file;
    o.timeout = std::chrono::seconds(10);
    return o;
  }

  std::unique_ptr<HttpServer> server_;
  std::mutex mu_;
  std::shared_ptr<TestStream> next_stream_;
  Handler options_handler_;
};

TEST_P(ServerTest, EchoesRequest) {
  StartServer();
  ClientOptions o = ClientOpts();
  o.bearer_token = "tok";
  HttpClient client(o);
  auto r = client.Do("post", "/api/v1/na%6Des?a=1&b=%2Fx%20y&c=a+b&flag", "hello", "text/plain",
                     {{"X-Test", "yes"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->content_type, "text/plain");
  EXPECT_EQ(r->body, "POST|/api/v1/names|1|/x y|a+b|flag|yes|Bearer tok|127.0.0.1|lo|hello");
  bool echo = false;
  for (const auto& [k, v] : r->headers) echo |= k == "x-echo" && v == "1";
  EXPECT_TRUE(echo);
  // The same client again (keep-alive), and HEAD carries no body.
  auto again = client.Do("GET", "/x?a=2");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->body, "GET|/x|2|||-||Bearer tok|127.0.0.1|lo|");
  auto head = client.Do("HEAD", "/x");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->body, "");
  auto after = client.Do("GET", "/y");
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->body.substr(0, 6), "GET|/y");
}

TEST_P(ServerTest, HandlerThatThrowsGives500) {
  StartServer();
  HttpClient client(ClientOpts());
  auto r = client.Do("GET", "/throw");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 500);
  EXPECT_NE(r->body.find(R"("kind":"Status")"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("boom"), std::string::npos) << r->body;
  auto next = client.Do("GET", "/ok");  // the server lives on
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->status, 200);
}

TEST_P(ServerTest, StreamsPiecesInOrderAsTheyAreProduced) {
  StartServer();
  auto stream = NextStream();
  std::mutex mu;
  std::condition_variable cv;
  std::string got;
  Result<int> status = Status::Internal("not run");
  std::thread reader([&] {
    HttpClient client(ClientOpts());
    status = client.Stream("GET", "/stream", [&](std::string_view piece) {
      std::lock_guard<std::mutex> lock(mu);
      got += piece;
      cv.notify_all();
      return true;
    });
  });
  ASSERT_TRUE(stream->WaitStarted());
  for (std::string piece : {"one\n", "two\n", "three\n"}) {
    std::string want;
    {
      std::lock_guard<std::mutex> lock(mu);
      want = got + piece;
    }
    stream->Push(piece);
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return got == want; }))
        << "got so far: " << got;
  }
  stream->Finish();
  reader.join();
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ(*status, 200);
  EXPECT_EQ(got, "one\ntwo\nthree\n");
  EXPECT_FALSE(stream->cancelled());
}

TEST_P(ServerTest, ClientThatLeavesMidStreamCancelsTheStream) {
  StartServer();
  auto stream = NextStream();
  stream->Push("first\n");
  HttpClient client(ClientOpts());
  std::string got;
  auto status = client.Stream("GET", "/stream", [&](std::string_view piece) {
    got += piece;
    return false;  // hang up
  });
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ(got, "first\n");
  EXPECT_TRUE(stream->WaitCancelled());
}

TEST_P(ServerTest, StopWithAnOpenStreamIsPromptAndCancelsIt) {
  StartServer();
  auto stream = NextStream();
  std::atomic<bool> got_first{false};
  std::thread reader([&] {
    HttpClient client(ClientOpts());
    (void)client.Stream("GET", "/stream", [&](std::string_view) {
      got_first = true;
      return true;
    });
  });
  ASSERT_TRUE(stream->WaitStarted());
  stream->Push("x");
  auto start = std::chrono::steady_clock::now();
  server_->Stop();
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds(2));
  EXPECT_TRUE(stream->cancelled());
  reader.join();    // the client sees the end of the connection
  server_->Stop();  // idempotent
}

INSTANTIATE_TEST_SUITE_P(PlainAndTls, ServerTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Tls" : "Plain"; });

// ---- limits, over raw sockets (plain HTTP) ----

class PlainServerTest : public ServerTest {};

TEST_P(PlainServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  StartServer();
  RawSocket s(server_->port());
  ASSERT_TRUE(s.connected());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(s.Send("GET /k?a=" + std::to_string(i) + " HTTP/1.1\r\nHost: x\r\n\r\n"));
    std::string want = "GET|/k|" + std::to_string(i) + "|";
    std::string got = s.ReadUntil(want);
    EXPECT_NE(got.find("HTTP/1.1 200"), std::string::npos) << got;
    EXPECT_NE(got.find(want), std::string::npos) << got;
  }
}

TEST_P(PlainServerTest, UpgradedConnectionCarriesRawBytesBothWays) {
  StartServer();
  RawSocket s(server_->port());
  // Bytes right behind the head reach the upgraded stream too.
  ASSERT_TRUE(
      s.Send("GET /upgrade HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n"
             "Upgrade: echo\r\n\r\nhello "));
  std::string head = s.ReadUntil("HELLO ");
  EXPECT_EQ(head.substr(0, 12), "HTTP/1.1 101") << head;
  EXPECT_NE(head.find("Upgrade: echo"), std::string::npos) << head;
  EXPECT_EQ(head.find("Transfer-Encoding"), std::string::npos) << head;
  EXPECT_EQ(head.substr(head.size() - 6), "HELLO ") << head;
  ASSERT_TRUE(s.Send("world bye"));
  bool closed = false;
  EXPECT_EQ(s.ReadAll(&closed), "WORLD BYE");
  EXPECT_TRUE(closed);
}

TEST_P(PlainServerTest, BodyOverTheLimitWithContentLengthIs413) {
  StartServer();
  RawSocket s(server_->port());
  ASSERT_TRUE(s.Send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                     std::to_string(3 * 1024 * 1024 + 1) + "\r\n\r\n"));
  bool closed = false;
  std::string got = s.ReadAll(&closed);
  EXPECT_EQ(got.substr(0, 12), "HTTP/1.1 413") << got;
  EXPECT_NE(got.find(R"("reason":"RequestEntityTooLarge","code":413)"), std::string::npos) << got;
  EXPECT_TRUE(closed);
}

TEST_P(PlainServerTest, BodyAtTheLimitIsAccepted) {
  StartServer();
  HttpClient client(ClientOpts());
  auto r = client.Do("PUT", "/x", std::string(3 * 1024 * 1024, 'a'));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), 3u * 1024 * 1024 + std::string("PUT|/x||||-|||127.0.0.1|lo|").size());
}

TEST_P(PlainServerTest, ChunkedBodyOverTheLimitIs413) {
  StartServer();
  RawSocket s(server_->port());
  ASSERT_TRUE(s.Send("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"));
  std::thread writer([&] {
    std::string chunk = "10000\r\n" + std::string(0x10000, 'z') + "\r\n";
    for (int i = 0; i < 64; ++i) {  // 4 MiB
      if (!s.Send(chunk)) return;
    }
    s.Send("0\r\n\r\n");
  });
  std::string got = s.ReadUntil("\"code\":413}");
  writer.join();
  EXPECT_EQ(got.substr(0, 12), "HTTP/1.1 413") << got.substr(0, 200);
  EXPECT_NE(got.find("RequestEntityTooLarge"), std::string::npos);
}

// Large bodies share one budget: one past it is refused with 429 before its body is read, a
// small body is not counted, and the budget comes back when the request is answered.
TEST_P(PlainServerTest, LargeBodiesPastTheSharedBudgetAre429UntilOneIsAnswered) {
  ServerOptions o;
  o.large_body_bytes = 1000;
  o.max_large_body_bytes_in_flight = 3000;
  StartServer(o);
  auto head = [](size_t length) {
    return "POST /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: " +
           std::to_string(length) + "\r\n\r\n";
  };
  RawSocket first(server_->port());
  ASSERT_TRUE(first.Send(head(2000)));
  ASSERT_EQ(first.ReadUntil("\r\n\r\n").substr(0, 12), "HTTP/1.1 100");  // its share is held

  RawSocket second(server_->port());
  ASSERT_TRUE(second.Send(head(2000)));
  bool closed = false;
  std::string refused = second.ReadAll(&closed);
  EXPECT_EQ(refused.substr(0, 12), "HTTP/1.1 429") << refused;
  EXPECT_NE(refused.find("Retry-After: 1"), std::string::npos) << refused;
  EXPECT_NE(refused.find("the limit is 3000"), std::string::npos) << refused;
  EXPECT_TRUE(closed);

  RawSocket small(server_->port());
  ASSERT_TRUE(
      small.Send("POST /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                 "Content-Length: 900\r\n\r\n" +
                 std::string(900, 's')));
  EXPECT_EQ(small.ReadAll().substr(0, 12), "HTTP/1.1 200");

  ASSERT_TRUE(first.Send(std::string(2000, 'f')));
  EXPECT_EQ(first.ReadUntil("|lo|").substr(0, 12), "HTTP/1.1 200");
  HttpClient client(ClientOpts());
  auto again = client.Do("PUT", "/x", std::string(2000, 'a'));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->status, 200);
}

// The screen sees a large body's head and can refuse it unread; small bodies skip it.
TEST_P(PlainServerTest, TheScreenRefusesALargeBodyBeforeItIsRead) {
  ServerOptions o;
  o.large_body_bytes = 1000;
  std::atomic<int> screened{0};
  o.screen_large_body = [&](const Request& head) -> std::optional<Response> {
    ++screened;
    if (head.Header("authorization") == "ok" && head.path == "/x") return std::nullopt;
    return internal::StatusResponse(401, "Unauthorized", "Unauthorized");
  };
  StartServer(o);
  RawSocket refused(server_->port());
  ASSERT_TRUE(refused.Send("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n"));
  bool closed = false;
  std::string got = refused.ReadAll(&closed);  // answered with none of the body sent
  EXPECT_EQ(got.substr(0, 12), "HTTP/1.1 401") << got;
  EXPECT_TRUE(closed);

  HttpClient client(ClientOpts());
  auto passed =
      client.Do("PUT", "/x", std::string(5000, 'a'), "application/json", {{"Authorization", "ok"}});
  ASSERT_TRUE(passed.ok()) << passed.status().ToString();
  EXPECT_EQ(passed->status, 200);
  auto small = client.Do("PUT", "/x", std::string(500, 'a'));
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_EQ(small->status, 200);
  EXPECT_EQ(screened.load(), 2);
}

TEST_P(PlainServerTest, TooManyHeadersIs431) {
  ServerOptions o;
  StartServer(o);
  RawSocket s(server_->port());
  std::string req = "GET /x HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 100; ++i) req += "X-H" + std::to_string(i) + ": v\r\n";  // 101 in all
  ASSERT_TRUE(s.Send(req + "\r\n"));
  bool closed = false;
  std::string got = s.ReadAll(&closed);
  EXPECT_EQ(got.substr(0, 12), "HTTP/1.1 431") << got;
  EXPECT_NE(got.find("too many headers: 101 (the limit is 100)"), std::string::npos) << got;
  EXPECT_TRUE(closed);

  RawSocket ok(server_->port());  // exactly 100 pass
  std::string fine = "GET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  for (int i = 0; i < 98; ++i) fine += "X-H" + std::to_string(i) + ": v\r\n";
  ASSERT_TRUE(ok.Send(fine + "\r\n"));
  EXPECT_EQ(ok.ReadAll().substr(0, 12), "HTTP/1.1 200");
}

TEST_P(PlainServerTest, HeaderBytesOverTheLimitIs431) {
  StartServer();
  RawSocket s(server_->port());
  ASSERT_TRUE(
      s.Send("GET /x HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(70 * 1024, 'b') + "\r\n\r\n"));
  std::string got = s.ReadAll();
  EXPECT_EQ(got.substr(0, 12), "HTTP/1.1 431") << got.substr(0, 200);
  EXPECT_NE(got.find("65536 bytes"), std::string::npos) << got;
}

TEST_P(PlainServerTest, MalformedRequestIs400) {
  StartServer();
  RawSocket s(server_->port());
  ASSERT_TRUE(s.Send("GET /x HTTP/9.9\r\n\r\n"));
  std::string got = s.ReadAll();
  EXPECT_EQ(got.substr(0, 12), "HTTP/1.1 400") << got;
}

TEST_P(PlainServerTest, SlowClientIsClosedAfterTheRequestTimeout) {
  ServerOptions o;
  o.request_timeout = std::chrono::milliseconds(300);
  StartServer(o);
  RawSocket s(server_->port(), std::chrono::seconds(10));
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(s.Send("GET /x HTTP/1.1\r\nHost: x\r\n"));  // half a request, then nothing
  bool closed = false;
  std::string got = s.ReadAll(&closed);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(closed) << "the server did not close the connection within 10 s";
  EXPECT_EQ(got, "");
  EXPECT_GE(took, std::chrono::milliseconds(250));
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST_P(PlainServerTest, ManyIdleStreamsNeedNoThreads) {
  ServerOptions o;
  o.worker_threads = 4;
  o.io_threads = 1;
  constexpr int kStreams = 200;
  std::vector<std::shared_ptr<TestStream>> streams;
  for (int i = 0; i < kStreams; ++i) streams.push_back(std::make_shared<TestStream>());
  options_handler_ = [&](const Request& r) {
    Response res;
    if (r.path == "/watch") {  // the i-th socket asks for /watch?i=<i>: requests race each other
      res.stream = streams[static_cast<size_t>(std::stoi(r.Query("i")))];
    } else {
      res.body = "pong";
    }
    return res;
  };
  o.listen = "127.0.0.1:0";
  server_ = std::make_unique<HttpServer>(o, [&](const Request& r) { return options_handler_(r); });
  ASSERT_TRUE(server_->Start().ok());
  std::vector<std::unique_ptr<RawSocket>> sockets;
  for (int i = 0; i < kStreams; ++i) {
    sockets.push_back(std::make_unique<RawSocket>(server_->port()));
    ASSERT_TRUE(
        sockets.back()->Send("GET /watch?i=" + std::to_string(i) + " HTTP/1.1\r\nHost: x\r\n\r\n"));
  }
  for (auto& s : streams) ASSERT_TRUE(s->WaitStarted());
  HttpClient client(ClientOpts());
  auto r = client.Do("GET", "/ping");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body, "pong");
  // Every stream still delivers.
  streams[7]->Push("hi");
  EXPECT_NE(sockets[7]->ReadUntil("hi").find("hi"), std::string::npos);
  server_->Stop();
  for (auto& s : streams) EXPECT_TRUE(s->cancelled());
}

INSTANTIATE_TEST_SUITE_P(Plain, PlainServerTest, ::testing::Values(false));

// ---- listen addresses ----

TEST(ListenTest, AddressForms) {
  struct Case {
    std::string listen;
    bool ok;
    StatusCode code;
  };
  for (const Case& c : std::vector<Case>{
           {"127.0.0.1:0", true, StatusCode::kOk},
           {"localhost:0", true, StatusCode::kOk},
           {"0.0.0.0:0", true, StatusCode::kOk},
           {"127.0.0.1", false, StatusCode::kInvalidArgument},
           {"127.0.0.1:99999", false, StatusCode::kInvalidArgument},
           {"127.0.0.1:http", false, StatusCode::kInvalidArgument},
           {"::1:80", false, StatusCode::kInvalidArgument},
           {"[::1:80", false, StatusCode::kInvalidArgument},
           {"no-such-host.invalid:0", false, StatusCode::kInvalidArgument},
           {"192.0.2.1:0", false, StatusCode::kInvalidArgument},  // not a local address
       }) {
    ServerOptions o;
    o.listen = c.listen;
    HttpServer server(o, [](const Request&) { return Response{}; });
    Status st = server.Start();
    EXPECT_EQ(st.ok(), c.ok) << c.listen << ": " << st.ToString();
    if (!c.ok) {
      EXPECT_EQ(st.code(), c.code) << c.listen << ": " << st.ToString();
      EXPECT_NE(st.message().find("listen"), std::string::npos) << st.ToString();
    }
  }
}

TEST(ListenTest, Ipv6Loopback) {
  ServerOptions o;
  o.listen = "[::1]:0";
  HttpServer server(o, [](const Request&) { return Response{}; });
  Status st = server.Start();
  if (!st.ok()) GTEST_SKIP() << "no IPv6 here: " << st.ToString();
  EXPECT_NE(server.port(), 0);
}

TEST(ListenTest, AddressInUseIsUnavailable) {
  ServerOptions o;
  o.listen = "127.0.0.1:0";
  HttpServer first(o, [](const Request&) { return Response{}; });
  ASSERT_TRUE(first.Start().ok());
  o.listen = "127.0.0.1:" + std::to_string(first.port());
  HttpServer second(o, [](const Request&) { return Response{}; });
  Status st = second.Start();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
}

TEST(ListenTest, BadTlsFilesAreInvalidArgument) {
  ServerOptions o;
  o.listen = "127.0.0.1:0";
  o.tls = TlsFiles{"/nonexistent/server.crt", "/nonexistent/server.key"};
  HttpServer server(o, [](const Request&) { return Response{}; });
  Status st = server.Start();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("tls.cert_file"), std::string::npos) << st.ToString();
}

// ---- target decoding ----

TEST(WireTest, ParseTarget) {
  struct Case {
    std::string target, path;
    std::map<std::string, std::string> query;
  };
  for (const Case& c : std::vector<Case>{
           {"/api/v1/pods", "/api/v1/pods", {}},
           {"/a%2Fb?x=1&x=2", "/a/b", {{"x", "2"}}},
           {"/p?labelSelector=app%3Dweb%2Ctier%21%3Dfe&watch",
            "/p",
            {{"labelSelector", "app=web,tier!=fe"}, {"watch", ""}}},
           {"/p?a=b+c&&d=%zz%4", "/p", {{"a", "b+c"}, {"d", "%zz%4"}}},
       }) {
    std::string path;
    std::map<std::string, std::string> query;
    internal::ParseTarget(c.target, &path, &query);
    EXPECT_EQ(path, c.path) << c.target;
    EXPECT_EQ(query, c.query) << c.target;
  }
}

TEST(WireTest, StatusJsonEscapes) {
  EXPECT_EQ(internal::StatusJson(413, "RequestEntityTooLarge", "a \"b\"\n"),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"a \"b\"\n","reason":"RequestEntityTooLarge","code":413})");
}

}  // namespace
}  // namespace etna::net::http
