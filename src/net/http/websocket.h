// WebSocket (RFC 6455) framing for the server side of an upgraded connection: the handshake's
// accept key, a decoder of the client's (masked) frames into whole messages, and the encoding
// of the server's (unmasked) frames. Used by the agent's exec and port-forward endpoints
// (Kubernetes' channel protocols). No sockets and no threads here.
// Thread-safety: a Decoder belongs to one connection; the free functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace etna::net::http::websocket {

enum class Opcode : uint8_t {
  kContinuation = 0,
  kText = 1,
  kBinary = 2,
  kClose = 8,
  kPing = 9,
  kPong = 10,
};

// A whole message (fragments joined) or a control frame.
struct Message {
  Opcode opcode = Opcode::kBinary;
  std::string payload;
};

// Sec-WebSocket-Accept for the client's Sec-WebSocket-Key.
std::string AcceptKey(std::string_view key);

// The server's frame (FIN set, not masked).
std::string EncodeFrame(Opcode opcode, std::string_view payload);
// A close frame with `code` (1000: normal) and a reason.
std::string EncodeClose(uint16_t code, std::string_view reason = {});
// A client's frame (masked with `mask`): for tests and clients.
std::string EncodeMaskedFrame(Opcode opcode, std::string_view payload, uint32_t mask);

// Decodes the bytes a client sends into messages.
class Decoder {
 public:
  explicit Decoder(size_t max_message_bytes = 16 * 1024 * 1024)
      : max_message_bytes_(max_message_bytes) {}
  // Appends the complete messages in `bytes` (with what was buffered) to *out. InvalidArgument
  // naming the fault for an unmasked frame, a reserved bit or opcode, a fragmented or long
  // control frame, a message over the limit.
  Status Feed(std::string_view bytes, std::vector<Message>* out);

 private:
  size_t max_message_bytes_;
  std::string buffer_;
  std::string fragments_;
  Opcode fragment_opcode_ = Opcode::kBinary;
  bool in_fragment_ = false;
};

}  // namespace etna::net::http::websocket
