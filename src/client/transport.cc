#include "client/transport.h"

#include <fmt/format.h>

#include <atomic>
#include <cctype>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "common/strings.h"

namespace etna::client {
namespace {

// Splits a byte stream into lines and hands each complete one on.
class LineSplitter {
 public:
  explicit LineSplitter(const std::function<void(std::string_view)>& on_line) : on_line_(on_line) {}
  void Feed(std::string_view data) {
    buffer_.append(data);
    size_t start = 0;
    for (size_t nl; (nl = buffer_.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (nl > start) on_line_(std::string_view(buffer_).substr(start, nl - start));
    }
    buffer_.erase(0, start);
  }

 private:
  const std::function<void(std::string_view)>& on_line_;
  std::string buffer_;
};

// The request cannot have reached the server: no connection was made to it, or the TLS
// handshake failed (a server being killed resets connections its kernel had already accepted),
// so no byte of the request was written.
bool NotSent(const Status& status) {
  const std::string& m = status.message();
  return status.code() == StatusCode::kUnavailable &&
         (m.rfind("connect ", 0) == 0 || m.rfind("resolve ", 0) == 0 ||
          m.rfind("TLS handshake ", 0) == 0);
}

// A request to the API over HTTP(S). With several servers (KubeConfig::failover) it sends to
// the current one; when that one cannot be reached it moves to the next and sends again, for
// any request that cannot have reached the server and for reads (GET, HEAD), whose repeat is
// harmless. A write that may have arrived before the connection broke is not repeated (its
// caller sees the error, as with one server).
class HttpTransport : public Transport {
 public:
  explicit HttpTransport(const KubeConfig& config) {
    std::vector<ServerAddress> servers = {{config.host, config.port, config.tls}};
    servers.insert(servers.end(), config.failover.begin(), config.failover.end());
    for (const ServerAddress& server : servers) {
      net::http::ClientOptions o;
      o.host = server.host;
      o.port = server.port;
      o.tls = server.tls;
      o.ca_pem = config.ca_pem;
      o.insecure_skip_verify = config.insecure_skip_verify;
      o.bearer_token = config.token;
      o.timeout = config.timeout;
      servers_.push_back(std::move(o));
    }
    idle_.resize(servers_.size());
  }

  Result<net::http::ClientResponse> Do(std::string_view method, std::string_view target,
                                       std::string_view body,
                                       std::string_view content_type) override {
    return DoWithHeaders(method, target, body, content_type, {});
  }

  Result<net::http::ClientResponse> DoWithHeaders(
      std::string_view method, std::string_view target, std::string_view body,
      std::string_view content_type,
      const std::vector<std::pair<std::string, std::string>>& headers) override {
    const bool read = method == "GET" || method == "HEAD";
    for (size_t attempt = 0;; ++attempt) {
      const size_t server = current_;
      std::unique_ptr<net::http::HttpClient> client = Acquire(server);
      auto reply = client->Do(method, target, body, content_type, headers);
      Release(server, std::move(client));
      if (reply.ok() || attempt + 1 >= servers_.size() ||
          reply.status().code() != StatusCode::kUnavailable || !(read || NotSent(reply.status()))) {
        return reply;
      }
      MoveOn(server);
    }
  }

  Result<int> Watch(const std::string& target,
                    const std::function<void(std::string_view)>& on_line) override {
    const size_t server = current_;
    auto client = std::make_shared<net::http::HttpClient>(servers_[server]);
    {
      std::lock_guard lock(watch_mu_);
      if (cancelled_) return Status::Unavailable("cancelled");
      watch_ = client;
    }
    LineSplitter lines(on_line);
    auto status = client->Stream("GET", target, [&](std::string_view data) {
      lines.Feed(data);
      return true;
    });
    {
      std::lock_guard lock(watch_mu_);
      watch_.reset();
    }
    // The caller watches again from its last resourceVersion: on the next server when this one
    // could not be reached.
    if (!status.ok() && NotSent(status.status())) MoveOn(server);
    return status;
  }

  void Cancel() override {
    std::lock_guard lock(watch_mu_);
    cancelled_ = true;
    if (watch_) watch_->Cancel();
  }
  void Resume() override {
    std::lock_guard lock(watch_mu_);
    cancelled_ = false;
  }

 private:
  // HTTP/1.1 carries one request at a time per connection, so each request in flight takes a
  // connection of its own: an idle one, else a new one; afterwards it is kept for the next
  // request (at most kMaxIdle per server are kept), as Go's http.Transport does for client-go.
  static constexpr size_t kMaxIdle = 64;
  std::unique_ptr<net::http::HttpClient> Acquire(size_t server) {
    {
      std::lock_guard lock(idle_mu_);
      if (!idle_[server].empty()) {
        auto client = std::move(idle_[server].back());
        idle_[server].pop_back();
        return client;
      }
    }
    return std::make_unique<net::http::HttpClient>(servers_[server]);
  }
  void Release(size_t server, std::unique_ptr<net::http::HttpClient> client) {
    std::lock_guard lock(idle_mu_);
    if (idle_[server].size() < kMaxIdle) idle_[server].push_back(std::move(client));
  }
  // After `server` failed: the next one becomes current (unless another caller moved on).
  void MoveOn(size_t server) {
    size_t expected = server;
    current_.compare_exchange_strong(expected, (server + 1) % servers_.size());
    std::lock_guard lock(idle_mu_);
    idle_[server].clear();
  }

  std::vector<net::http::ClientOptions> servers_;
  std::atomic<size_t> current_{0};
  std::mutex idle_mu_;
  std::vector<std::vector<std::unique_ptr<net::http::HttpClient>>> idle_;  // per server
  std::mutex watch_mu_;
  std::shared_ptr<net::http::HttpClient> watch_;
  bool cancelled_ = false;
};

class InProcessTransport : public Transport {
 public:
  InProcessTransport(net::http::Handler handler, std::string token)
      : handler_(std::move(handler)), token_(std::move(token)) {}

  Result<net::http::ClientResponse> Do(std::string_view method, std::string_view target,
                                       std::string_view body,
                                       std::string_view content_type) override {
    return DoWithHeaders(method, target, body, content_type, {});
  }

  Result<net::http::ClientResponse> DoWithHeaders(
      std::string_view method, std::string_view target, std::string_view body,
      std::string_view content_type,
      const std::vector<std::pair<std::string, std::string>>& headers) override {
    net::http::Request request = MakeRequest(method, target, body, content_type);
    for (const auto& [name, value] : headers) {
      request.headers[Lower(name)] = value;
    }
    net::http::Response r = handler_(std::move(request));
    if (r.stream) {
      r.stream->Cancel();
      return Status::InvalidArgument(fmt::format("{} {} is a stream: use Watch", method, target));
    }
    net::http::ClientResponse out;
    out.status = r.status;
    out.content_type = r.content_type;
    out.body = std::move(r.body);
    return out;
  }

  Result<int> Watch(const std::string& target,
                    const std::function<void(std::string_view)>& on_line) override {
    net::http::Response r = handler_(MakeRequest("GET", target, {}, {}));
    LineSplitter lines(on_line);
    if (!r.stream) {
      lines.Feed(r.body);
      return r.status;
    }
    // The stream keeps its wake callback past this call (a watch timeout on the API server's
    // ticker may fire later), so the callback holds the state, never the transport.
    std::shared_ptr<WakeState> state = state_;
    {
      std::lock_guard lock(state->mu);
      if (state->cancelled) {
        r.stream->Cancel();
        return Status::Unavailable("cancelled");
      }
      state->woken = true;
    }
    r.stream->Start([state] {
      std::lock_guard lock(state->mu);
      state->woken = true;
      state->cv.notify_all();
    });
    while (true) {
      {
        std::unique_lock lock(state->mu);
        state->cv.wait(lock, [&] { return state->woken || state->cancelled; });
        if (state->cancelled) break;
        state->woken = false;
      }
      bool done = false;
      std::string data = r.stream->Read(&done);
      lines.Feed(data);
      if (done) return r.status;
    }
    r.stream->Cancel();
    return Status::Unavailable("cancelled");
  }

  void Cancel() override {
    std::lock_guard lock(state_->mu);
    state_->cancelled = true;
    state_->cv.notify_all();
  }
  void Resume() override {
    std::lock_guard lock(state_->mu);
    state_->cancelled = false;
  }

 private:
  net::http::Request MakeRequest(std::string_view method, std::string_view target,
                                 std::string_view body, std::string_view content_type) const {
    net::http::Request r;
    r.method = std::string(method);
    r.target = std::string(target);
    size_t q = target.find('?');
    r.path = std::string(target.substr(0, q));
    if (q != std::string_view::npos) {
      std::string_view query = target.substr(q + 1);
      while (!query.empty()) {
        size_t amp = query.find('&');
        std::string_view kv = query.substr(0, amp);
        size_t eq = kv.find('=');
        r.query[std::string(kv.substr(0, eq))] =
            eq == std::string_view::npos ? "" : Unescape(kv.substr(eq + 1));
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
      }
    }
    r.headers["authorization"] = "Bearer " + token_;
    if (!content_type.empty()) r.headers["content-type"] = std::string(content_type);
    r.body = std::string(body);
    r.remote_address = "in-process";
    r.from_loopback = true;
    return r;
  }

  static std::string Unescape(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '%' && i + 2 < s.size() + 0 && isxdigit(s[i + 1]) && isxdigit(s[i + 2])) {
        out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        out += s[i];
      }
    }
    return out;
  }

  // What a watch waits on: woken by its stream, or cancelled by Cancel.
  struct WakeState {
    std::mutex mu;
    std::condition_variable cv;
    bool woken = false;
    bool cancelled = false;
  };

  net::http::Handler handler_;
  std::string token_;
  std::shared_ptr<WakeState> state_ = std::make_shared<WakeState>();
};

}  // namespace

// See MakeGatedTransport.
class GatedTransport : public ForwardingTransport {
 public:
  GatedTransport(std::unique_ptr<Transport> inner, const std::atomic<bool>* open)
      : ForwardingTransport(std::move(inner)), open_(open) {}

  Result<net::http::ClientResponse> Do(std::string_view method, std::string_view target,
                                       std::string_view body,
                                       std::string_view content_type) override {
    ETNA_RETURN_IF_ERROR(Check(method, target));
    return ForwardingTransport::Do(method, target, body, content_type);
  }
  Result<net::http::ClientResponse> DoWithHeaders(
      std::string_view method, std::string_view target, std::string_view body,
      std::string_view content_type,
      const std::vector<std::pair<std::string, std::string>>& headers) override {
    ETNA_RETURN_IF_ERROR(Check(method, target));
    return ForwardingTransport::DoWithHeaders(method, target, body, content_type, headers);
  }

 private:
  Status Check(std::string_view method, std::string_view target) const {
    if (method == "GET" || method == "HEAD" || *open_) return Status::Ok();
    return Status::Unavailable(fmt::format(
        "{} {}: not sent, this process does not hold its leader Lease", method, target));
  }

  const std::atomic<bool>* open_;
};

std::unique_ptr<Transport> MakeGatedTransport(std::unique_ptr<Transport> inner,
                                              const std::atomic<bool>* open) {
  return std::make_unique<GatedTransport>(std::move(inner), open);
}

std::unique_ptr<Transport> MakeHttpTransport(const KubeConfig& config) {
  return std::make_unique<HttpTransport>(config);
}

std::unique_ptr<Transport> MakeInProcessTransport(net::http::Handler handler, std::string token) {
  return std::make_unique<InProcessTransport>(std::move(handler), std::move(token));
}

}  // namespace etna::client
