// SPDY/3.1 framing (draft-mbelshe-httpbis-spdy, version 3.1) as Kubernetes' exec, attach and
// port-forward clients speak it (moby/spdystream) after an `Upgrade: SPDY/3.1` handshake: bytes
// to frames (Decoder) and frames to bytes (Encoder). No sockets, no threads, no stream state:
// the session above decides what a frame means (stream id 0 in SYN_STREAM, flow control, ...).
//
// Header blocks are compressed with zlib, the SPDY/3 dictionary preset, ONE zlib stream per
// direction for the whole connection; so a connection needs one Decoder for the bytes the peer
// sends and one Encoder for the bytes we send, each used for that connection only and fed every
// frame in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

struct z_stream_s;  // zlib's stream state, kept out of this header

namespace etna::net::spdy {

inline constexpr uint16_t kVersion = 3;
inline constexpr uint8_t kFlagFin = 0x01;              // DATA, SYN_STREAM, SYN_REPLY, HEADERS
inline constexpr uint8_t kFlagUnidirectional = 0x02;   // SYN_STREAM
inline constexpr uint8_t kFlagClearSettings = 0x01;    // SETTINGS
inline constexpr uint32_t kMaxFrameLength = 0xFFFFFF;  // the 24-bit length field

// RST_STREAM status codes (spec 2.6.3).
inline constexpr uint32_t kRstProtocolError = 1;
inline constexpr uint32_t kRstInvalidStream = 2;
inline constexpr uint32_t kRstRefusedStream = 3;
inline constexpr uint32_t kRstUnsupportedVersion = 4;
inline constexpr uint32_t kRstCancel = 5;
inline constexpr uint32_t kRstInternalError = 6;
inline constexpr uint32_t kRstFlowControlError = 7;
inline constexpr uint32_t kRstStreamInUse = 8;
inline constexpr uint32_t kRstStreamAlreadyClosed = 9;
inline constexpr uint32_t kRstFrameTooLarge = 11;
// GOAWAY status codes (spec 2.6.6).
inline constexpr uint32_t kGoAwayOk = 0;
inline constexpr uint32_t kGoAwayProtocolError = 1;
inline constexpr uint32_t kGoAwayInternalError = 2;
// SETTINGS ids (spec 2.6.4) the session is likely to need.
inline constexpr uint32_t kSettingsMaxConcurrentStreams = 4;
inline constexpr uint32_t kSettingsInitialWindowSize = 7;

// Name/value pairs in wire order. Names are lower-case (the Encoder lower-cases them, the Decoder
// lower-cases what it reads); a value holding several values joins them with NUL, kept raw.
using Headers = std::vector<std::pair<std::string, std::string>>;

struct Frame {
  enum class Type {
    kData,
    kSynStream,
    kSynReply,
    kRstStream,
    kSettings,
    kPing,
    kGoAway,
    kHeaders,
    kWindowUpdate,
    kUnknown,  // a control frame of a type this codec does not know; its payload is dropped
  };
  Type type = Type::kData;
  // DATA, SYN_STREAM, SYN_REPLY, RST_STREAM, HEADERS, WINDOW_UPDATE (0: the connection);
  // GOAWAY: the last good stream id.
  uint32_t stream_id = 0;
  uint32_t associated_id = 0;  // SYN_STREAM
  uint8_t priority = 0;        // SYN_STREAM, 0 (highest) to 7
  uint8_t flags = 0;           // every frame, as on the wire
  Headers headers;             // SYN_STREAM, SYN_REPLY, HEADERS (decompressed)
  std::string data;            // DATA
  uint32_t status = 0;         // RST_STREAM, GOAWAY
  uint32_t ping_id = 0;        // PING
  uint32_t delta = 0;          // WINDOW_UPDATE
  std::vector<std::pair<uint32_t, uint32_t>> settings;  // SETTINGS: id, value (entry flags dropped)
  uint16_t control_type = 0;                            // kUnknown: the type field on the wire
};

// The SPDY/3 header-compression dictionary (spec 2.6.10.1), 1423 bytes.
std::string_view HeaderDictionary();

// Decodes the bytes one peer sends, in order, into frames; holds that peer's inflate context.
// After an error the connection cannot be decoded any further: every later Feed returns the same
// error. Thread-compatible: one connection's reader uses it.
class Decoder {
 public:
  // `max_frame_bytes` bounds a frame's payload (its length field) and the size a header block
  // inflates to.
  explicit Decoder(size_t max_frame_bytes = 16 * 1024 * 1024);
  ~Decoder();
  Decoder(Decoder&&) noexcept;
  Decoder& operator=(Decoder&&) noexcept;

  // Appends the complete frames found in `bytes` (after what was buffered) to *out and buffers a
  // trailing partial frame for the next call. InvalidArgument, naming what is wrong, for a control
  // frame whose version is not 3, a frame over the limit, a control frame whose length does not
  // fit its type, or a header block that does not inflate or parse; the frames complete before
  // the bad one are still appended.
  Status Feed(std::string_view bytes, std::vector<Frame>* out);

  // Bytes of a partial frame waiting for the rest.
  size_t buffered() const { return buffer_.size(); }

 private:
  struct InflateDeleter {
    void operator()(z_stream_s* z) const;
  };
  // Decodes frames from `in`; sets *used to the bytes of the whole frames consumed.
  Status DecodeFrames(std::string_view in, size_t* used, std::vector<Frame>* out);
  Status DecodeControl(uint16_t type, std::string_view payload, Frame* frame);
  Status DecodeHeaderBlock(std::string_view compressed, Headers* headers);
  Status Inflate(std::string_view compressed, std::string* plain);

  size_t max_frame_bytes_;
  std::string buffer_;
  Status error_;
  std::unique_ptr<z_stream_s, InflateDeleter> inflate_;
};

// Encodes the frames we send; holds the deflate context of our header blocks, so every frame
// with a header block must be sent in the order it was encoded. Each method returns the bytes
// of one frame (Data: of one or more). Thread-compatible: one connection's writer uses it.
class Encoder {
 public:
  Encoder();
  ~Encoder();
  Encoder(Encoder&&) noexcept;
  Encoder& operator=(Encoder&&) noexcept;

  // Header names are lower-cased. A header block must compress to under 16 MiB (asserted).
  std::string SynStream(uint32_t stream_id, uint32_t associated_id, const Headers& headers,
                        uint8_t flags, uint8_t priority = 0);
  std::string SynReply(uint32_t stream_id, const Headers& headers, uint8_t flags);
  std::string HeadersFrame(uint32_t stream_id, const Headers& headers, uint8_t flags);
  // Data over 0xFFFFFF bytes becomes several DATA frames, `flags` (FIN) on the last only.
  std::string Data(uint32_t stream_id, std::string_view data, uint8_t flags);
  std::string RstStream(uint32_t stream_id, uint32_t status);
  std::string Ping(uint32_t id);
  std::string GoAway(uint32_t last_good_stream_id, uint32_t status);
  std::string Settings(const std::vector<std::pair<uint32_t, uint32_t>>& settings,
                       uint8_t flags = 0);
  std::string WindowUpdate(uint32_t stream_id, uint32_t delta);

 private:
  struct DeflateDeleter {
    void operator()(z_stream_s* z) const;
  };
  std::string HeaderBlock(const Headers& headers);

  std::unique_ptr<z_stream_s, DeflateDeleter> deflate_;
};

}  // namespace etna::net::spdy
