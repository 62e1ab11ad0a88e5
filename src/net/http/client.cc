#include "net/http/client.h"

#include <fmt/format.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <array>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <limits>
#include <optional>
#include <utility>  // before Asio (Boost 1.74)

#include "common/strings.h"
#include "net/http/wire.h"

namespace etna::net::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

std::string_view Std(beast::string_view s) { return {s.data(), s.size()}; }
beast::string_view Bst(std::string_view s) { return {s.data(), s.size()}; }

bool IsIpAddress(const std::string& host) {
  boost::system::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

bool IsStaleConnectionError(const beast::error_code& ec) {
  return ec == bhttp::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == asio::ssl::error::stream_truncated;
}

}  // namespace

class HttpClient::Impl {
 public:
  explicit Impl(ClientOptions options) : opt_(std::move(options)) {
    if (!opt_.tls) return;
    tls_.emplace(asio::ssl::context::tls_client);
    tls_->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                      asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                      asio::ssl::context::no_tlsv1_1);
    static const unsigned char kAlpn[] = "\x08http/1.1";
    SSL_CTX_set_alpn_protos(tls_->native_handle(), kAlpn, sizeof(kAlpn) - 1);
    if (opt_.insecure_skip_verify) {
      tls_->set_verify_mode(asio::ssl::verify_none);
      return;
    }
    tls_->set_verify_mode(asio::ssl::verify_peer);
    boost::system::error_code ec;
    if (!opt_.ca_pem.empty()) {
      tls_->add_certificate_authority(asio::buffer(opt_.ca_pem), ec);
    } else if (opt_.ca_file.empty()) {
      tls_->set_default_verify_paths(ec);
    } else {
      tls_->load_verify_file(opt_.ca_file, ec);
    }
    if (ec) {
      init_ =
          Status::InvalidArgument(fmt::format("ca_file \"{}\": {}", opt_.ca_file, ec.message()));
    }
  }

  ~Impl() { Disconnect(); }

  Result<ClientResponse> Do(std::string_view method, std::string_view target, std::string_view body,
                            std::string_view content_type,
                            const std::vector<std::pair<std::string, std::string>>& headers) {
    ETNA_RETURN_IF_ERROR(init_);
    bhttp::request<bhttp::string_body> req = MakeRequest(method, target, headers);
    if (!body.empty()) {
      req.set(bhttp::field::content_type, Bst(content_type));
      req.body() = std::string(body);
    }
    req.prepare_payload();
    bool head = method == "HEAD";
    for (int attempt = 0;; ++attempt) {
      bool reused = connected_;
      ETNA_RETURN_IF_ERROR(EnsureConnected());
      Expire(opt_.timeout);
      beast::error_code ec = WithStream(
          [&](auto& s) { return RunOp([&](auto h) { bhttp::async_write(s, req, h); }); });
      bhttp::response_parser<bhttp::string_body> parser;
      parser.body_limit(std::numeric_limits<std::uint64_t>::max());
      parser.header_limit(1 << 20);
      if (head) parser.skip(true);
      if (!ec) {
        ec = WithStream([&](auto& s) {
          return RunOp([&](auto h) { bhttp::async_read(s, buffer_, parser, h); });
        });
      }
      if (ec) {
        Disconnect();
        if (reused && attempt == 0 && !parser.got_some() && IsStaleConnectionError(ec)) continue;
        return Error("request", ec);
      }
      auto& msg = parser.get();
      ClientResponse out;
      out.status = static_cast<int>(msg.result_int());
      out.content_type = std::string(Std(msg[bhttp::field::content_type]));
      for (const auto& f : msg) {
        out.headers.emplace_back(Lower(Std(f.name_string())), std::string(Std(f.value())));
      }
      out.body = std::move(msg.body());
      if (!msg.keep_alive()) Disconnect();
      return out;
    }
  }

  // Thread-safe: posts the cancel onto the io_context the blocked call is running.
  void Cancel() {
    cancelled_ = true;
    asio::post(ioc_, [this] {
      if (secure_ || plain_) Lowest().cancel();
    });
  }

  Result<int> Stream(std::string_view method, std::string_view target,
                     const std::function<bool(std::string_view)>& on_data,
                     const std::vector<std::pair<std::string, std::string>>& headers) {
    ETNA_RETURN_IF_ERROR(init_);
    bhttp::request<bhttp::empty_body> req = MakeRequest<bhttp::empty_body>(method, target, headers);
    req.prepare_payload();
    std::optional<bhttp::response_parser<bhttp::buffer_body>> parser;
    for (int attempt = 0;; ++attempt) {
      bool reused = connected_;
      ETNA_RETURN_IF_ERROR(EnsureConnected());
      Expire(opt_.timeout);
      beast::error_code ec = WithStream(
          [&](auto& s) { return RunOp([&](auto h) { bhttp::async_write(s, req, h); }); });
      parser.emplace();
      parser->body_limit(std::numeric_limits<std::uint64_t>::max());
      parser->header_limit(1 << 20);
      if (method == "HEAD") parser->skip(true);
      if (!ec) {
        ec = WithStream([&](auto& s) {
          return RunOp([&](auto h) { bhttp::async_read_header(s, buffer_, *parser, h); });
        });
      }
      if (ec) {
        Disconnect();
        if (reused && attempt == 0 && !parser->got_some() && IsStaleConnectionError(ec)) continue;
        return Error("request", ec);
      }
      break;
    }
    int status = static_cast<int>(parser->get().result_int());
    Expire(std::nullopt);  // a watch may stay quiet for long
    std::array<char, 16 * 1024> buf;
    while (!parser->is_done()) {
      parser->get().body().data = buf.data();
      parser->get().body().size = buf.size();
      beast::error_code ec = WithStream([&](auto& s) {
        return RunOp([&](auto h) { bhttp::async_read_some(s, buffer_, *parser, h); });
      });
      if (ec == bhttp::error::need_buffer) ec = {};
      size_t n = buf.size() - parser->get().body().size;
      if (n > 0 && !on_data(std::string_view(buf.data(), n))) {
        Disconnect();  // the rest of the body is unread: the connection cannot be reused
        return status;
      }
      if (ec) {
        Disconnect();
        return Error("reading the stream", ec);
      }
    }
    if (!parser->get().keep_alive()) Disconnect();
    return status;
  }

 private:
  template <class Body = bhttp::string_body>
  bhttp::request<Body> MakeRequest(
      std::string_view method, std::string_view target,
      const std::vector<std::pair<std::string, std::string>>& headers) {
    bhttp::request<Body> req;
    req.version(11);
    bhttp::verb verb = bhttp::string_to_verb(Bst(method));
    if (verb == bhttp::verb::unknown) {
      req.method_string(Bst(method));
    } else {
      req.method(verb);
    }
    req.target(Bst(target));
    std::string host = opt_.host.find(':') != std::string::npos ? "[" + opt_.host + "]" : opt_.host;
    req.set(bhttp::field::host, fmt::format("{}:{}", host, opt_.port));
    req.set(bhttp::field::user_agent, "etna");
    if (!opt_.bearer_token.empty()) {
      req.set(bhttp::field::authorization, "Bearer " + opt_.bearer_token);
    }
    for (const auto& [name, value] : headers) req.set(name, value);
    req.keep_alive(true);
    return req;
  }

  template <class F>
  beast::error_code WithStream(F&& f) {
    if (secure_) return f(*secure_);
    return f(*plain_);
  }

  beast::tcp_stream& Lowest() { return secure_ ? beast::get_lowest_layer(*secure_) : *plain_; }

  void Expire(std::optional<std::chrono::milliseconds> timeout) {
    if (timeout) {
      Lowest().expires_after(*timeout);
    } else {
      Lowest().expires_never();
    }
  }

  // Runs one asynchronous operation to completion on the private io_context.
  template <class Start>
  beast::error_code RunOp(Start&& start) {
    beast::error_code result = asio::error::would_block;
    start([&result](beast::error_code ec, auto&&...) { result = ec; });
    ioc_.restart();
    ioc_.run();
    return result;
  }

  Status EnsureConnected() {
    if (cancelled_) return Status::Unavailable("cancelled");
    if (connected_) return Status::Ok();
    tcp::resolver resolver(ioc_);
    boost::system::error_code rec;
    auto results = resolver.resolve(opt_.host, std::to_string(opt_.port), rec);
    if (rec) {
      return Status::Unavailable(fmt::format("resolve {}: {}", opt_.host, rec.message()));
    }
    if (tls_) {
      secure_.emplace(ioc_, *tls_);
      SSL* ssl = secure_->native_handle();
      X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
      if (IsIpAddress(opt_.host)) {
        X509_VERIFY_PARAM_set1_ip_asc(param, opt_.host.c_str());
      } else {
        SSL_set_tlsext_host_name(ssl, opt_.host.c_str());
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        X509_VERIFY_PARAM_set1_host(param, opt_.host.c_str(), 0);
      }
    } else {
      plain_.emplace(ioc_);
    }
    Expire(opt_.timeout);
    beast::error_code ec = RunOp([&](auto h) { Lowest().async_connect(results, h); });
    if (ec) {
      Disconnect();
      return Error("connect", ec);
    }
    Lowest().socket().set_option(tcp::no_delay(true), ec);
    if (secure_) {
      ec = RunOp([&](auto h) { secure_->async_handshake(asio::ssl::stream_base::client, h); });
      if (ec) {
        Disconnect();
        return Error("TLS handshake", ec);
      }
    }
    connected_ = true;
    return Status::Ok();
  }

  void Disconnect() {
    if (secure_ || plain_) {
      beast::error_code ec;
      Lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
      Lowest().close();
    }
    secure_.reset();
    plain_.reset();
    buffer_.clear();
    connected_ = false;
  }

  Status Error(std::string_view what, const beast::error_code& ec) const {
    if (cancelled_) return Status::Unavailable("cancelled");
    std::string where = fmt::format("{} {}:{}", what, opt_.host, opt_.port);
    if (ec == beast::error::timeout) {
      return Status::Unavailable(
          fmt::format("{}: timed out after {} ms", where, opt_.timeout.count()));
    }
    return Status::Unavailable(fmt::format("{}: {}", where, ec.message()));
  }

  ClientOptions opt_;
  Status init_;
  asio::io_context ioc_;
  std::optional<asio::ssl::context> tls_;
  std::optional<beast::tcp_stream> plain_;
  std::optional<beast::ssl_stream<beast::tcp_stream>> secure_;
  beast::flat_buffer buffer_;
  bool connected_ = false;
  std::atomic<bool> cancelled_{false};
};

HttpClient::HttpClient(ClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

HttpClient::~HttpClient() = default;

Result<ClientResponse> HttpClient::Do(
    std::string_view method, std::string_view target, std::string_view body,
    std::string_view content_type,
    const std::vector<std::pair<std::string, std::string>>& headers) {
  return impl_->Do(method, target, body, content_type, headers);
}

void HttpClient::Cancel() { impl_->Cancel(); }

Result<int> HttpClient::Stream(std::string_view method, std::string_view target,
                               const std::function<bool(std::string_view)>& on_data,
                               const std::vector<std::pair<std::string, std::string>>& headers) {
  return impl_->Stream(method, target, on_data, headers);
}

}  // namespace etna::net::http
