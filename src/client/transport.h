// How clients reach the API: over HTTP(S) with a kubeconfig, or in the same process (the
// server's handler called directly, for `etna dev` and tests). Both speak the same requests and
// the same newline-delimited watch streams.
// Thread-safety: Do may be called from several threads (over HTTP each request in flight has a
// connection of its own, kept for reuse); one Watch at a time per transport;
// Cancel from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/kubeconfig.h"
#include "common/status.h"
#include "net/http/client.h"
#include "net/http/message.h"

namespace etna::client {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual Result<net::http::ClientResponse> Do(
      std::string_view method, std::string_view target, std::string_view body = {},
      std::string_view content_type = "application/json") = 0;
  // Do with extra request headers (e.g. Accept for the server's Table output, as `etna get`
  // asks). The default ignores them; both transports here send them.
  virtual Result<net::http::ClientResponse> DoWithHeaders(
      std::string_view method, std::string_view target, std::string_view body,
      std::string_view content_type,
      const std::vector<std::pair<std::string, std::string>>& headers) {
    (void)headers;
    return Do(method, target, body, content_type);
  }
  // Opens `target` (a watch) and calls on_line with each complete line until the server ends
  // the stream or Cancel() is called. Returns the HTTP status.
  virtual Result<int> Watch(const std::string& target,
                            const std::function<void(std::string_view)>& on_line) = 0;
  // Ends a running Watch; later Watch calls return Unavailable until Resume().
  virtual void Cancel() = 0;
  virtual void Resume() = 0;
};

// Passes every call to `inner`: the base of wrappers that change one part (a write gate, a test's
// cut network or lost answer).
class ForwardingTransport : public Transport {
 public:
  explicit ForwardingTransport(std::unique_ptr<Transport> inner) : inner_(std::move(inner)) {}
  Result<net::http::ClientResponse> Do(std::string_view method, std::string_view target,
                                       std::string_view body,
                                       std::string_view content_type) override {
    return inner_->Do(method, target, body, content_type);
  }
  Result<net::http::ClientResponse> DoWithHeaders(
      std::string_view method, std::string_view target, std::string_view body,
      std::string_view content_type,
      const std::vector<std::pair<std::string, std::string>>& headers) override {
    return inner_->DoWithHeaders(method, target, body, content_type, headers);
  }
  Result<int> Watch(const std::string& target,
                    const std::function<void(std::string_view)>& on_line) override {
    return inner_->Watch(target, on_line);
  }
  void Cancel() override { inner_->Cancel(); }
  void Resume() override { inner_->Resume(); }

 protected:
  Transport& inner() { return *inner_; }

 private:
  std::unique_ptr<Transport> inner_;
};

// Makes a fresh transport: each informer (one watch at a time) takes its own.
using TransportFactory = std::function<std::unique_ptr<Transport>()>;

std::unique_ptr<Transport> MakeHttpTransport(const KubeConfig& config);
// `inner` with every write (any method but GET and HEAD) refused with Unavailable while
// `*open` is false: what a leader-elected component writes through, so that once it has stepped
// down nothing more leaves it. Reads and watches pass. `open` must outlive the transport.
std::unique_ptr<Transport> MakeGatedTransport(std::unique_ptr<Transport> inner,
                                              const std::atomic<bool>* open);

// Calls `handler` directly with requests authenticated by `token`.
std::unique_ptr<Transport> MakeInProcessTransport(net::http::Handler handler, std::string token);

}  // namespace etna::client
