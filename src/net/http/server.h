// The API server's HTTP/1.1 transport: Boost.Beast on Asio, TLS by default (OpenSSL).
//
// A few I/O threads run every connection asynchronously, so thousands of open watch streams
// cost no threads; handlers run on a separate worker pool because they block on the store
// (a durable write waits for its group commit). Limits: body size (Content-Length and chunked
// alike: 413), header count and total header bytes (431), time to read a request and to write a
// non-streaming reply (408 / close), and the bytes of large bodies being received at once by all
// connections together (429), so a crowd of clients each sending a large body slowly cannot
// exhaust memory; a large body is screened on its head (e.g. its token) before it is read.
// Stop() is graceful: stop accepting, end open streams, finish in-flight requests, join the
// threads.
// Thread-safety: Start and Stop from one owner thread; the handler is called concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
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
  // A body over `large_body_bytes` (by Content-Length; a chunked one counts as max_body_bytes)
  // is read only when it fits in what is left of `max_large_body_bytes_in_flight`; otherwise
  // 429 with Retry-After. Smaller bodies are not counted.
  size_t large_body_bytes = 64 * 1024;
  size_t max_large_body_bytes_in_flight = 256 * 1024 * 1024;
  // Called on an I/O thread with a large body's request head (`body` empty): a Response
  // refuses the request before its body is read (401 for a request no credential would pass).
  // Must be quick and must not block.
  std::function<std::optional<Response>(const Request& head)> screen_large_body;
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
