#include "net/http/websocket.h"

#include <gtest/gtest.h>

namespace etna::net::http::websocket {
namespace {

TEST(WebSocketTest, AcceptKeyOfTheRfcExample) {
  EXPECT_EQ(AcceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WebSocketTest, DecodesMaskedFramesFedByteByByte) {
  std::string big(70000, 'x');
  std::string wire = EncodeMaskedFrame(Opcode::kBinary, std::string("\x00hello", 6), 0x12345678) +
                     EncodeMaskedFrame(Opcode::kText, big, 0xdeadbeef) +
                     EncodeMaskedFrame(Opcode::kPing, "p", 1);
  Decoder decoder;
  std::vector<Message> got;
  for (char c : wire) ASSERT_TRUE(decoder.Feed(std::string_view(&c, 1), &got).ok());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].opcode, Opcode::kBinary);
  EXPECT_EQ(got[0].payload, std::string("\x00hello", 6));
  EXPECT_EQ(got[1].opcode, Opcode::kText);
  EXPECT_EQ(got[1].payload, big);
  EXPECT_EQ(got[2].opcode, Opcode::kPing);
}

TEST(WebSocketTest, JoinsFragments) {
  std::string first = EncodeMaskedFrame(Opcode::kBinary, "ab", 7);
  first[0] = static_cast<char>(first[0] & 0x7F);  // not FIN
  std::string second = EncodeMaskedFrame(Opcode::kContinuation, "cd", 9);
  Decoder decoder;
  std::vector<Message> got;
  ASSERT_TRUE(decoder.Feed(first + second, &got).ok());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].payload, "abcd");
}

TEST(WebSocketTest, RefusesUnmaskedAndOversizedFrames) {
  Decoder decoder;
  std::vector<Message> got;
  Status unmasked = decoder.Feed(EncodeFrame(Opcode::kBinary, "x"), &got);
  EXPECT_NE(unmasked.message().find("not masked"), std::string::npos);
  Decoder small(4);
  Status big = small.Feed(EncodeMaskedFrame(Opcode::kBinary, "12345", 3), &got);
  EXPECT_NE(big.message().find("limit of 4 bytes"), std::string::npos);
}

TEST(WebSocketTest, ServerFramesAreUnmaskedWithExtendedLengths) {
  EXPECT_EQ(EncodeFrame(Opcode::kBinary, "hi"), std::string("\x82\x02hi", 4));
  std::string medium = EncodeFrame(Opcode::kBinary, std::string(300, 'a'));
  EXPECT_EQ(medium.substr(0, 4), std::string("\x82\x7e\x01\x2c", 4));
  EXPECT_EQ(EncodeClose(1000), std::string("\x88\x02\x03\xe8", 4));
}

}  // namespace
}  // namespace etna::net::http::websocket
