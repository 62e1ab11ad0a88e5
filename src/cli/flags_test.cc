#include "cli/flags.h"

#include <gtest/gtest.h>

#include <vector>

namespace etna::cli {
namespace {

using std::chrono::milliseconds;

TEST(ParseDurationTest, AcceptsUnitsAndRejectsTheRest) {
  EXPECT_EQ(*ParseDuration("500ms"), milliseconds(500));
  EXPECT_EQ(*ParseDuration("2s"), milliseconds(2000));
  EXPECT_EQ(*ParseDuration("1.5s"), milliseconds(1500));
  EXPECT_EQ(*ParseDuration("1m"), milliseconds(60000));
  EXPECT_EQ(*ParseDuration("1h"), milliseconds(3600000));  // Go's whole grammar since issue 11
  EXPECT_EQ(*ParseDuration("500us"), milliseconds(1));     // positive, so never 0
  for (const char* bad : {"", "5", "s", "0s", "0", "-1s", "1.2.3s", "1 s"}) {
    auto r = ParseDuration(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("not a duration"), std::string::npos) << bad;
  }
}

TEST(FlagParserTest, ValuesIntegersAndUnknownFlags) {
  std::vector<std::string> args = {"x", "--name", "a", "--count", "7", "--bad"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  FlagParser p("etna x", static_cast<int>(argv.size()), argv.data());
  std::string name;
  int count = 0;
  ASSERT_TRUE(p.Next());
  ASSERT_TRUE(p.Is("--name"));
  ASSERT_TRUE(p.Value(&name));
  ASSERT_TRUE(p.Next());
  ASSERT_TRUE(p.IntValue(&count, 1));
  ASSERT_TRUE(p.Next());
  EXPECT_EQ(p.flag(), "--bad");
  std::string missing;
  EXPECT_FALSE(p.Value(&missing));  // --bad has no value after it
  EXPECT_FALSE(p.Next());
  EXPECT_EQ(name, "a");
  EXPECT_EQ(count, 7);
}

}  // namespace
}  // namespace etna::cli
