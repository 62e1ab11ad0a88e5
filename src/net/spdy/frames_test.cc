#include "net/spdy/frames.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

namespace etna::net::spdy {
namespace {

using Type = Frame::Type;

std::vector<Frame> DecodeAll(std::string_view bytes) {
  Decoder decoder;
  std::vector<Frame> frames;
  Status status = decoder.Feed(bytes, &frames);
  EXPECT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(decoder.buffered(), 0u);
  return frames;
}

// zlib-compresses `plain` with the SPDY dictionary as one sync-flushed block of a new stream.
std::string Deflate(std::string_view plain) {
  z_stream z{};
  EXPECT_EQ(deflateInit(&z, Z_DEFAULT_COMPRESSION), Z_OK);
  std::string_view dict = HeaderDictionary();
  deflateSetDictionary(&z, reinterpret_cast<const Bytef*>(dict.data()), dict.size());
  std::string out(plain.size() + 1024, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  z.avail_in = plain.size();
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = out.size();
  EXPECT_EQ(deflate(&z, Z_SYNC_FLUSH), Z_OK);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

// A SYN_STREAM for stream 1 around an arbitrary (compressed) header block.
std::string RawSynStream(std::string_view block) {
  std::string f("\x80\x03\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00", 18);
  f[7] = static_cast<char>(10 + block.size());  // blocks here stay under 246 bytes
  return f + std::string(block);
}

TEST(SpdyDictionaryTest, MatchesThePublishedBytes) {
  // Size and checksums computed (Python's zlib) from the dictionary bytes as published in
  // SPDY/3 section 2.6.10.1, taken from two implementations (moby/spdystream's
  // spdy/dictionary.go and okhttp's Spdy3.java), which agree byte for byte.
  std::string_view d = HeaderDictionary();
  ASSERT_EQ(d.size(), 1423u);
  auto bytes = reinterpret_cast<const Bytef*>(d.data());
  EXPECT_EQ(adler32(adler32(0, nullptr, 0), bytes, d.size()), 0xe3c6a7c2u);
  EXPECT_EQ(crc32(crc32(0, nullptr, 0), bytes, d.size()), 0x04c8490eu);
  EXPECT_EQ(d.substr(0, 11), std::string_view("\0\0\0\x07options", 11));
  EXPECT_TRUE(d.ends_with("charset=iso-8859-1,utf-,*,enq=0."));
}

TEST(SpdyFramesTest, RoundTripsEveryFrameType) {
  Encoder enc;
  const Headers request = {{"streamtype", "stdout"}, {"requestid", "0"}};
  std::string wire;
  wire += enc.SynStream(1, 0, request, kFlagFin, 3);
  wire += enc.SynReply(1, {{"status", "200"}}, 0);
  wire += enc.HeadersFrame(1, {{"x-extra", "a"}}, kFlagFin);
  wire += enc.Data(1, "hello", kFlagFin);
  wire += enc.Data(3, "", 0);
  wire += enc.RstStream(3, kRstCancel);
  wire += enc.Settings({{kSettingsInitialWindowSize, 65536}, {kSettingsMaxConcurrentStreams, 100}},
                       kFlagClearSettings);
  wire += enc.Ping(7);
  wire += enc.GoAway(5, kGoAwayProtocolError);
  wire += enc.WindowUpdate(0, 1 << 20);
  wire += enc.SynStream(2, 1, {}, kFlagUnidirectional);

  std::vector<Frame> f = DecodeAll(wire);
  ASSERT_EQ(f.size(), 11u);
  EXPECT_EQ(f[0].type, Type::kSynStream);
  EXPECT_EQ(f[0].stream_id, 1u);
  EXPECT_EQ(f[0].associated_id, 0u);
  EXPECT_EQ(f[0].priority, 3);
  EXPECT_EQ(f[0].flags, kFlagFin);
  EXPECT_EQ(f[0].headers, request);
  EXPECT_EQ(f[1].type, Type::kSynReply);
  EXPECT_EQ(f[1].stream_id, 1u);
  EXPECT_EQ(f[1].headers, (Headers{{"status", "200"}}));
  EXPECT_EQ(f[2].type, Type::kHeaders);
  EXPECT_EQ(f[2].flags, kFlagFin);
  EXPECT_EQ(f[2].headers, (Headers{{"x-extra", "a"}}));
  EXPECT_EQ(f[3].type, Type::kData);
  EXPECT_EQ(f[3].stream_id, 1u);
  EXPECT_EQ(f[3].flags, kFlagFin);
  EXPECT_EQ(f[3].data, "hello");
  EXPECT_EQ(f[4].type, Type::kData);
  EXPECT_EQ(f[4].stream_id, 3u);
  EXPECT_EQ(f[4].data, "");
  EXPECT_EQ(f[5].type, Type::kRstStream);
  EXPECT_EQ(f[5].stream_id, 3u);
  EXPECT_EQ(f[5].status, kRstCancel);
  EXPECT_EQ(f[6].type, Type::kSettings);
  EXPECT_EQ(f[6].flags, kFlagClearSettings);
  EXPECT_EQ(f[6].settings,
            (std::vector<std::pair<uint32_t, uint32_t>>{{kSettingsInitialWindowSize, 65536},
                                                        {kSettingsMaxConcurrentStreams, 100}}));
  EXPECT_EQ(f[7].type, Type::kPing);
  EXPECT_EQ(f[7].ping_id, 7u);
  EXPECT_EQ(f[8].type, Type::kGoAway);
  EXPECT_EQ(f[8].stream_id, 5u);
  EXPECT_EQ(f[8].status, kGoAwayProtocolError);
  EXPECT_EQ(f[9].type, Type::kWindowUpdate);
  EXPECT_EQ(f[9].stream_id, 0u);
  EXPECT_EQ(f[9].delta, 1u << 20);
  EXPECT_EQ(f[10].type, Type::kSynStream);
  EXPECT_EQ(f[10].associated_id, 1u);
  EXPECT_EQ(f[10].flags, kFlagUnidirectional);
  EXPECT_TRUE(f[10].headers.empty());
}

TEST(SpdyFramesTest, FixedFramesHaveTheSpecLayout) {
  Encoder enc;
  EXPECT_EQ(enc.Ping(0x01020304),
            std::string("\x80\x03\x00\x06\x00\x00\x00\x04\x01\x02\x03\x04", 12));
  EXPECT_EQ(enc.RstStream(5, kRstRefusedStream),
            std::string("\x80\x03\x00\x03\x00\x00\x00\x08\x00\x00\x00\x05\x00\x00\x00\x03", 16));
  EXPECT_EQ(enc.WindowUpdate(1, 0x10000),
            std::string("\x80\x03\x00\x09\x00\x00\x00\x08\x00\x00\x00\x01\x00\x01\x00\x00", 16));
  EXPECT_EQ(enc.Data(0x7FFFFFFF, "ab", kFlagFin), std::string("\x7F\xFF\xFF\xFF\x01\x00\x00\x02"
                                                              "ab",
                                                              10));
  EXPECT_EQ(enc.Settings({{7, 0x12345678}}, 0),
            std::string("\x80\x03\x00\x04\x00\x00\x00\x0c\x00\x00\x00\x01"
                        "\x00\x00\x00\x07\x12\x34\x56\x78",
                        20));
}

TEST(SpdyFramesTest, HeaderBlocksShareOneZlibStreamPerDirection) {
  Encoder enc;
  const Headers h = {{"streamtype", "data"}, {"port", "8080"}, {"requestid", "42"}};
  std::string first = enc.SynStream(1, 0, h, 0);
  std::string second = enc.SynStream(3, 0, h, 0);
  std::string third = enc.SynReply(3, h, 0);
  // The repeat refers back into the shared window, so it is much shorter.
  EXPECT_LT(second.size(), first.size() - 10);
  // The first block opens a zlib stream whose header names the preset dictionary by its
  // Adler-32 (FDICT set); the later blocks continue that stream and have no zlib header.
  ASSERT_GT(first.size(), 24u);
  EXPECT_EQ(static_cast<uint8_t>(first[18]) & 0x0F, 8);  // CM: deflate
  EXPECT_NE(static_cast<uint8_t>(first[19]) & 0x20, 0);  // FDICT
  EXPECT_EQ(first.substr(20, 4), "\xe3\xc6\xa7\xc2");
  EXPECT_TRUE(first.ends_with(std::string("\x00\x00\xff\xff", 4)));  // Z_SYNC_FLUSH marker

  std::vector<Frame> f = DecodeAll(first + second + third);
  ASSERT_EQ(f.size(), 3u);
  for (const Frame& frame : f) EXPECT_EQ(frame.headers, h);

  // A fresh decoder cannot read the second block alone: it depends on the first.
  Decoder alone;
  std::vector<Frame> out;
  EXPECT_FALSE(alone.Feed(second, &out).ok());
}

TEST(SpdyFramesTest, FeedsOneByteAtATime) {
  Encoder enc;
  // One statement each: header blocks must be encoded in the order they are sent.
  std::string wire = enc.SynStream(1, 0, {{"streamtype", "stdin"}}, 0);
  wire += enc.Data(1, std::string(3000, 'x'), 0);
  wire += enc.Ping(2);
  wire += enc.SynStream(3, 0, {{"streamtype", "stdout"}}, 0);
  wire += enc.Data(1, "", kFlagFin);
  Decoder dec;
  std::vector<Frame> f;
  for (char c : wire) {
    Status status = dec.Feed(std::string_view(&c, 1), &f);
    ASSERT_TRUE(status.ok()) << status.ToString();
  }
  EXPECT_EQ(dec.buffered(), 0u);
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[0].headers, (Headers{{"streamtype", "stdin"}}));
  EXPECT_EQ(f[1].data, std::string(3000, 'x'));
  EXPECT_EQ(f[2].ping_id, 2u);
  EXPECT_EQ(f[3].headers, (Headers{{"streamtype", "stdout"}}));
  EXPECT_EQ(f[4].flags, kFlagFin);
}

TEST(SpdyFramesTest, FeedsTwoFramesAndAPartOfAThird) {
  Encoder enc;
  std::string a = enc.Ping(1), b = enc.Data(1, "xyz", 0), c = enc.GoAway(1, kGoAwayOk);
  Decoder dec;
  std::vector<Frame> f;
  ASSERT_TRUE(dec.Feed(a + b + c.substr(0, 5), &f).ok());
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].type, Type::kPing);
  EXPECT_EQ(f[1].data, "xyz");
  EXPECT_EQ(dec.buffered(), 5u);
  ASSERT_TRUE(dec.Feed(c.substr(5), &f).ok());
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[2].type, Type::kGoAway);
  EXPECT_EQ(dec.buffered(), 0u);
}

TEST(SpdyFramesTest, DecodesAnIndependentEncoder) {
  // Two SYN_STREAMs (streams 1 and 3) written by Python 3's zlib (compressobj(zdict=...) with
  // the published dictionary bytes, Z_SYNC_FLUSH after each block, one compressor for both).
  const std::string wire(
      "\x80\x03\x00\x01\x00\x00\x00\x3d\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x78\xbb\xe3\xc6"
      "\xa7\xc2\x02\x25\x3a\x70\x3a\x2b\x29\x4a\x4d\xcc\x85\x16\x25\xac\xa9\xa0\x80\x86\x14\xcb"
      "\x45\xe0\x1c\x60\x61\x60\x61\x00\xa4\x39\x8b\x20\xd1\x98\x09\x4a\xde\x8c\x06\x00\x00\x00"
      "\x00\xff\xff"
      "\x80\x03\x00\x01\x00\x00\x00\x18\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\xc2\xaa\x19\x54"
      "\x0e\x25\x12\xd6\x0b\x00\x00\x00\xff\xff",
      69 + 32);
  std::vector<Frame> f = DecodeAll(wire);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].type, Type::kSynStream);
  EXPECT_EQ(f[0].stream_id, 1u);
  EXPECT_EQ(f[0].headers, (Headers{{"streamtype", "error"}, {"port", "8080"}, {"requestid", "0"}}));
  EXPECT_EQ(f[1].stream_id, 3u);
  EXPECT_EQ(f[1].headers, (Headers{{"streamtype", "data"}, {"port", "8080"}, {"requestid", "0"}}));
}

TEST(SpdyFramesTest, LowerCasesNamesAndKeepsJoinedValues) {
  Encoder enc;
  std::string joined("a\0b", 3);
  std::vector<Frame> f = DecodeAll(enc.SynReply(1, {{"X-Stream-Protocol-Version", joined}}, 0));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].headers, (Headers{{"x-stream-protocol-version", joined}}));
}

TEST(SpdyFramesTest, SplitsDataOverTheLengthField) {
  Encoder enc;
  std::string big(kMaxFrameLength + 5, 'z');
  std::vector<Frame> f = DecodeAll(enc.Data(9, big, kFlagFin));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].data.size(), kMaxFrameLength);
  EXPECT_EQ(f[0].flags, 0);
  EXPECT_EQ(f[1].data, "zzzzz");
  EXPECT_EQ(f[1].flags, kFlagFin);
  EXPECT_EQ(f[1].stream_id, 9u);
}

TEST(SpdyFramesTest, SkipsUnknownControlFrames) {
  Encoder enc;
  // CREDENTIAL (type 10, SPDY/3 only) with a 3-byte payload, then a PING.
  std::string wire = std::string("\x80\x03\x00\x0a\x00\x00\x00\x03xyz", 11) + enc.Ping(4);
  std::vector<Frame> f = DecodeAll(wire);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].type, Type::kUnknown);
  EXPECT_EQ(f[0].control_type, 10);
  EXPECT_EQ(f[1].ping_id, 4u);
}

Status FeedOnce(std::string_view bytes, size_t limit = 1 << 20) {
  Decoder dec(limit);
  std::vector<Frame> f;
  return dec.Feed(bytes, &f);
}

TEST(SpdyFramesTest, RefusesAWrongVersion) {
  // A SPDY/2 PING; the version alone is enough to refuse it.
  Status st = FeedOnce(std::string("\x80\x02", 2));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("version 2"), std::string::npos) << st.message();
}

TEST(SpdyFramesTest, RefusesAFrameOverTheLimitBeforeItArrives) {
  Encoder enc;
  std::string data = enc.Data(1, std::string(200, 'a'), 0);
  Status st = FeedOnce(data.substr(0, 8), 100);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("over the limit of 100"), std::string::npos) << st.message();
  EXPECT_TRUE(FeedOnce(data, 200).ok());
}

TEST(SpdyFramesTest, RefusesAHeaderBlockThatInflatesOverTheLimit) {
  Encoder enc;
  Status st = FeedOnce(enc.SynStream(1, 0, {{"a", std::string(5000, 'b')}}, 0), 1000);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("inflates to over 1000"), std::string::npos) << st.message();
}

TEST(SpdyFramesTest, RefusesBadHeaderBlocks) {
  // Not zlib at all.
  Status st = FeedOnce(RawSynStream("garbage, not zlib"));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("SYN_STREAM 1"), std::string::npos) << st.message();
  // zlib, but claiming 5 pairs in 4 bytes.
  st = FeedOnce(RawSynStream(Deflate(std::string("\0\0\0\x05", 4))));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("claims 5 pairs"), std::string::npos) << st.message();
  // A name length running past the block.
  st = FeedOnce(RawSynStream(Deflate(std::string("\0\0\0\x01\0\0\0\x50name\0\0\0\0", 16))));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  // Bytes after the last pair.
  st = FeedOnce(RawSynStream(Deflate(std::string("\0\0\0\x00xx", 6))));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  // A truncated zlib header; and a compressed block cut short.
  EXPECT_FALSE(FeedOnce(RawSynStream("\x78")).ok());
  Encoder enc;
  std::string good = enc.SynReply(1, {{"streamtype", "error"}}, 0);
  std::string cut = good.substr(0, good.size() - 8);
  cut[7] = static_cast<char>(cut.size() - 8);
  EXPECT_FALSE(FeedOnce(cut).ok());
}

TEST(SpdyFramesTest, RefusesControlFramesOfTheWrongLength) {
  EXPECT_EQ(FeedOnce(std::string("\x80\x03\x00\x06\x00\x00\x00\x05\0\0\0\0\0", 13)).code(),
            StatusCode::kInvalidArgument);  // PING of 5
  EXPECT_EQ(FeedOnce(std::string("\x80\x03\x00\x04\x00\x00\x00\x04\0\0\0\x02", 12)).code(),
            StatusCode::kInvalidArgument);  // SETTINGS claiming 2 entries in none
  EXPECT_EQ(FeedOnce(std::string("\x80\x03\x00\x01\x00\x00\x00\x04\0\0\0\x01", 12)).code(),
            StatusCode::kInvalidArgument);  // SYN_STREAM of 4
}

TEST(SpdyFramesTest, AnErrorIsFinal) {
  Decoder dec;
  Encoder enc;
  std::vector<Frame> f;
  Status st = dec.Feed(enc.Ping(1) + std::string("\x80\x01\x00\x06", 4), &f);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(f.size(), 1u);  // the frame before the bad one
  Status again = dec.Feed(enc.Ping(2), &f);
  EXPECT_EQ(again.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(f.size(), 1u);
}

}  // namespace
}  // namespace etna::net::spdy
