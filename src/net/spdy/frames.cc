#include "net/spdy/frames.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cassert>
#include <cctype>

namespace etna::net::spdy {
namespace {

// Control frame types on the wire (spec 2.6).
constexpr uint16_t kTypeSynStream = 1;
constexpr uint16_t kTypeSynReply = 2;
constexpr uint16_t kTypeRstStream = 3;
constexpr uint16_t kTypeSettings = 4;
constexpr uint16_t kTypePing = 6;
constexpr uint16_t kTypeGoAway = 7;
constexpr uint16_t kTypeHeaders = 8;
constexpr uint16_t kTypeWindowUpdate = 9;

constexpr uint32_t kStreamIdMask = 0x7FFFFFFF;
constexpr size_t kFrameHeaderBytes = 8;

uint32_t Get32(std::string_view s, size_t at) {
  auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(s[at + i])); };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

void Put32(std::string* out, uint32_t v) {
  const char bytes[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                         static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(bytes, 4);
}

// The 8-byte header of a control frame whose payload is `length` bytes.
void PutControlHeader(std::string* out, uint16_t type, uint8_t flags, size_t length) {
  assert(length <= kMaxFrameLength);
  Put32(out, 0x80000000u | uint32_t{kVersion} << 16 | type);
  Put32(out, uint32_t{flags} << 24 | static_cast<uint32_t>(length));
}

std::string ControlFrame(uint16_t type, uint8_t flags, uint32_t a, uint32_t b) {
  std::string out;
  PutControlHeader(&out, type, flags, 8);
  Put32(&out, a);
  Put32(&out, b);
  return out;
}

const char* ControlTypeName(uint16_t type) {
  switch (type) {
    case kTypeSynStream:
      return "SYN_STREAM";
    case kTypeSynReply:
      return "SYN_REPLY";
    case kTypeRstStream:
      return "RST_STREAM";
    case kTypeSettings:
      return "SETTINGS";
    case kTypePing:
      return "PING";
    case kTypeGoAway:
      return "GOAWAY";
    case kTypeHeaders:
      return "HEADERS";
    case kTypeWindowUpdate:
      return "WINDOW_UPDATE";
    default:
      return "control frame";
  }
}

void ToLower(std::string* s) {
  for (char& c : *s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Reads the uncompressed name/value block: a 32-bit pair count, then per pair a 32-bit length
// and the name, a 32-bit length and the value.
Status ParseHeaderBlock(std::string_view plain, Headers* headers) {
  size_t at = 0;
  auto read_string = [&](std::string* s) {
    if (plain.size() - at < 4) return false;
    const uint32_t n = Get32(plain, at);
    at += 4;
    if (plain.size() - at < n) return false;
    s->assign(plain.substr(at, n));
    at += n;
    return true;
  };
  if (plain.size() < 4) {
    return Status::InvalidArgument(
        fmt::format("header block of {} bytes has no pair count", plain.size()));
  }
  const uint32_t count = Get32(plain, 0);
  at = 4;
  if (count > (plain.size() - at) / 8) {
    return Status::InvalidArgument(
        fmt::format("header block claims {} pairs in {} bytes", count, plain.size()));
  }
  headers->reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    std::string name, value;
    if (!read_string(&name) || !read_string(&value)) {
      return Status::InvalidArgument(
          fmt::format("header block ends inside pair {} of {}", i + 1, count));
    }
    ToLower(&name);
    headers->emplace_back(std::move(name), std::move(value));
  }
  if (at != plain.size()) {
    return Status::InvalidArgument(
        fmt::format("header block has {} bytes after its {} pairs", plain.size() - at, count));
  }
  return Status::Ok();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Decoder

void Decoder::InflateDeleter::operator()(z_stream_s* z) const {
  inflateEnd(z);
  delete z;
}

Decoder::Decoder(size_t max_frame_bytes)
    : max_frame_bytes_(max_frame_bytes), inflate_(new z_stream_s{}) {
  if (inflateInit(inflate_.get()) != Z_OK) {
    error_ = Status::Internal("zlib inflateInit failed");
  }
}

Decoder::~Decoder() = default;
Decoder::Decoder(Decoder&&) noexcept = default;
Decoder& Decoder::operator=(Decoder&&) noexcept = default;

Status Decoder::Feed(std::string_view bytes, std::vector<Frame>* out) {
  if (!error_.ok()) return error_;
  size_t used = 0;
  Status status;
  if (buffer_.empty()) {
    status = DecodeFrames(bytes, &used, out);  // the common case: no copy of whole frames
    if (status.ok()) buffer_.assign(bytes.substr(used));
  } else {
    buffer_.append(bytes);
    status = DecodeFrames(buffer_, &used, out);
    if (status.ok()) buffer_.erase(0, used);
  }
  if (!status.ok()) {
    error_ = status;
    buffer_.clear();
  }
  return status;
}

Status Decoder::DecodeFrames(std::string_view in, size_t* used, std::vector<Frame>* out) {
  for (;;) {
    const std::string_view rest = in.substr(*used);
    const bool control = !rest.empty() && (static_cast<uint8_t>(rest[0]) & 0x80) != 0;
    if (control && rest.size() >= 2) {
      const uint16_t version =
          (static_cast<uint8_t>(rest[0]) & 0x7F) << 8 | static_cast<uint8_t>(rest[1]);
      if (version != kVersion) {
        return Status::InvalidArgument(
            fmt::format("control frame of SPDY version {}, want {}", version, kVersion));
      }
    }
    if (rest.size() < kFrameHeaderBytes) return Status::Ok();
    const uint8_t flags = static_cast<uint8_t>(rest[4]);
    const uint32_t length = Get32(rest, 4) & 0xFFFFFF;
    const uint16_t type = static_cast<uint16_t>(Get32(rest, 0) & 0xFFFF);
    if (length > max_frame_bytes_) {
      return Status::InvalidArgument(fmt::format("{} of {} bytes is over the limit of {}",
                                                 control ? ControlTypeName(type) : "DATA frame",
                                                 length, max_frame_bytes_));
    }
    if (rest.size() - kFrameHeaderBytes < length) return Status::Ok();
    const std::string_view payload = rest.substr(kFrameHeaderBytes, length);
    Frame frame;
    frame.flags = flags;
    if (control) {
      ETNA_RETURN_IF_ERROR(DecodeControl(type, payload, &frame));
    } else {
      frame.type = Frame::Type::kData;
      frame.stream_id = Get32(rest, 0) & kStreamIdMask;
      frame.data.assign(payload);
    }
    out->push_back(std::move(frame));
    *used += kFrameHeaderBytes + length;
  }
}

Status Decoder::DecodeControl(uint16_t type, std::string_view payload, Frame* frame) {
  auto want = [&](bool ok, std::string_view what) {
    if (ok) return Status::Ok();
    return Status::InvalidArgument(
        fmt::format("{} of {} bytes, want {}", ControlTypeName(type), payload.size(), what));
  };
  switch (type) {
    case kTypeSynStream:
      ETNA_RETURN_IF_ERROR(want(payload.size() >= 10, "at least 10"));
      frame->type = Frame::Type::kSynStream;
      frame->stream_id = Get32(payload, 0) & kStreamIdMask;
      frame->associated_id = Get32(payload, 4) & kStreamIdMask;
      frame->priority = static_cast<uint8_t>(payload[8]) >> 5;
      return DecodeHeaderBlock(payload.substr(10), &frame->headers)
          .WithContext(fmt::format("SYN_STREAM {}", frame->stream_id));
    case kTypeSynReply:
    case kTypeHeaders:
      ETNA_RETURN_IF_ERROR(want(payload.size() >= 4, "at least 4"));
      frame->type = type == kTypeSynReply ? Frame::Type::kSynReply : Frame::Type::kHeaders;
      frame->stream_id = Get32(payload, 0) & kStreamIdMask;
      return DecodeHeaderBlock(payload.substr(4), &frame->headers)
          .WithContext(fmt::format("{} {}", ControlTypeName(type), frame->stream_id));
    case kTypeRstStream:
      ETNA_RETURN_IF_ERROR(want(payload.size() == 8, "8"));
      frame->type = Frame::Type::kRstStream;
      frame->stream_id = Get32(payload, 0) & kStreamIdMask;
      frame->status = Get32(payload, 4);
      return Status::Ok();
    case kTypeSettings: {
      ETNA_RETURN_IF_ERROR(want(payload.size() >= 4, "at least 4"));
      const uint64_t count = Get32(payload, 0);
      ETNA_RETURN_IF_ERROR(
          want(payload.size() == 4 + 8 * count, fmt::format("4 + 8 * {} entries", count)));
      frame->type = Frame::Type::kSettings;
      frame->settings.reserve(count);
      for (size_t at = 4; at < payload.size(); at += 8) {
        frame->settings.emplace_back(Get32(payload, at) & 0xFFFFFF, Get32(payload, at + 4));
      }
      return Status::Ok();
    }
    case kTypePing:
      ETNA_RETURN_IF_ERROR(want(payload.size() == 4, "4"));
      frame->type = Frame::Type::kPing;
      frame->ping_id = Get32(payload, 0);
      return Status::Ok();
    case kTypeGoAway:
      ETNA_RETURN_IF_ERROR(want(payload.size() == 8, "8"));
      frame->type = Frame::Type::kGoAway;
      frame->stream_id = Get32(payload, 0) & kStreamIdMask;
      frame->status = Get32(payload, 4);
      return Status::Ok();
    case kTypeWindowUpdate:
      ETNA_RETURN_IF_ERROR(want(payload.size() == 8, "8"));
      frame->type = Frame::Type::kWindowUpdate;
      frame->stream_id = Get32(payload, 0) & kStreamIdMask;
      frame->delta = Get32(payload, 4) & kStreamIdMask;
      return Status::Ok();
    default:
      frame->type = Frame::Type::kUnknown;
      frame->control_type = type;
      return Status::Ok();
  }
}

Status Decoder::DecodeHeaderBlock(std::string_view compressed, Headers* headers) {
  std::string plain;
  ETNA_RETURN_IF_ERROR(Inflate(compressed, &plain));
  return ParseHeaderBlock(plain, headers);
}

Status Decoder::Inflate(std::string_view compressed, std::string* plain) {
  z_stream* z = inflate_.get();
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  z->avail_in = static_cast<uInt>(compressed.size());
  plain->clear();
  for (;;) {
    const size_t old = plain->size();
    if (old >= max_frame_bytes_) {
      return Status::InvalidArgument(
          fmt::format("header block inflates to over {} bytes", max_frame_bytes_));
    }
    const size_t room = std::min(std::max<size_t>(old, 4096), max_frame_bytes_ - old);
    plain->resize(old + room);
    z->next_out = reinterpret_cast<Bytef*>(plain->data() + old);
    z->avail_out = static_cast<uInt>(room);
    int rc = inflate(z, Z_SYNC_FLUSH);
    plain->resize(old + room - z->avail_out);
    if (rc == Z_NEED_DICT) {
      const std::string_view dict = HeaderDictionary();
      rc = inflateSetDictionary(z, reinterpret_cast<const Bytef*>(dict.data()),
                                static_cast<uInt>(dict.size()));
      if (rc != Z_OK) {
        return Status::InvalidArgument("header block wants a dictionary other than SPDY/3's");
      }
      continue;
    }
    if (rc == Z_STREAM_END) {
      if (z->avail_in != 0) {
        return Status::InvalidArgument(
            fmt::format("header block has {} bytes after the end of the zlib stream", z->avail_in));
      }
      return Status::Ok();
    }
    if (rc == Z_BUF_ERROR && z->avail_in == 0) return Status::Ok();  // all in, all out
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Status::InvalidArgument(fmt::format("header block does not inflate: {}",
                                                 z->msg != nullptr ? z->msg : zError(rc)));
    }
    if (z->avail_in == 0 && z->avail_out != 0) return Status::Ok();
  }
}

// ---------------------------------------------------------------------------------------------
// Encoder

void Encoder::DeflateDeleter::operator()(z_stream_s* z) const {
  deflateEnd(z);
  delete z;
}

Encoder::Encoder() : deflate_(new z_stream_s{}) {
  const std::string_view dict = HeaderDictionary();
  [[maybe_unused]] int rc = deflateInit(deflate_.get(), Z_DEFAULT_COMPRESSION);
  assert(rc == Z_OK);
  rc = deflateSetDictionary(deflate_.get(), reinterpret_cast<const Bytef*>(dict.data()),
                            static_cast<uInt>(dict.size()));
  assert(rc == Z_OK);
}

Encoder::~Encoder() = default;
Encoder::Encoder(Encoder&&) noexcept = default;
Encoder& Encoder::operator=(Encoder&&) noexcept = default;

std::string Encoder::HeaderBlock(const Headers& headers) {
  std::string plain;
  Put32(&plain, static_cast<uint32_t>(headers.size()));
  for (const auto& [name, value] : headers) {
    std::string lower = name;
    ToLower(&lower);
    Put32(&plain, static_cast<uint32_t>(lower.size()));
    plain += lower;
    Put32(&plain, static_cast<uint32_t>(value.size()));
    plain += value;
  }
  z_stream* z = deflate_.get();
  z->next_in = reinterpret_cast<Bytef*>(plain.data());
  z->avail_in = static_cast<uInt>(plain.size());
  std::string out;
  do {
    const size_t old = out.size();
    const size_t room = std::max<size_t>(plain.size() / 2 + 64, 1024);
    out.resize(old + room);
    z->next_out = reinterpret_cast<Bytef*>(out.data() + old);
    z->avail_out = static_cast<uInt>(room);
    [[maybe_unused]] const int rc = deflate(z, Z_SYNC_FLUSH);
    assert(rc == Z_OK || rc == Z_BUF_ERROR);
    out.resize(old + room - z->avail_out);
  } while (z->avail_out == 0);
  assert(z->avail_in == 0);
  return out;
}

std::string Encoder::SynStream(uint32_t stream_id, uint32_t associated_id, const Headers& headers,
                               uint8_t flags, uint8_t priority) {
  const std::string block = HeaderBlock(headers);
  std::string out;
  PutControlHeader(&out, kTypeSynStream, flags, 10 + block.size());
  Put32(&out, stream_id & kStreamIdMask);
  Put32(&out, associated_id & kStreamIdMask);
  out += static_cast<char>((priority & 0x7) << 5);
  out += '\0';  // credential slot: unused in SPDY/3.1
  out += block;
  return out;
}

std::string Encoder::SynReply(uint32_t stream_id, const Headers& headers, uint8_t flags) {
  const std::string block = HeaderBlock(headers);
  std::string out;
  PutControlHeader(&out, kTypeSynReply, flags, 4 + block.size());
  Put32(&out, stream_id & kStreamIdMask);
  out += block;
  return out;
}

std::string Encoder::HeadersFrame(uint32_t stream_id, const Headers& headers, uint8_t flags) {
  const std::string block = HeaderBlock(headers);
  std::string out;
  PutControlHeader(&out, kTypeHeaders, flags, 4 + block.size());
  Put32(&out, stream_id & kStreamIdMask);
  out += block;
  return out;
}

std::string Encoder::Data(uint32_t stream_id, std::string_view data, uint8_t flags) {
  std::string out;
  out.reserve(data.size() + kFrameHeaderBytes * (1 + data.size() / kMaxFrameLength));
  do {
    const size_t n = std::min<size_t>(data.size(), kMaxFrameLength);
    const bool last = n == data.size();
    Put32(&out, stream_id & kStreamIdMask);
    Put32(&out, uint32_t{last ? flags : uint8_t{0}} << 24 | static_cast<uint32_t>(n));
    out.append(data.substr(0, n));
    data.remove_prefix(n);
    if (last) break;
  } while (true);
  return out;
}

std::string Encoder::RstStream(uint32_t stream_id, uint32_t status) {
  return ControlFrame(kTypeRstStream, 0, stream_id & kStreamIdMask, status);
}

std::string Encoder::Ping(uint32_t id) {
  std::string out;
  PutControlHeader(&out, kTypePing, 0, 4);
  Put32(&out, id);
  return out;
}

std::string Encoder::GoAway(uint32_t last_good_stream_id, uint32_t status) {
  return ControlFrame(kTypeGoAway, 0, last_good_stream_id & kStreamIdMask, status);
}

std::string Encoder::Settings(const std::vector<std::pair<uint32_t, uint32_t>>& settings,
                              uint8_t flags) {
  std::string out;
  PutControlHeader(&out, kTypeSettings, flags, 4 + 8 * settings.size());
  Put32(&out, static_cast<uint32_t>(settings.size()));
  for (const auto& [id, value] : settings) {
    Put32(&out, id & 0xFFFFFF);  // entry flags 0
    Put32(&out, value);
  }
  return out;
}

std::string Encoder::WindowUpdate(uint32_t stream_id, uint32_t delta) {
  return ControlFrame(kTypeWindowUpdate, 0, stream_id & kStreamIdMask, delta & kStreamIdMask);
}

}  // namespace etna::net::spdy
