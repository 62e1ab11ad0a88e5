// The transport-neutral request and response the API server's handler sees.
//
// The HTTP layer (server.h) parses a request fully (head and body, within its limits) into a
// Request, calls the Handler on a worker thread, and writes the Response: either `body` with a
// Content-Length, or, when `stream` is set, a chunked body pulled from the stream until it ends.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace etna::net::http {

struct Request {
  std::string method;  // upper-case: GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS
  std::string target;  // as sent: "/api/v1/namespaces/default/pods?limit=500"
  std::string path;    // percent-decoded path, without the query: "/api/v1/namespaces/default/pods"
  std::map<std::string, std::string> query;    // decoded; a repeated key keeps the last value
  std::map<std::string, std::string> headers;  // names lower-cased; repeated headers joined by ", "
  std::string body;
  std::string remote_address;  // "127.0.0.1"
  bool from_loopback = false;

  // The header's value, or "" when absent. `lower_name` must be lower-case.
  std::string Header(std::string_view lower_name) const;
  // The query parameter's value, or "" when absent.
  std::string Query(std::string_view name) const;
  bool HasQuery(std::string_view name) const;
  // Every value of a repeated query parameter (exec's command=), in order, form-decoded ('+'
  // is a space).
  std::vector<std::string> QueryAll(std::string_view name) const;
};

// A chunked response body produced over time (watch events, `logs -f`).
//
// The transport calls Start once with a wake function, then Read whenever it was woken (and
// once right after Start). Thread-safety: the stream calls `wake` from any thread, at any
// time, even after Cancel (the transport ignores a late wake); Read and Cancel are called from
// the transport's connection strand, never concurrently with each other.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  virtual void Start(std::function<void()> wake) = 0;
  // The bytes available now (possibly empty). Sets *done when the stream has ended: the transport
  // writes what was returned, then the final zero-length chunk.
  virtual std::string Read(bool* done) = 0;
  // The client went away or the server is shutting down; release resources promptly.
  virtual void Cancel() = 0;
};

// The connection after a 101 Switching Protocols reply (exec, attach, port-forward): raw bytes
// both ways. As a ResponseStream it gives what is written to the client (unframed: no chunks);
// Receive gets what the client sends. Thread-safety as ResponseStream's: Receive and
// ClientClosed run on the connection strand and must not block.
class UpgradedStream : public ResponseStream {
 public:
  virtual void Receive(std::string_view data) = 0;
  // The client closed its side or the connection broke: nothing more will be received. The
  // transport keeps writing until Read says done (or Cancel).
  virtual void ClientClosed() = 0;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // extra: Warning, Retry-After, ...
  std::string body;
  std::shared_ptr<ResponseStream> stream;  // when set, `body` is ignored and the reply is chunked
  // With status 101: the head is written, then the connection belongs to `upgrade`.
  std::shared_ptr<UpgradedStream> upgrade;
};

using Handler = std::function<Response(const Request&)>;

}  // namespace etna::net::http
