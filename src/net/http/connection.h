// One accepted HTTP/1.1 connection of HttpServer (internal), plain or TLS.
//
// A connection reads requests within the server's limits, hands each to the worker pool,
// writes the reply (Content-Length or a chunked ResponseStream) and loops while keep-alive.
// Everything a connection does runs on its own strand; Shutdown may be called from any thread.
#pragma once

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>  // before Asio (Boost 1.74)

#include "net/http/message.h"
#include "net/http/server.h"

namespace etna::net::http::internal {

// Lets a ResponseStream's wake function post to a connection only while the io_context lives.
struct WakeGate {
  std::mutex mu;
  bool open = true;
};

class ConnectionBase;

// What connections share with their server. Owned by HttpServer::Impl, outlives connections.
struct ServerContext {
  const ServerOptions* options = nullptr;
  const Handler* handler = nullptr;
  boost::asio::thread_pool* workers = nullptr;
  std::shared_ptr<WakeGate> gate = std::make_shared<WakeGate>();

  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;
  std::unordered_map<ConnectionBase*, std::weak_ptr<ConnectionBase>> live;

  // False when the server is stopping (the caller drops the connection).
  bool Register(const std::shared_ptr<ConnectionBase>& c);
  void Unregister(ConnectionBase* c);
  // Runs the handler, turning exceptions into a 500 Status.
  Response Call(const Request& request) const;

  // Large request bodies being received (ServerOptions::max_large_body_bytes_in_flight).
  std::atomic<size_t> large_body_bytes{0};
  // False (nothing reserved) when `bytes` more would pass the limit.
  bool ReserveLargeBody(size_t bytes);
  void ReleaseLargeBody(size_t bytes);
};

class ConnectionBase : public std::enable_shared_from_this<ConnectionBase> {
 public:
  explicit ConnectionBase(ServerContext* ctx) : ctx_(ctx) {}
  virtual ~ConnectionBase() { ctx_->Unregister(this); }
  virtual void Run() = 0;
  // Server stop: close idle reads and streams now, finish an in-flight request then close.
  virtual void Shutdown() = 0;
  // After the I/O threads stopped: cancel an open stream that never saw Shutdown.
  virtual void ForceCancel() = 0;

 protected:
  ServerContext* ctx_;
};

std::shared_ptr<ConnectionBase> MakePlainConnection(ServerContext* ctx,
                                                    boost::asio::ip::tcp::socket socket);
std::shared_ptr<ConnectionBase> MakeTlsConnection(ServerContext* ctx,
                                                  boost::asio::ip::tcp::socket socket,
                                                  boost::asio::ssl::context& tls);

}  // namespace etna::net::http::internal
