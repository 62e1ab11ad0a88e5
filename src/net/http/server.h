// The API server's HTTP/1.1 transport: Boost.Beast on Asio, TLS by default (OpenSSL).
//
// A few I/O threads run every connection asynchronously, so thousands of open watch streams
// cost no threads; handlers run on a separate worker pool because they block on the store
// (a durable write waits for its group commit). Limits: body size (Content-Length and chunked
// alike: 413), header count and total header bytes (431), time to read a request and to write a
// non-streaming reply (408 / close). Stop() is graceful: stop accepting, end open streams,
// finish in-flight requests, join the threads.
// Thread-safety: Start and Stop from one owner thread; the handler is called concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "net/http/message.h"

namespace etna::net::http {

struct TlsFiles {
  std::string cert_file;  // PEM: serving certificate (chain)
  std::string key_file;   // PEM: its private key
};

struct ServerOptions {
  std::string listen = "127.0.0.1:6443";  // HOST:PORT; port 0 picks a free port
  std::optional<TlsFiles> tls;            // nullopt: plain HTTP
  size_t max_body_bytes = 3 * 1024 * 1024;
  size_t max_header_bytes = 64 * 1024;
  size_t max_header_count = 100;
  std::chrono::milliseconds request_timeout{std::chrono::seconds(60)};
  int io_threads = 2;
  int worker_threads = 64;
};

class HttpServer {
 public:
  HttpServer(ServerOptions options, Handler handler);
  ~HttpServer();  // Stop()s
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts serving. InvalidArgument for a bad listen address or TLS files,
  // Unavailable when the address is in use.
  Status Start();
  uint16_t port() const;  // the bound port (after Start)
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace etna::net::http
