// How the channels of a remote command (exec) travel on an upgraded connection: WebSocket
// messages with a channel byte (v5/v4.channel.k8s.io) or SPDY/3.1 streams, one per channel,
// opened by the client with a "streamtype" header (v4.channel.k8s.io over SPDY). The framing
// turns the client's bytes into channel events and the agent's output into bytes; it answers
// what needs no decision itself (pings, SYN_REPLYs).
// Thread-safety: Feed from one thread (the connection's strand); Output, EndOutput and Close
// from any thread (internally locked).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "net/http/message.h"

namespace etna::agent::runtime {

inline constexpr int kStdinChannel = 0;
inline constexpr int kStdoutChannel = 1;
inline constexpr int kStderrChannel = 2;
inline constexpr int kErrorChannel = 3;
inline constexpr int kResizeChannel = 4;

struct ChannelEvent {
  enum class Kind { kStdin, kStdinClosed, kResize, kClosed };
  Kind kind = Kind::kStdin;
  std::string data;  // stdin bytes; one resize JSON object
};

// The channels the request asked for (SPDY waits for the client to open each).
struct ExpectedChannels {
  bool stdin = false;
  bool stdout = false;
  bool stderr = false;
  bool tty = false;
};

class StreamFraming {
 public:
  virtual ~StreamFraming() = default;
  // The client's bytes: events in *events, immediate answers appended to *reply.
  // InvalidArgument on a protocol error (the connection is then ended).
  virtual Status Feed(std::string_view bytes, std::vector<ChannelEvent>* events,
                      std::string* reply) = 0;
  // Every channel the request asked for is open.
  virtual bool Ready() const = 0;
  virtual std::string Output(int channel, std::string_view data) = 0;
  // No more output on the channel ("" where the framing has no such signal).
  virtual std::string EndOutput(int channel) = 0;
  // The last bytes before the connection closes.
  virtual std::string Close() = 0;
};

struct NegotiatedFraming {
  std::unique_ptr<StreamFraming> framing;
  std::vector<std::pair<std::string, std::string>> headers;  // for the 101 reply
};

// A header's comma-separated values (repeated headers arrive joined by ", "): the protocols a
// client offers.
std::vector<std::string> HeaderValues(const net::http::Request& request, std::string_view name);

// Picks the framing from the upgrade request's headers (Upgrade: websocket with
// Sec-WebSocket-Protocol, or Upgrade: SPDY/3.1 with X-Stream-Protocol-Version).
// InvalidArgument naming what was offered and what this side speaks.
Result<NegotiatedFraming> NegotiateRemoteCommandFraming(const net::http::Request& upgrade,
                                                        ExpectedChannels expected);

}  // namespace etna::agent::runtime
