#include "agent/runtime/stream_framing.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "common/strings.h"
#include "net/http/websocket.h"
#include "net/spdy/frames.h"

namespace etna::agent::runtime {
namespace {

namespace ws = net::http::websocket;
namespace spdy = net::spdy;

constexpr char kWebSocketV5[] = "v5.channel.k8s.io";
constexpr char kWebSocketV4[] = "v4.channel.k8s.io";
constexpr char kSpdyV4[] = "v4.channel.k8s.io";
constexpr int kCloseChannel = 255;  // v5: the client's end of a channel (stdin)

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// WebSocket: each message is one channel byte and its data.
class WebSocketFraming : public StreamFraming {
 public:
  explicit WebSocketFraming(bool v5) : v5_(v5) {}

  Status Feed(std::string_view bytes, std::vector<ChannelEvent>* events,
              std::string* reply) override {
    std::vector<ws::Message> messages;
    Status st = decoder_.Feed(bytes, &messages);
    for (ws::Message& m : messages) {
      switch (m.opcode) {
        case ws::Opcode::kPing:
          *reply += ws::EncodeFrame(ws::Opcode::kPong, m.payload);
          break;
        case ws::Opcode::kClose:
          events->push_back({ChannelEvent::Kind::kClosed, ""});
          break;
        case ws::Opcode::kText:
        case ws::Opcode::kBinary: {
          if (m.payload.empty()) break;
          auto channel = static_cast<uint8_t>(m.payload[0]);
          std::string data = m.payload.substr(1);
          if (channel == kStdinChannel) {
            if (!data.empty()) events->push_back({ChannelEvent::Kind::kStdin, std::move(data)});
          } else if (channel == kResizeChannel) {
            events->push_back({ChannelEvent::Kind::kResize, std::move(data)});
          } else if (v5_ && channel == kCloseChannel && !data.empty() &&
                     static_cast<uint8_t>(data[0]) == kStdinChannel) {
            events->push_back({ChannelEvent::Kind::kStdinClosed, ""});
          }
          break;
        }
        default:
          break;
      }
    }
    return st;
  }
  bool Ready() const override { return true; }
  std::string Output(int channel, std::string_view data) override {
    std::string payload(1, static_cast<char>(channel));
    payload.append(data);
    return ws::EncodeFrame(ws::Opcode::kBinary, payload);
  }
  std::string EndOutput(int) override { return ""; }
  std::string Close() override { return ws::EncodeClose(1000); }

 private:
  bool v5_;
  ws::Decoder decoder_;
};

// SPDY: the client opens one stream per channel ("streamtype" header); data frames carry it.
class SpdyFraming : public StreamFraming {
 public:
  explicit SpdyFraming(ExpectedChannels expected) : expected_(expected) {}

  Status Feed(std::string_view bytes, std::vector<ChannelEvent>* events,
              std::string* reply) override {
    std::vector<spdy::Frame> frames;
    Status st = decoder_.Feed(bytes, &frames);
    std::lock_guard<std::mutex> lock(mu_);
    for (spdy::Frame& f : frames) {
      switch (f.type) {
        case spdy::Frame::Type::kSynStream: {
          int channel = ChannelOf(f.headers);
          if (channel < 0) {
            *reply += encoder_.RstStream(f.stream_id, spdy::kRstRefusedStream);
            break;
          }
          streams_[channel] = f.stream_id;
          channels_[f.stream_id] = channel;
          *reply += encoder_.SynReply(f.stream_id, {}, 0);
          if (f.flags & spdy::kFlagFin) Ended(channel, events);
          break;
        }
        case spdy::Frame::Type::kData: {
          auto it = channels_.find(f.stream_id);
          if (it == channels_.end()) break;
          if (it->second == kStdinChannel && !f.data.empty()) {
            events->push_back({ChannelEvent::Kind::kStdin, std::move(f.data)});
          } else if (it->second == kResizeChannel) {
            resize_ += f.data;
            for (size_t nl; (nl = resize_.find('\n')) != std::string::npos;) {
              events->push_back({ChannelEvent::Kind::kResize, resize_.substr(0, nl)});
              resize_.erase(0, nl + 1);
            }
          }
          if (f.flags & spdy::kFlagFin) Ended(it->second, events);
          break;
        }
        case spdy::Frame::Type::kPing:
          *reply += encoder_.Ping(f.ping_id);
          break;
        case spdy::Frame::Type::kGoAway:
          events->push_back({ChannelEvent::Kind::kClosed, ""});
          break;
        default:
          break;
      }
    }
    return st;
  }

  bool Ready() const override {
    std::lock_guard<std::mutex> lock(mu_);
    auto has = [&](int channel) { return streams_.count(channel) > 0; };
    return has(kErrorChannel) && (!expected_.stdin || has(kStdinChannel)) &&
           (!expected_.stdout || has(kStdoutChannel)) &&
           (!expected_.stderr || expected_.tty || has(kStderrChannel)) &&
           (!expected_.tty || has(kResizeChannel));
  }
  std::string Output(int channel, std::string_view data) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = streams_.find(channel);
    return it == streams_.end() ? "" : encoder_.Data(it->second, data, 0);
  }
  std::string EndOutput(int channel) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = streams_.find(channel);
    return it == streams_.end() ? "" : encoder_.Data(it->second, "", spdy::kFlagFin);
  }
  std::string Close() override { return ""; }

 private:
  static int ChannelOf(const spdy::Headers& headers) {
    static const std::map<std::string, int> kTypes = {{"stdin", kStdinChannel},
                                                      {"stdout", kStdoutChannel},
                                                      {"stderr", kStderrChannel},
                                                      {"error", kErrorChannel},
                                                      {"resize", kResizeChannel}};
    for (const auto& [name, value] : headers) {
      if (name != "streamtype") continue;
      auto it = kTypes.find(value);
      return it == kTypes.end() ? -1 : it->second;
    }
    return -1;
  }
  void Ended(int channel, std::vector<ChannelEvent>* events) {
    if (channel == kStdinChannel) events->push_back({ChannelEvent::Kind::kStdinClosed, ""});
  }

  ExpectedChannels expected_;
  spdy::Decoder decoder_;  // Feed's only
  mutable std::mutex mu_;
  spdy::Encoder encoder_;
  std::map<int, uint32_t> streams_;   // channel -> stream id
  std::map<uint32_t, int> channels_;  // stream id -> channel
  std::string resize_;
};

}  // namespace

std::vector<std::string> HeaderValues(const net::http::Request& r, std::string_view name) {
  std::vector<std::string> out;
  std::string all = r.Header(name);
  std::string_view rest = all;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string value(Trim(rest.substr(0, comma)));
    if (!value.empty()) out.push_back(value);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return out;
}

Result<NegotiatedFraming> NegotiateRemoteCommandFraming(const net::http::Request& upgrade,
                                                        ExpectedChannels expected) {
  std::string kind = Lower(upgrade.Header("upgrade"));
  NegotiatedFraming out;
  if (kind == "websocket") {
    std::vector<std::string> offered = HeaderValues(upgrade, "sec-websocket-protocol");
    std::string chosen = Contains(offered, kWebSocketV5)   ? kWebSocketV5
                         : Contains(offered, kWebSocketV4) ? kWebSocketV4
                                                           : "";
    if (chosen.empty()) {
      return Status::InvalidArgument(
          fmt::format("Sec-WebSocket-Protocol: none of [{}] is spoken here (v5.channel.k8s.io, "
                      "v4.channel.k8s.io)",
                      upgrade.Header("sec-websocket-protocol")));
    }
    std::string key = upgrade.Header("sec-websocket-key");
    if (key.empty()) return Status::InvalidArgument("Sec-WebSocket-Key: required");
    out.framing = std::make_unique<WebSocketFraming>(chosen == kWebSocketV5);
    out.headers = {{"Upgrade", "websocket"},
                   {"Connection", "Upgrade"},
                   {"Sec-WebSocket-Accept", ws::AcceptKey(key)},
                   {"Sec-WebSocket-Protocol", chosen}};
    return out;
  }
  if (kind == "spdy/3.1") {
    std::vector<std::string> offered = HeaderValues(upgrade, "x-stream-protocol-version");
    if (!Contains(offered, kSpdyV4)) {
      return Status::InvalidArgument(
          fmt::format("X-Stream-Protocol-Version: none of [{}] is spoken here ({})",
                      upgrade.Header("x-stream-protocol-version"), kSpdyV4));
    }
    out.framing = std::make_unique<SpdyFraming>(expected);
    out.headers = {
        {"Upgrade", "SPDY/3.1"}, {"Connection", "Upgrade"}, {"X-Stream-Protocol-Version", kSpdyV4}};
    return out;
  }
  return Status::InvalidArgument(fmt::format(
      "Upgrade: \"{}\" is not spoken here (websocket or SPDY/3.1)", upgrade.Header("upgrade")));
}

}  // namespace etna::agent::runtime
