#include "common/strings.h"

#include <gtest/gtest.h>

namespace etna {
namespace {

TEST(StringsTest, EqualsIgnoreCase) {
  EXPECT_TRUE(EqualsIgnoreCase("Pods", "pods"));
  EXPECT_FALSE(EqualsIgnoreCase("pod", "pods"));
  EXPECT_FALSE(EqualsIgnoreCase("pods", "podz"));
}

TEST(StringsTest, TrimDropsSurroundingWhitespaceOnly) {
  EXPECT_EQ(Trim("  a b\t\n"), "a b");
  EXPECT_EQ(Trim("ab"), "ab");
  EXPECT_EQ(Trim(" \t\r\n"), "");
  EXPECT_EQ(Trim(""), "");
}

TEST(StringsTest, LowerLowercasesAsciiLetters) {
  EXPECT_EQ(Lower("Application/JSON; Charset=UTF-8"), "application/json; charset=utf-8");
  EXPECT_EQ(Lower("a1-_"), "a1-_");
  EXPECT_EQ(Lower(""), "");
}

}  // namespace
}  // namespace etna
