#include "net/http/websocket.h"

#include <fmt/format.h>
#include <openssl/sha.h>

#include "common/base64.h"

namespace etna::net::http::websocket {
namespace {

constexpr char kGuid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

std::string Header(Opcode opcode, size_t size, bool masked) {
  std::string h;
  h.push_back(static_cast<char>(0x80 | static_cast<uint8_t>(opcode)));
  uint8_t mask_bit = masked ? 0x80 : 0;
  if (size < 126) {
    h.push_back(static_cast<char>(mask_bit | size));
  } else if (size <= 0xFFFF) {
    h.push_back(static_cast<char>(mask_bit | 126));
    h.push_back(static_cast<char>(size >> 8));
    h.push_back(static_cast<char>(size & 0xFF));
  } else {
    h.push_back(static_cast<char>(mask_bit | 127));
    for (int shift = 56; shift >= 0; shift -= 8) {
      h.push_back(static_cast<char>((static_cast<uint64_t>(size) >> shift) & 0xFF));
    }
  }
  return h;
}

bool IsControl(uint8_t opcode) { return opcode >= 8; }

}  // namespace

std::string AcceptKey(std::string_view key) {
  std::string input = std::string(key) + kGuid;
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

std::string EncodeFrame(Opcode opcode, std::string_view payload) {
  return Header(opcode, payload.size(), false) + std::string(payload);
}

std::string EncodeClose(uint16_t code, std::string_view reason) {
  std::string payload;
  payload.push_back(static_cast<char>(code >> 8));
  payload.push_back(static_cast<char>(code & 0xFF));
  payload.append(reason.substr(0, 123));
  return EncodeFrame(Opcode::kClose, payload);
}

std::string EncodeMaskedFrame(Opcode opcode, std::string_view payload, uint32_t mask) {
  std::string out = Header(opcode, payload.size(), true);
  char key[4] = {static_cast<char>(mask >> 24), static_cast<char>(mask >> 16),
                 static_cast<char>(mask >> 8), static_cast<char>(mask)};
  out.append(key, 4);
  for (size_t i = 0; i < payload.size(); ++i) out.push_back(payload[i] ^ key[i % 4]);
  return out;
}

Status Decoder::Feed(std::string_view bytes, std::vector<Message>* out) {
  buffer_.append(bytes);
  size_t pos = 0;
  while (true) {
    std::string_view rest(buffer_.data() + pos, buffer_.size() - pos);
    if (rest.size() < 2) break;
    auto b0 = static_cast<uint8_t>(rest[0]);
    auto b1 = static_cast<uint8_t>(rest[1]);
    bool fin = b0 & 0x80;
    uint8_t opcode = b0 & 0x0F;
    if (b0 & 0x70) return Status::InvalidArgument("websocket: a reserved bit is set");
    if ((opcode > 2 && opcode < 8) || opcode > 10) {
      return Status::InvalidArgument(fmt::format("websocket: reserved opcode {}", opcode));
    }
    if (!(b1 & 0x80)) return Status::InvalidArgument("websocket: a client frame is not masked");
    uint64_t length = b1 & 0x7F;
    size_t head = 2;
    if (length == 126 || length == 127) {
      size_t n = length == 126 ? 2 : 8;
      if (rest.size() < head + n) break;
      length = 0;
      for (size_t i = 0; i < n; ++i) length = (length << 8) | static_cast<uint8_t>(rest[head + i]);
      head += n;
    }
    if (IsControl(opcode) && (!fin || length > 125)) {
      return Status::InvalidArgument("websocket: a control frame is fragmented or over 125 bytes");
    }
    if (length + fragments_.size() > max_message_bytes_) {
      return Status::InvalidArgument(fmt::format(
          "websocket: a message is larger than the limit of {} bytes", max_message_bytes_));
    }
    if (rest.size() < head + 4 + length) break;
    const char* key = rest.data() + head;
    std::string payload(rest.substr(head + 4, length));
    for (size_t i = 0; i < payload.size(); ++i) payload[i] ^= key[i % 4];
    pos += head + 4 + length;
    if (IsControl(opcode)) {
      out->push_back({static_cast<Opcode>(opcode), std::move(payload)});
      continue;
    }
    if (opcode == 0) {
      if (!in_fragment_) return Status::InvalidArgument("websocket: a continuation of nothing");
      fragments_ += payload;
    } else {
      if (in_fragment_) return Status::InvalidArgument("websocket: a new message inside another");
      fragment_opcode_ = static_cast<Opcode>(opcode);
      fragments_ = std::move(payload);
      in_fragment_ = true;
    }
    if (fin) {
      out->push_back({fragment_opcode_, std::move(fragments_)});
      fragments_.clear();
      in_fragment_ = false;
    }
  }
  buffer_.erase(0, pos);
  return Status::Ok();
}

}  // namespace etna::net::http::websocket
