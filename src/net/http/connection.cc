#include "net/http/connection.h"

#include <fmt/format.h>

#include <array>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>  // before Asio (Boost 1.74)

#include "common/strings.h"
#include "net/http/wire.h"

namespace etna::net::http::internal {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

constexpr auto kCloseGrace = std::chrono::seconds(1);  // lingering close / TLS close_notify

std::string_view Std(beast::string_view s) { return {s.data(), s.size()}; }
beast::string_view Bst(std::string_view s) { return {s.data(), s.size()}; }

bool IsHttpParseError(const beast::error_code& ec) {
  return &ec.category() == &bhttp::make_error_code(bhttp::error::bad_method).category();
}

template <class Stream>
class Connection final : public ConnectionBase {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

  template <class... Args>
  Connection(ServerContext* ctx, tcp::socket socket, Args&&... args)
      : ConnectionBase(ctx), stream_(std::move(socket), std::forward<Args>(args)...) {
    beast::error_code ec;
    tcp::endpoint peer = beast::get_lowest_layer(stream_).socket().remote_endpoint(ec);
    if (!ec) {
      asio::ip::address a = peer.address();
      if (a.is_v6() && a.to_v6().is_v4_mapped()) {
        a = asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
      }
      remote_ = a.to_string();
      loopback_ = a.is_loopback();
    }
  }

  ~Connection() override { ReleaseLargeBody(); }

  void Run() override {
    asio::dispatch(stream_.get_executor(), [self = Self()] { self->Begin(); });
  }

  void Shutdown() override {
    asio::dispatch(stream_.get_executor(), [self = Self()] {
      self->stopping_ = true;
      if (self->state_ != State::kHandling && self->state_ != State::kWriting) self->Close();
    });
  }

  void ForceCancel() override { CancelStream(); }

 private:
  enum class State { kHandshake, kReading, kHandling, kWriting, kStreaming, kClosing, kClosed };

  std::shared_ptr<Connection> Self() {
    return std::static_pointer_cast<Connection>(shared_from_this());
  }
  beast::tcp_stream& Lowest() { return beast::get_lowest_layer(stream_); }
  const ServerOptions& Opts() const { return *ctx_->options; }

  void Begin() {
    if constexpr (kTls) {
      state_ = State::kHandshake;
      Lowest().expires_after(Opts().request_timeout);
      stream_.async_handshake(asio::ssl::stream_base::server,
                              [self = Self()](beast::error_code ec) {
                                if (ec) return self->Close();
                                self->DoRead();
                              });
    } else {
      DoRead();
    }
  }

  // ---- reading a request ----

  void DoRead() {
    if (stopping_) return Close();
    state_ = State::kReading;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(
        std::min<size_t>(Opts().max_header_bytes, std::numeric_limits<std::uint32_t>::max())));
    parser_->body_limit(Opts().max_body_bytes);
    Lowest().expires_after(Opts().request_timeout);  // the whole request, head and body
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             [self = Self()](beast::error_code ec, size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return OnReadError(ec);
    const auto& head = parser_->get();
    size_t count = static_cast<size_t>(std::distance(head.begin(), head.end()));
    if (count > Opts().max_header_count) {
      return ErrorReply(
          431, "RequestHeaderFieldsTooLarge",
          fmt::format("too many headers: {} (the limit is {})", count, Opts().max_header_count));
    }
    if (parser_->is_done()) return OnBody({});
    if (!AdmitLargeBody()) return;
    if (beast::iequals(head[bhttp::field::expect], "100-continue")) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                        [self = Self()](beast::error_code ec, size_t) {
                          if (ec) return self->Close();
                          self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  // For a large body: the server's screen, then a share of the large-body budget, held until
  // the handler has answered or the connection ends. False when the request was refused (answered).
  bool AdmitLargeBody() {
    const auto length = parser_->content_length();
    const size_t expected = length ? static_cast<size_t>(*length) : Opts().max_body_bytes;
    if (expected <= Opts().large_body_bytes) return true;
    if (Opts().screen_large_body) {
      Request head;
      FillRequestHead(parser_->get(), &head);
      if (std::optional<Response> refusal = Opts().screen_large_body(head)) {
        keep_alive_ = false;
        head_request_ = false;
        WriteResponse(std::move(*refusal));
        return false;
      }
    }
    // A body over the limit is refused by the parser (413) before it could use the budget.
    const size_t share = std::min(expected, Opts().max_body_bytes);
    if (!ctx_->ReserveLargeBody(share)) {
      Response busy = StatusResponse(
          429, "TooManyRequests",
          fmt::format("the server is receiving {} bytes of large request bodies already (the "
                      "limit is {}); retry later",
                      ctx_->large_body_bytes.load(), Opts().max_large_body_bytes_in_flight));
      busy.headers.emplace_back("Retry-After", "1");
      keep_alive_ = false;
      head_request_ = false;
      WriteResponse(std::move(busy));
      return false;
    }
    large_body_share_ = share;
    return true;
  }

  void ReleaseLargeBody() {
    if (large_body_share_ == 0) return;
    ctx_->ReleaseLargeBody(large_body_share_);
    large_body_share_ = 0;
  }

  void ReadBody() {
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = Self()](beast::error_code ec, size_t) { self->OnBody(ec); });
  }

  void OnReadError(beast::error_code ec) {
    if (ec == bhttp::error::body_limit) {
      return ErrorReply(413, "RequestEntityTooLarge",
                        fmt::format("the request body is larger than the limit of {} bytes",
                                    Opts().max_body_bytes));
    }
    if (ec == bhttp::error::header_limit) {
      return ErrorReply(431, "RequestHeaderFieldsTooLarge",
                        fmt::format("the request header is larger than the limit of {} bytes",
                                    Opts().max_header_bytes));
    }
    if (ec == bhttp::error::end_of_stream || ec == bhttp::error::partial_message ||
        !IsHttpParseError(ec)) {
      return Close();  // EOF, reset, timeout (a slow client), shutdown
    }
    ErrorReply(400, "BadRequest", fmt::format("malformed HTTP request: {}", ec.message()));
  }

  // Method, target, path, query, headers and the peer's address of a request head.
  void FillRequestHead(const bhttp::request<bhttp::string_body>& msg, Request* req) const {
    req->method = ToUpperAscii(Std(msg.method_string()));
    req->target = std::string(msg.target());
    ParseTarget(req->target, &req->path, &req->query);
    for (const auto& f : msg) {
      std::string name = Lower(Std(f.name_string()));
      auto [it, inserted] = req->headers.emplace(name, std::string(Std(f.value())));
      if (!inserted) it->second += ", " + std::string(Std(f.value()));
    }
    req->remote_address = remote_;
    req->from_loopback = loopback_;
  }

  void OnBody(beast::error_code ec) {
    if (ec) {
      ReleaseLargeBody();
      return OnReadError(ec);
    }
    bhttp::request<bhttp::string_body> msg = parser_->release();
    parser_.reset();
    Request req;
    FillRequestHead(msg, &req);
    req.body = std::move(msg.body());
    keep_alive_ = msg.keep_alive();
    head_request_ = req.method == "HEAD";
    state_ = State::kHandling;
    Lowest().expires_never();
    asio::post(*ctx_->workers, [self = Self(), req = std::move(req)]() mutable {
      Response res = self->ctx_->Call(req);
      auto ex = self->stream_.get_executor();
      asio::post(ex, [self = std::move(self), res = std::move(res)]() mutable {
        self->OnResponse(std::move(res));
      });
    });
  }

  static std::string ToUpperAscii(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return out;
  }

  // ---- writing a reply ----

  void OnResponse(Response res) {
    ReleaseLargeBody();  // held while the body waited for and went through the handler
    if (state_ == State::kClosed) {
      if (res.stream) res.stream->Cancel();
      return;
    }
    if (stopping_) keep_alive_ = false;
    if (res.upgrade && res.status == 101 && !stopping_) return StartUpgrade(std::move(res));
    if (res.upgrade) res.upgrade->Cancel();
    if (res.stream && !head_request_ && !stopping_) return StartStream(std::move(res));
    if (res.stream) res.stream->Cancel();
    WriteResponse(std::move(res));
  }

  void ErrorReply(int code, std::string_view reason, std::string_view message) {
    keep_alive_ = false;
    head_request_ = false;
    WriteResponse(StatusResponse(code, reason, message));
  }

  template <class Body>
  void FillHead(bhttp::response<Body>* msg, const Response& res) {
    msg->version(11);
    msg->result(res.status >= 100 && res.status <= 999 ? static_cast<unsigned>(res.status) : 500);
    if (!res.content_type.empty()) msg->set(bhttp::field::content_type, Bst(res.content_type));
    for (const auto& [name, value] : res.headers) msg->insert(Bst(name), Bst(value));
  }

  void WriteResponse(Response res) {
    out_.emplace();
    try {
      FillHead(&*out_, res);
      unsigned code = out_->result_int();
      bool no_body = code < 200 || code == 204 || code == 304;
      if (!no_body) out_->body() = std::move(res.body);
      out_->keep_alive(keep_alive_);
      out_->prepare_payload();
      if (head_request_) {
        size_t size = out_->body().size();
        out_->body().clear();
        out_->content_length(size);
      }
    } catch (const std::exception& e) {
      out_.emplace();
      Response err =
          StatusResponse(500, "InternalError", fmt::format("bad response: {}", e.what()));
      FillHead(&*out_, err);
      out_->body() = std::move(err.body);
      keep_alive_ = false;
      out_->keep_alive(false);
      out_->prepare_payload();
    }
    state_ = State::kWriting;
    Lowest().expires_after(Opts().request_timeout);
    bhttp::async_write(stream_, *out_, [self = Self()](beast::error_code ec, size_t) {
      self->out_.reset();
      if (ec) return self->Close();
      if (!self->keep_alive_ || self->stopping_) return self->GracefulClose();
      self->DoRead();
    });
  }

  // ---- chunked streams ----

  // What a stream calls, from any thread, when it has more: OnWake on the strand, while the
  // connection and the server's I/O live.
  std::function<void()> Waker() {
    std::weak_ptr<Connection> weak = Self();
    std::shared_ptr<WakeGate> gate = ctx_->gate;
    return [weak, gate] {
      std::lock_guard<std::mutex> lock(gate->mu);
      if (!gate->open) return;
      std::shared_ptr<Connection> self = weak.lock();
      if (!self) return;
      auto ex = self->stream_.get_executor();
      asio::post(ex, [weak] {
        if (auto s = weak.lock()) s->OnWake();
      });
    };
  }

  void StartStream(Response res) {
    state_ = State::kStreaming;
    keep_alive_ = false;  // a stream ends its connection: no read can run beside the next request
    body_ = std::move(res.stream);
    stream_head_.emplace();
    FillHead(&*stream_head_, res);
    stream_head_->keep_alive(false);
    stream_head_->chunked(true);
    stream_sr_.emplace(*stream_head_);
    // Notice a client that goes away: a read stays pending for the whole stream.
    Lowest().expires_never();
    StartDetectRead();
    writing_ = true;
    Lowest().expires_after(Opts().request_timeout);
    bhttp::async_write_header(stream_, *stream_sr_, [self = Self()](beast::error_code ec, size_t) {
      self->OnChunkWritten(ec);
    });
    body_->Start(Waker());
    OnWake();  // "Read once right after Start" (deferred while the header is being written)
  }

  void StartDetectRead() {
    stream_.async_read_some(asio::buffer(detect_), [self = Self()](beast::error_code ec, size_t) {
      if (self->state_ != State::kStreaming) return;
      if (ec) return self->Close();  // the client went away
      self->StartDetectRead();       // ignore what it sent
    });
  }

  void OnWake() {
    if (state_ != State::kStreaming || !body_ || cancelled_ || done_) return;
    if (writing_) {
      wake_pending_ = true;
      return;
    }
    wake_pending_ = false;
    std::string data;
    bool done = false;
    try {
      data = body_->Read(&done);
    } catch (const std::exception&) {
      return Close();
    }
    done_ = done;
    if (data.empty()) {
      if (done_) WriteLastChunk();
      return;
    }
    if (upgraded_) return WriteRaw(std::move(data));
    chunk_ = std::move(data);
    writing_ = true;
    Lowest().expires_after(Opts().request_timeout);
    asio::async_write(stream_, bhttp::make_chunk(asio::buffer(chunk_)),
                      [self = Self()](beast::error_code ec, size_t) { self->OnChunkWritten(ec); });
  }

  void OnChunkWritten(beast::error_code ec) {
    writing_ = false;
    if (state_ != State::kStreaming) return;
    if (ec) return Close();
    if (done_) return WriteLastChunk();
    if (wake_pending_) OnWake();
  }

  void WriteLastChunk() {
    if (upgraded_) {
      body_.reset();
      upgraded_.reset();
      return GracefulClose();
    }
    writing_ = true;
    Lowest().expires_after(Opts().request_timeout);
    asio::async_write(stream_, bhttp::make_chunk_last(),
                      [self = Self()](beast::error_code, size_t) {
                        self->body_.reset();
                        self->Close();  // the pending detect read rules out a graceful drain
                      });
  }

  void CancelStream() {
    if (body_ && !cancelled_ && !done_) {
      cancelled_ = true;
      body_->Cancel();
    }
    body_.reset();
    upgraded_.reset();
  }

  // ---- upgraded connections (101): raw bytes both ways ----

  void StartUpgrade(Response res) {
    state_ = State::kStreaming;
    keep_alive_ = false;
    upgraded_ = res.upgrade;
    body_ = std::move(res.upgrade);
    stream_head_.emplace();
    FillHead(&*stream_head_, res);
    stream_sr_.emplace(*stream_head_);
    writing_ = true;
    Lowest().expires_after(Opts().request_timeout);
    bhttp::async_write_header(stream_, *stream_sr_, [self = Self()](beast::error_code ec, size_t) {
      self->writing_ = false;
      if (ec) return self->Close();
      self->Lowest().expires_never();
      if (self->buffer_.size() > 0) {  // sent right behind the request head
        auto data = self->buffer_.data();
        self->upgraded_->Receive(
            std::string_view(static_cast<const char*>(data.data()), data.size()));
        self->buffer_.consume(self->buffer_.size());
      }
      self->ReadUpgraded();
      self->OnWake();
    });
    body_->Start(Waker());
  }

  void ReadUpgraded() {
    stream_.async_read_some(
        asio::buffer(upgraded_in_), [self = Self()](beast::error_code ec, size_t n) {
          if (self->state_ != State::kStreaming || !self->upgraded_) return;
          if (ec) return self->upgraded_->ClientClosed();
          self->upgraded_->Receive(std::string_view(self->upgraded_in_.data(), n));
          self->ReadUpgraded();
        });
  }

  void WriteRaw(std::string data) {
    chunk_ = std::move(data);
    writing_ = true;
    Lowest().expires_after(Opts().request_timeout);
    asio::async_write(stream_, asio::buffer(chunk_),
                      [self = Self()](beast::error_code ec, size_t) { self->OnChunkWritten(ec); });
  }

  // ---- closing ----

  // Sends what is left and closes, draining what the client still sends (so an early error
  // reply is not lost to a TCP reset), within kCloseGrace.
  void GracefulClose() {
    state_ = State::kClosing;
    Lowest().expires_after(kCloseGrace);
    if constexpr (kTls) {
      stream_.async_shutdown([self = Self()](beast::error_code) { self->Close(); });
    } else {
      beast::error_code ec;
      Lowest().socket().shutdown(tcp::socket::shutdown_send, ec);
      if (ec) return Close();
      Drain();
    }
  }

  void Drain() {
    stream_.async_read_some(asio::buffer(detect_), [self = Self()](beast::error_code ec, size_t) {
      if (ec || self->state_ != State::kClosing) return self->Close();
      self->Drain();
    });
  }

  void Close() {
    ReleaseLargeBody();
    if (state_ == State::kClosed) return;
    state_ = State::kClosed;
    CancelStream();
    beast::error_code ec;
    Lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
    Lowest().close();
  }

  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::optional<bhttp::response<bhttp::string_body>> out_;
  std::string remote_;
  bool loopback_ = false;
  State state_ = State::kReading;
  bool keep_alive_ = true;
  bool stopping_ = false;
  bool head_request_ = false;
  size_t large_body_share_ = 0;  // of ServerContext::large_body_bytes, while its body is read

  std::shared_ptr<ResponseStream> body_;
  std::optional<bhttp::response<bhttp::empty_body>> stream_head_;
  std::optional<bhttp::response_serializer<bhttp::empty_body>> stream_sr_;
  std::string chunk_;
  bool writing_ = false;
  bool wake_pending_ = false;
  bool done_ = false;
  bool cancelled_ = false;
  std::array<char, 1024> detect_{};
  std::shared_ptr<UpgradedStream> upgraded_;  // also body_, while the connection is upgraded
  std::array<char, 16384> upgraded_in_{};
};

}  // namespace

bool ServerContext::Register(const std::shared_ptr<ConnectionBase>& c) {
  std::lock_guard<std::mutex> lock(mu);
  if (stopping) return false;
  live.emplace(c.get(), c);
  return true;
}

void ServerContext::Unregister(ConnectionBase* c) {
  std::lock_guard<std::mutex> lock(mu);
  live.erase(c);
  cv.notify_all();
}

bool ServerContext::ReserveLargeBody(size_t bytes) {
  size_t now = large_body_bytes.load(std::memory_order_relaxed);
  do {
    if (now + bytes > options->max_large_body_bytes_in_flight) return false;
  } while (!large_body_bytes.compare_exchange_weak(now, now + bytes, std::memory_order_relaxed));
  return true;
}

void ServerContext::ReleaseLargeBody(size_t bytes) {
  large_body_bytes.fetch_sub(bytes, std::memory_order_relaxed);
}

Response ServerContext::Call(const Request& request) const {
  try {
    return (*handler)(request);
  } catch (const std::exception& e) {
    return StatusResponse(500, "InternalError", fmt::format("internal error: {}", e.what()));
  } catch (...) {
    return StatusResponse(500, "InternalError", "internal error");
  }
}

std::shared_ptr<ConnectionBase> MakePlainConnection(ServerContext* ctx, tcp::socket socket) {
  return std::make_shared<Connection<beast::tcp_stream>>(ctx, std::move(socket));
}

std::shared_ptr<ConnectionBase> MakeTlsConnection(ServerContext* ctx, tcp::socket socket,
                                                  asio::ssl::context& tls) {
  return std::make_shared<Connection<beast::ssl_stream<beast::tcp_stream>>>(ctx, std::move(socket),
                                                                            tls);
}

}  // namespace etna::net::http::internal
