// A small blocking HTTP/1.1 client (Beast, TLS or plain) on one keep-alive connection.
//
// Used by tests, the API benchmark and the API server itself (to fetch pod logs from agents).
// Reconnects transparently when the server closed an idle keep-alive connection.
// Thread-safety: one instance per thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace etna::net::http {

struct ClientOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  bool tls = true;
  std::string ca_file;  // PEM CA to verify the server with (when tls)
  std::string ca_pem;   // or the PEM itself (a kubeconfig's certificate-authority-data)
  bool insecure_skip_verify = false;  // tls without verification
  std::string bearer_token;           // sent as "Authorization: Bearer ..." when not empty
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
};

struct ClientResponse {
  int status = 0;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
};

class HttpClient {
 public:
  explicit HttpClient(ClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // One request; `headers` are extra request headers. Unavailable when the server cannot be
  // reached, DeadlineExceeded on timeout.
  Result<ClientResponse> Do(std::string_view method, std::string_view target,
                            std::string_view body = {},
                            std::string_view content_type = "application/json",
                            const std::vector<std::pair<std::string, std::string>>& headers = {});

  // A streaming request (watch, logs -f): calls on_data with each piece of body as it arrives
  // until the server ends the body or on_data returns false. Returns the status code.
  Result<int> Stream(std::string_view method, std::string_view target,
                     const std::function<bool(std::string_view)>& on_data,
                     const std::vector<std::pair<std::string, std::string>>& headers = {});

  // Ends a Do or Stream running on another thread (it returns Unavailable "cancelled") and makes
  // later calls fail the same way. Thread-safe; the only method that may be called concurrently.
  void Cancel();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace etna::net::http
