#include "common/base64.h"

#include <gtest/gtest.h>

namespace etna {
namespace {

TEST(Base64Test, RoundTripsEveryLength) {
  // RFC 4648 §10 vectors.
  const char* const kPlain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  const char* const kCoded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(Base64Encode(kPlain[i]), kCoded[i]);
    EXPECT_EQ(Base64Decode(kCoded[i]), std::string(kPlain[i]));
  }
  std::string bytes("\x00\xff\x10", 3);
  EXPECT_EQ(Base64Decode(Base64Encode(bytes)), bytes);
}

TEST(Base64Test, RefusesWhatIsNotCanonical) {
  EXPECT_FALSE(Base64Decode("Zg="));     // length
  EXPECT_FALSE(Base64Decode("Z=g="));    // padding inside
  EXPECT_FALSE(Base64Decode("Zg-_"));    // URL alphabet
  EXPECT_FALSE(Base64Decode("Zg==\n"));  // whitespace
}

}  // namespace
}  // namespace etna
