#include "agent/runtime/port_forward.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "agent/runtime/stream_framing.h"
#include "common/strings.h"
#include "net/http/tcp.h"
#include "net/http/websocket.h"
#include "net/http/wire.h"
#include "net/spdy/frames.h"

namespace etna::agent::runtime {
namespace {

namespace spdy = net::spdy;
namespace ws = net::http::websocket;
using net::http::Request;
using net::http::Response;

constexpr char kSpdyProtocol[] = "portforward.k8s.io";
constexpr char kWebSocketProtocol[] = "SPDY/3.1+portforward.k8s.io";

std::string HeaderValue(const spdy::Headers& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return "";
}

// One forwarded connection: the pod's socket and the client's two streams.
struct Forward {
  int port = 0;
  uint32_t error_stream = 0;
  uint32_t data_stream = 0;
  int fd = -1;
  bool started = false;
  std::deque<std::string> to_pod;  // the client's data, for the writer thread
  bool client_done = false;        // FIN on the data stream: no more to the pod
  std::condition_variable cv;
};

class PortForwardStream : public net::http::UpgradedStream,
                          public std::enable_shared_from_this<PortForwardStream> {
 public:
  PortForwardStream(bool over_websocket, std::string pod_ip, std::string pod_name)
      : over_websocket_(over_websocket),
        pod_ip_(std::move(pod_ip)),
        pod_name_(std::move(pod_name)) {}

  ~PortForwardStream() override {
    for (auto& [id, f] : forwards_) {
      if (f->fd >= 0) close(f->fd);
    }
  }

  void Start(std::function<void()> wake) override {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = std::move(wake);
  }

  std::string Read(bool* done) override {
    std::lock_guard<std::mutex> lock(mu_);
    *done = closed_;
    return std::exchange(out_, "");
  }

  void Receive(std::string_view bytes) override {
    std::string spdy_bytes;
    if (over_websocket_) {
      std::vector<ws::Message> messages;
      if (!ws_decoder_.Feed(bytes, &messages).ok()) return End();
      for (ws::Message& m : messages) {
        if (m.opcode == ws::Opcode::kBinary || m.opcode == ws::Opcode::kText) {
          spdy_bytes += m.payload;
        } else if (m.opcode == ws::Opcode::kPing) {
          SendRaw(ws::EncodeFrame(ws::Opcode::kPong, m.payload));
        } else if (m.opcode == ws::Opcode::kClose) {
          return End();
        }
      }
    } else {
      spdy_bytes.assign(bytes);
    }
    std::vector<spdy::Frame> frames;
    Status st = decoder_.Feed(spdy_bytes, &frames);
    for (spdy::Frame& f : frames) OnFrame(f);
    if (!st.ok()) End();
  }

  void ClientClosed() override { End(); }
  void Cancel() override { End(); }

 private:
  void OnFrame(spdy::Frame& f) {
    std::unique_lock<std::mutex> lock(mu_);
    switch (f.type) {
      case spdy::Frame::Type::kSynStream: {
        std::string type = HeaderValue(f.headers, "streamtype");
        std::string request = HeaderValue(f.headers, "requestid");
        int port = std::atoi(HeaderValue(f.headers, "port").c_str());
        if ((type != "error" && type != "data") || port <= 0 || port > 65535) {
          SendLocked(encoder_.RstStream(f.stream_id, spdy::kRstRefusedStream));
          return;
        }
        SendLocked(encoder_.SynReply(f.stream_id, {}, 0));
        auto& fw = forwards_[request];
        if (!fw) fw = std::make_shared<Forward>();
        fw->port = port;
        (type == "error" ? fw->error_stream : fw->data_stream) = f.stream_id;
        streams_[f.stream_id] = request;
        if (fw->error_stream && fw->data_stream && !fw->started) {
          fw->started = true;
          auto self = shared_from_this();
          std::thread([self, fw] { self->Run(fw); }).detach();
        }
        return;
      }
      case spdy::Frame::Type::kData: {
        auto it = streams_.find(f.stream_id);
        if (it == streams_.end()) return;
        auto fw = forwards_[it->second];
        if (f.stream_id != fw->data_stream) return;  // the error stream carries nothing in
        if (!f.data.empty()) fw->to_pod.push_back(std::move(f.data));
        if (f.flags & spdy::kFlagFin) fw->client_done = true;
        fw->cv.notify_all();
        return;
      }
      case spdy::Frame::Type::kRstStream: {
        auto it = streams_.find(f.stream_id);
        if (it == streams_.end()) return;
        auto fw = forwards_[it->second];
        fw->client_done = true;
        if (fw->fd >= 0) shutdown(fw->fd, SHUT_RDWR);
        fw->cv.notify_all();
        return;
      }
      case spdy::Frame::Type::kPing:
        SendLocked(encoder_.Ping(f.ping_id));
        return;
      case spdy::Frame::Type::kGoAway:
        lock.unlock();
        End();
        return;
      default:
        return;
    }
  }

  // Connects to the pod's port and copies both ways until both sides are done.
  void Run(const std::shared_ptr<Forward>& fw) {
    auto connected = net::http::ConnectTcp(pod_ip_, static_cast<uint16_t>(fw->port));
    int fd = connected.ok() ? *connected : -1;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (fd < 0) {
        std::string message =
            fmt::format("error forwarding port {} to pod {}: failed to connect to {}", fw->port,
                        pod_name_, connected.status().message());
        SendLocked(encoder_.Data(fw->error_stream, message, spdy::kFlagFin));
        SendLocked(encoder_.Data(fw->data_stream, "", spdy::kFlagFin));
        return;
      }
      fw->fd = fd;
    }
    auto self = shared_from_this();
    std::thread writer([self, fw] { self->ToPod(fw); });
    char buf[32768];
    while (true) {
      ssize_t n = recv(fd, buf, sizeof(buf), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard<std::mutex> lock(mu_);
      SendLocked(encoder_.Data(fw->data_stream, std::string_view(buf, static_cast<size_t>(n)), 0));
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      SendLocked(encoder_.Data(fw->data_stream, "", spdy::kFlagFin));
      SendLocked(encoder_.Data(fw->error_stream, "", spdy::kFlagFin));
      fw->client_done = true;
      fw->cv.notify_all();
    }
    writer.join();
  }

  void ToPod(const std::shared_ptr<Forward>& fw) {
    while (true) {
      std::string chunk;
      {
        std::unique_lock<std::mutex> lock(mu_);
        fw->cv.wait(lock, [&] { return !fw->to_pod.empty() || fw->client_done; });
        if (fw->to_pod.empty()) break;
        chunk = std::move(fw->to_pod.front());
        fw->to_pod.pop_front();
      }
      if (!net::http::SendAll(fw->fd, chunk)) return;
    }
    shutdown(fw->fd, SHUT_WR);
  }

  void SendRaw(const std::string& bytes) {
    std::function<void()> wake;
    {
      std::lock_guard<std::mutex> lock(mu_);
      out_ += bytes;
      wake = wake_;
    }
    if (wake) wake();
  }

  // Under mu_: queues SPDY bytes (in a WebSocket message when tunnelled) and wakes the writer.
  void SendLocked(const std::string& bytes) {
    if (bytes.empty()) return;
    out_ += over_websocket_ ? ws::EncodeFrame(ws::Opcode::kBinary, bytes) : bytes;
    if (wake_) {
      // The transport posts the wake to its strand: calling it under mu_ cannot deadlock.
      wake_();
    }
  }

  void End() {
    std::function<void()> wake;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return;
      closed_ = true;
      for (auto& [id, fw] : forwards_) {
        fw->client_done = true;
        if (fw->fd >= 0) shutdown(fw->fd, SHUT_RDWR);
        fw->cv.notify_all();
      }
      wake = wake_;
    }
    if (wake) wake();
  }

  bool over_websocket_;
  std::string pod_ip_;
  std::string pod_name_;
  ws::Decoder ws_decoder_;  // Receive's only
  spdy::Decoder decoder_;   // Receive's only

  std::mutex mu_;
  spdy::Encoder encoder_;
  std::function<void()> wake_;
  std::string out_;
  bool closed_ = false;
  std::map<std::string, std::shared_ptr<Forward>> forwards_;  // by requestid
  std::map<uint32_t, std::string> streams_;                   // stream id -> requestid
};

}  // namespace

Response UpgradePortForward(const Request& upgrade, std::string pod_ip, std::string pod_name) {
  std::string kind = Lower(upgrade.Header("upgrade"));
  Response r;
  r.status = 101;
  r.content_type.clear();
  bool over_websocket = kind == "websocket";
  auto offers = [&](std::string_view header, std::string_view protocol) {
    auto values = HeaderValues(upgrade, header);
    return std::find(values.begin(), values.end(), protocol) != values.end();
  };
  if (over_websocket && offers("sec-websocket-protocol", kWebSocketProtocol) &&
      !upgrade.Header("sec-websocket-key").empty()) {
    r.headers = {{"Upgrade", "websocket"},
                 {"Connection", "Upgrade"},
                 {"Sec-WebSocket-Accept", ws::AcceptKey(upgrade.Header("sec-websocket-key"))},
                 {"Sec-WebSocket-Protocol", kWebSocketProtocol}};
  } else if (kind == "spdy/3.1" && offers("x-stream-protocol-version", kSpdyProtocol)) {
    r.headers = {{"Upgrade", "SPDY/3.1"},
                 {"Connection", "Upgrade"},
                 {"X-Stream-Protocol-Version", kSpdyProtocol}};
  } else {
    return net::http::internal::StatusResponse(
        400, "BadRequest",
        fmt::format("port-forward speaks SPDY/3.1 ({}) and WebSocket ({}); offered: Upgrade "
                    "\"{}\", protocols \"{}{}\"",
                    kSpdyProtocol, kWebSocketProtocol, upgrade.Header("upgrade"),
                    upgrade.Header("sec-websocket-protocol"),
                    upgrade.Header("x-stream-protocol-version")));
  }
  r.upgrade =
      std::make_shared<PortForwardStream>(over_websocket, std::move(pod_ip), std::move(pod_name));
  return r;
}

}  // namespace etna::agent::runtime
