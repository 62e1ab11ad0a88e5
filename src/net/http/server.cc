#include "net/http/server.h"

#include <fmt/format.h>
#include <openssl/ssl.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>  // before Asio (Boost 1.74)
#include <vector>

#include "net/http/connection.h"
#include "net/http/wire.h"

namespace etna::net::http {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Longest Stop() waits for in-flight requests before it tears the connections down.
constexpr auto kStopGrace = std::chrono::seconds(5);

// Picks "http/1.1" when the client offers it (Go offers h2 first); otherwise no ALPN.
int SelectAlpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
               unsigned int inlen, void*) {
  static const unsigned char kHttp11[] = "http/1.1";
  for (unsigned int i = 0; i < inlen;) {
    unsigned int len = in[i];
    if (i + 1 + len > inlen) break;
    if (len == 8 && std::memcmp(in + i + 1, kHttp11, 8) == 0) {
      *out = in + i + 1;
      *outlen = 8;
      return SSL_TLSEXT_ERR_OK;
    }
    i += 1 + len;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

}  // namespace

class HttpServer::Impl {
 public:
  Impl(ServerOptions options, Handler handler)
      : options_(std::move(options)), handler_(std::move(handler)) {
    ctx_.options = &options_;
    ctx_.handler = &handler_;
  }

  ~Impl() { Stop(); }

  Status Start() {
    if (started_) return Status::FailedPrecondition("HttpServer: already started");
    if (options_.io_threads < 1 || options_.worker_threads < 1) {
      return Status::InvalidArgument("io_threads and worker_threads must be at least 1");
    }
    ETNA_ASSIGN_OR_RETURN(tcp::endpoint endpoint, Resolve());
    if (options_.tls) ETNA_RETURN_IF_ERROR(LoadTls());

    acceptor_.emplace(asio::make_strand(ioc_));
    boost::system::error_code ec;
    acceptor_->open(endpoint.protocol(), ec);
    if (!ec) acceptor_->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_->bind(endpoint, ec);
    if (!ec) acceptor_->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      acceptor_.reset();
      std::string message = fmt::format("listen {}: {}", options_.listen, ec.message());
      if (ec == boost::system::errc::address_not_available) return Status::InvalidArgument(message);
      return Status::Unavailable(message);
    }
    port_ = acceptor_->local_endpoint().port();
    workers_.emplace(static_cast<size_t>(options_.worker_threads));
    ctx_.workers = &*workers_;
    started_ = true;
    Accept();
    for (int i = 0; i < options_.io_threads; ++i) {
      io_threads_.emplace_back([this] {
        for (;;) {
          try {
            ioc_.run();
            return;
          } catch (const std::exception&) {
            // A handler threw; keep serving the other connections.
          }
        }
      });
    }
    return Status::Ok();
  }

  uint16_t port() const { return port_; }

  void Stop() {
    if (!started_ || stopped_) return;
    stopped_ = true;
    std::vector<std::weak_ptr<internal::ConnectionBase>> live;
    {
      std::lock_guard<std::mutex> lock(ctx_.mu);
      ctx_.stopping = true;
      for (auto& [ptr, weak] : ctx_.live) live.push_back(weak);
    }
    asio::post(acceptor_->get_executor(), [this] {
      boost::system::error_code ec;
      acceptor_->close(ec);
    });
    for (auto& weak : live) {
      if (auto c = weak.lock()) c->Shutdown();
    }
    {
      std::unique_lock<std::mutex> lock(ctx_.mu);
      ctx_.cv.wait_for(lock, kStopGrace, [&] { return ctx_.live.empty(); });
    }
    {
      std::lock_guard<std::mutex> lock(ctx_.gate->mu);
      ctx_.gate->open = false;  // late wakes no longer touch the io_context
    }
    ioc_.stop();
    for (auto& t : io_threads_) t.join();
    io_threads_.clear();
    workers_->stop();
    workers_->join();
    live.clear();
    {
      std::lock_guard<std::mutex> lock(ctx_.mu);
      for (auto& [ptr, weak] : ctx_.live) live.push_back(weak);
    }
    for (auto& weak : live) {
      if (auto c = weak.lock()) c->ForceCancel();
    }
  }

 private:
  Result<tcp::endpoint> Resolve() {
    ETNA_ASSIGN_OR_RETURN(internal::HostPort hp,
                          internal::ParseHostPort(options_.listen, "listen"));
    std::string host = hp.host.empty() || hp.host == "*" ? "0.0.0.0" : hp.host;
    boost::system::error_code ec;
    asio::ip::address address = asio::ip::make_address(host, ec);
    if (!ec) return tcp::endpoint(address, hp.port);
    tcp::resolver resolver(ioc_);
    auto results = resolver.resolve(host, std::to_string(hp.port), ec);
    if (ec || results.empty()) {
      return Status::InvalidArgument(
          fmt::format("listen: cannot resolve host \"{}\": {}", host, ec.message()));
    }
    tcp::endpoint chosen = results.begin()->endpoint();
    for (const auto& r : results) {
      if (r.endpoint().address().is_v4()) return r.endpoint();  // "localhost" → 127.0.0.1
    }
    return chosen;
  }

  Status LoadTls() {
    tls_.emplace(asio::ssl::context::tls_server);
    tls_->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                      asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                      asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
    boost::system::error_code ec;
    tls_->use_certificate_chain_file(options_.tls->cert_file, ec);
    if (ec) {
      return Status::InvalidArgument(
          fmt::format("tls.cert_file {}: {}", options_.tls->cert_file, ec.message()));
    }
    tls_->use_private_key_file(options_.tls->key_file, asio::ssl::context::pem, ec);
    if (ec) {
      return Status::InvalidArgument(
          fmt::format("tls.key_file {}: {}", options_.tls->key_file, ec.message()));
    }
    if (SSL_CTX_check_private_key(tls_->native_handle()) != 1) {
      return Status::InvalidArgument(fmt::format("tls.key_file {} does not match tls.cert_file {}",
                                                 options_.tls->key_file, options_.tls->cert_file));
    }
    SSL_CTX_set_alpn_select_cb(tls_->native_handle(), SelectAlpn, nullptr);
    return Status::Ok();
  }

  void Accept() {
    acceptor_->async_accept(
        asio::make_strand(ioc_), [this](boost::system::error_code ec, tcp::socket socket) {
          if (ec == asio::error::operation_aborted || !acceptor_->is_open()) return;
          if (ec) {
            // Out of descriptors and the like: back off briefly instead of spinning.
            auto timer = std::make_shared<asio::steady_timer>(acceptor_->get_executor(),
                                                              std::chrono::milliseconds(50));
            timer->async_wait([this, timer](boost::system::error_code) {
              if (acceptor_->is_open()) Accept();
            });
            return;
          }
          boost::system::error_code ignored;
          socket.set_option(tcp::no_delay(true), ignored);
          std::shared_ptr<internal::ConnectionBase> c =
              tls_ ? internal::MakeTlsConnection(&ctx_, std::move(socket), *tls_)
                   : internal::MakePlainConnection(&ctx_, std::move(socket));
          if (ctx_.Register(c)) c->Run();
          Accept();
        });
  }

  // Order matters: connections (destroyed with ioc_ and workers_) use ctx_ and tls_.
  ServerOptions options_;
  Handler handler_;
  internal::ServerContext ctx_;
  std::optional<asio::ssl::context> tls_;
  asio::io_context ioc_;
  std::optional<tcp::acceptor> acceptor_;
  std::optional<asio::thread_pool> workers_;
  std::vector<std::thread> io_threads_;
  uint16_t port_ = 0;
  bool started_ = false;
  bool stopped_ = false;
};

HttpServer::HttpServer(ServerOptions options, Handler handler)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler))) {}

HttpServer::~HttpServer() = default;

Status HttpServer::Start() { return impl_->Start(); }

uint16_t HttpServer::port() const { return impl_->port(); }

void HttpServer::Stop() { impl_->Stop(); }

}  // namespace etna::net::http
